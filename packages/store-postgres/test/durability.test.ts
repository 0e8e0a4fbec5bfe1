// What waits for the disk: an intent always (money is never sent without it); the outcome of an
// applied call kept with its chain link does not (statements.ts says why that is safe). The
// relaxed commit is the statement's own: the connection goes back to the pool as it came.
import { intentIdOf, type JournalEntry } from "@paysys/core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, PostgresStore } from "../src/index.js";
import { statementsFor } from "../src/statements.js";
import { resolveTables } from "../src/tables.js";
import { startDatabase, type TestDatabase } from "./database.js";

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await startDatabase();
  pool = db.pool({ max: 1 }); // one connection: what the store used is what the test reads
  await migrate(pool);
});
afterAll(() => db.close());

const setting = async (client: pg.Pool | pg.PoolClient) => (await client.query<{ synchronous_commit: string }>("SHOW synchronous_commit")).rows[0]!.synchronous_commit;

describe("durability", () => {
  it("the outcome and its link commit without waiting for the disk, in that transaction only", async () => {
    const store = new PostgresStore(pool);
    const lease = (await store.acquireLease("fiscal/durable", { id: "till" }, 60_000))!;
    const now = Date.now();
    const entry: JournalEntry = {
      key: "fiscal/durable/r-1",
      operation: "op",
      scope: "106",
      hash: "h",
      holder: { id: "till" },
      startedAt: now,
      sendBy: now + 1000,
      state: "pending",
    };
    await store.beginIntent(entry, lease);
    // Inside a transaction of our own, the statement's setting is visible before the commit.
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      const sql = statementsFor(resolveTables({}));
      const settlement = { state: "applied", answer: { Uid: "u-2" }, settledAt: now, intentId: intentIdOf(entry) };
      const params = [entry.key, "applied", JSON.stringify(settlement), "fiscal/durable", "u-2", ...sql.fenceParams(lease), intentIdOf(entry)];
      await client.query(sql.settleIntentWithLink, params);
      expect(await setting(client)).toBe("off");
      await client.query("ROLLBACK");
      expect(await setting(client)).toBe("on");
    } finally {
      client.release();
    }
    // Through the store: settled and kept, and its connection is back at the server's default.
    await store.settleIntentWithLink(entry.key, { state: "applied", answer: { Uid: "u-2" }, settledAt: now }, { key: "fiscal/durable", value: "u-2" }, lease);
    expect((await store.getIntent(entry.key))?.state).toBe("applied");
    expect(await store.get("fiscal/durable")).toBe("u-2");
    expect(await setting(pool)).toBe("on");
  });
});
