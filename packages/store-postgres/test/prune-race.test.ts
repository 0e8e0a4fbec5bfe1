// Pruning deletes `WHERE key IN (SELECT key ... WHERE <older than the retention> LIMIT n)`. Under READ
// COMMITTED, a row a concurrent transaction wrote after the subquery picked its key is re-checked only
// against the delete's own condition: without the age repeated there, the row as it is now (a new
// pending intent, a fresh callback claim) was deleted, and its key read as never sent.
import { intentIdOf, type JournalEntry } from "@paysys/core";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, PostgresStore } from "../src/index.js";
import { statementsFor } from "../src/statements.js";
import { resolveTables } from "../src/tables.js";
import { startDatabase, type TestDatabase } from "./database.js";

let db: TestDatabase;
let pool: pg.Pool;
let other: pg.Pool; // another process's connection, running the store's own statement
beforeAll(async () => {
  db = await startDatabase();
  pool = db.pool();
  other = db.pool();
  await migrate(pool);
});
afterAll(() => db.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sql = statementsFor(resolveTables({}));
const waitUntilBlocked = async (query: string) => {
  for (let i = 0; i < 100; i++) {
    const { rows } = await other.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1", [`%${query}%`]);
    if (rows[0].n > 0) return;
    await sleep(20);
  }
  throw new Error("the prune never waited");
};

describe("pruning racing a write of the same key", () => {
  it("a not-applied key past retention begun again: the new pending intent survives a concurrent prune", async () => {
    const store = new PostgresStore(pool, { journalRetentionMs: 200 });
    const key = "fiscal A L/sale/reused";
    const now = Date.now();
    const first: JournalEntry = { key, id: "i-1", operation: "sale", scope: "1", hash: "h", holder: { id: "till" }, startedAt: now, sendBy: now + 1000, state: "pending" };
    await store.beginIntent(first);
    await store.settleIntent(key, { state: "not-applied", settledAt: now, intentId: intentIdOf(first) });
    await sleep(300); // past retention
    // Process B begins the key again (the store's own beginIntent statement), its commit not yet done...
    const b = await other.connect();
    const second: JournalEntry = { ...first, id: "i-2", startedAt: Date.now(), sendBy: Date.now() + 50_000 };
    await b.query("BEGIN");
    const [written] = (await b.query(sql.beginIntent, [key, "1", second.startedAt, JSON.stringify(second)])).rows;
    expect(written.written).toBe(1);
    // ...while process A prunes.
    const pruning = store.prune();
    await waitUntilBlocked("DELETE FROM");
    await b.query("COMMIT"); // B's intent is durable: B now sends the receipt
    b.release();
    await pruning;
    const entry = await store.getIntent(key);
    expect(entry && { id: entry.id, state: entry.state }).toEqual({ id: "i-2", state: "pending" });
  });

  it("a stale claim past retention taken over by a new delivery: that delivery's claim survives a concurrent prune", async () => {
    const store = new PostgresStore(pool, { callbackRetentionMs: 200 });
    expect(await store.claim("event-1", 10, "delivery-1")).toBe("new"); // its process died: never completed
    await sleep(300);
    const b = await other.connect();
    await b.query("BEGIN");
    const [claimed] = (await b.query(sql.claim, ["event-1", 60_000, "delivery-2"])).rows;
    expect(claimed.claimed).toBe(1);
    const pruning = store.prune();
    await waitUntilBlocked("DELETE FROM");
    await b.query("COMMIT"); // delivery 2 processes the event for a minute
    b.release();
    await pruning;
    expect(await store.claim("event-1", 60_000, "delivery-3")).toBe("processing");
  });
});
