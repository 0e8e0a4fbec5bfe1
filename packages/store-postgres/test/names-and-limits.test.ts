// Found by a hostile probe: a retention the store took (up to 2^53 ms) made every prune fail on a
// timestamp PostgreSQL cannot hold, so nothing was pruned again. Also held here: one text as every
// kind of key is five records, and table names that are not plain identifiers are refused.
import { ConfigurationError, type JournalEntry } from "@paysys/core";
import { RETENTION_LIMIT_MS } from "@paysys/core/internal";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, PostgresStore } from "../src/index.js";
import { startDatabase, type TestDatabase } from "./database.js";

let db: TestDatabase;
let pool: pg.Pool;
beforeAll(async () => {
  db = await startDatabase();
  pool = db.pool();
  await migrate(pool);
});
afterAll(() => db.close());

const intent = (key: string): JournalEntry => {
  const now = Date.now();
  return { key, operation: "op", hash: "h", holder: { id: "till" }, startedAt: now, sendBy: now + 1000, state: "pending" };
};

describe("PostgreSQL store: names and limits", () => {
  it("journalRetentionMs at its allowed maximum (a thousand years): prune still works; past it, a ConfigurationError", async () => {
    expect(() => new PostgresStore(pool, { journalRetentionMs: RETENTION_LIMIT_MS + 1 })).toThrow(ConfigurationError);
    const store = new PostgresStore(pool, { journalRetentionMs: RETENTION_LIMIT_MS });
    await store.beginIntent(intent("settled-1"));
    await store.settleIntent("settled-1", { state: "applied", settledAt: Date.now() });
    await expect(store.prune()).resolves.toEqual({ journal: expect.any(Number), callbacks: expect.any(Number) });
  });

  it("callbackRetentionMs at its allowed maximum: prune still works", async () => {
    const store = new PostgresStore(pool, { callbackRetentionMs: RETENTION_LIMIT_MS });
    await store.claim("cb-1", 1000, "t");
    await store.complete("cb-1");
    await expect(store.prune()).resolves.toEqual({ journal: expect.any(Number), callbacks: expect.any(Number) });
  });

  it("one text as a journal key, a value key, a lease name, a callback key and an order id: five records", async () => {
    const store = new PostgresStore(pool);
    const text = "fiscal http://x/101";
    await store.beginIntent(intent(text));
    await store.set(text, "link-1");
    const lease = await store.acquireLease(text, { id: "till" }, 10_000);
    expect(await store.claim(text, 10_000, "tok")).toBe("new");
    expect(await store.recordOrderStatus(text, 1, undefined)).toBe(true);
    expect((await store.getIntent(text))?.state).toBe("pending");
    expect(await store.get(text)).toBe("link-1");
    expect(lease?.value).toBe(1);
    expect(await store.orderStatus(text)).toBe(1);
  });

  it("table names with quotes, semicolons, dots or capitals are refused before any SQL", () => {
    for (const prefix of ['x"; DROP TABLE paysys_journal; --', "a.b_", "Paysys_", "x y_", "ü_"]) {
      expect(() => new PostgresStore(pool, { tables: { prefix } })).toThrow(ConfigurationError);
    }
    for (const schema of ["public; DROP", "Public", 'a"b']) expect(() => new PostgresStore(pool, { schema })).toThrow(ConfigurationError);
  });
});
