// The conformance kit of @paysys/core, unchanged: every store contract, with `again` a second store
// over a second pool (another process on the same database) for the checks that race two handles.
import { callbackStoreConformance, storeConformance } from "@paysys/core/testing";
import type pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import { migrate, PostgresStore } from "../src/index.js";
import { startDatabase, type TestDatabase } from "./database.js";

let db: TestDatabase;
let first: pg.Pool;
let second: pg.Pool;
beforeAll(async () => {
  db = await startDatabase();
  first = db.pool();
  second = db.pool();
  await migrate(first);
});
afterAll(() => db.close());

describe("storeConformance", () => {
  for (const check of storeConformance({ fresh: () => new PostgresStore(first), again: () => new PostgresStore(second) })) it(check.name, check.run);
});

describe("callbackStoreConformance", () => {
  for (const check of callbackStoreConformance({ fresh: () => new PostgresStore(first), again: () => new PostgresStore(second) })) it(check.name, check.run);
});
