// Retention: settled journal entries and processed webhook events are dropped once older than their
// retention (by the database's clock); pending and disputed intents, and claims still held, never.
// Rows the store did not write are a StoreCorruptError, never a guess.
import { ConfigurationError, type JournalEntry, StoreCorruptError } from "@paysys/core";
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const intent = (key: string): JournalEntry => {
  const now = Date.now();
  return { key, operation: "op", hash: "h", holder: { id: "till" }, startedAt: now, sendBy: now + 1000, state: "pending" };
};

describe("retention", () => {
  it("drops settled entries past the journal retention, never pending or disputed ones", async () => {
    const store = new PostgresStore(pool, { journalRetentionMs: 300 });
    for (const key of ["old/applied", "old/not-applied", "old/pending", "old/disputed"]) await store.beginIntent(intent(key));
    await store.settleIntent("old/applied", { state: "applied", answer: { IdDocument: 1 }, settledAt: Date.now() });
    await store.settleIntent("old/not-applied", { state: "not-applied", settledAt: Date.now() });
    await store.settleIntent("old/disputed", { state: "disputed", settledAt: Date.now() });
    expect(await store.prune()).toEqual({ journal: 0, callbacks: 0 }); // within the retention: kept
    await sleep(400);
    await store.beginIntent(intent("new/applied"));
    await store.settleIntent("new/applied", { state: "applied", settledAt: Date.now() });
    expect((await store.prune()).journal).toBe(2);
    expect(await store.getIntent("old/applied")).toBeUndefined();
    expect(await store.getIntent("old/not-applied")).toBeUndefined();
    expect((await store.getIntent("new/applied"))?.state).toBe("applied");
    // In the order begun, and by key within one millisecond: compared as a set.
    expect((await store.pendingIntents("old/")).map((e) => [e.key, e.state]).sort()).toEqual([
      ["old/disputed", "disputed"],
      ["old/pending", "pending"],
    ]);
  });

  it("a store prunes on its own, in the background of its first begin", async () => {
    const setup = new PostgresStore(pool, { journalRetentionMs: 60_000 });
    await setup.beginIntent(intent("auto/applied"));
    await setup.settleIntent("auto/applied", { state: "applied", settledAt: Date.now() });
    await sleep(250);
    const store = new PostgresStore(pool, { journalRetentionMs: 200 });
    await store.beginIntent(intent("auto/trigger"));
    await expect.poll(() => store.getIntent("auto/applied"), { timeout: 2000 }).toBeUndefined();
    expect((await store.getIntent("auto/trigger"))?.state).toBe("pending");
  });

  it("forgets processed webhook events past the callback retention, not claims still held", async () => {
    const store = new PostgresStore(pool, { callbackRetentionMs: 300 });
    await store.claim("event-done", 60_000, "delivery");
    await store.complete("event-done");
    await store.claim("event-held", 60_000, "delivery");
    expect(await store.claim("event-done", 60_000, "delivery")).toBe("done");
    await sleep(400);
    expect((await store.prune()).callbacks).toBe(1);
    expect(await store.claim("event-done", 60_000, "delivery")).toBe("new"); // a very late duplicate, past the retention
    expect(await store.claim("event-held", 60_000, "delivery")).toBe("processing");
  });
});

describe("rows the store did not write", () => {
  it("a journal entry edited by hand is a StoreCorruptError naming its key, in every read", async () => {
    const store = new PostgresStore(pool);
    await store.beginIntent(intent("corrupt/edited"));
    await pool.query(`UPDATE paysys_journal SET intent = '{"key": "corrupt/edited"}' WHERE key = 'corrupt/edited'`);
    await expect(store.getIntent("corrupt/edited")).rejects.toThrow(StoreCorruptError);
    await expect(store.getIntent("corrupt/edited")).rejects.toThrow(/corrupt\/edited .*lacks the key, operation, hash or holder/);
    await expect(store.pendingIntents("corrupt/")).rejects.toThrow(StoreCorruptError);
    await expect(store.beginIntent(intent("corrupt/edited"))).rejects.toThrow(StoreCorruptError);
  });

  it("a settled entry whose settlement was lost is a StoreCorruptError", async () => {
    const store = new PostgresStore(pool);
    await store.beginIntent(intent("corrupt/settled"));
    await store.settleIntent("corrupt/settled", { state: "applied", settledAt: Date.now() });
    await pool.query("UPDATE paysys_journal SET settlement = NULL WHERE key = 'corrupt/settled'");
    await expect(store.getIntent("corrupt/settled")).rejects.toThrow(/applied without a settlement/);
  });
});

describe("options", () => {
  it("durations must be whole milliseconds from 1 to each one's limit: a ConfigurationError names the option", () => {
    for (const [name, value] of [
      ["journalRetentionMs", 1.5],
      ["callbackRetentionMs", Number.POSITIVE_INFINITY],
      ["timeoutMs", 0],
      ["updateWaitMs", 2 ** 31],
    ] as const) {
      expect(() => new PostgresStore(pool, { [name]: value })).toThrow(new RegExp(`^@paysys/store-postgres: ${name} must be a whole number of milliseconds`));
      expect(() => new PostgresStore(pool, { [name]: value })).toThrow(ConfigurationError);
    }
  });
});

// Found by a hostile probe: a retention the store took (up to 2^53 ms) made every prune fail on a
// timestamp PostgreSQL cannot hold, so nothing was pruned again. Also held here: one text as every
// kind of key is five records, and table names that are not plain identifiers are refused.
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
