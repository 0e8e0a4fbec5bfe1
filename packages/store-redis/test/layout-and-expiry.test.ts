// The keys the store writes are the ones its README documents, under the prefix it was given and no
// other; settled entries and processed events expire after their retention and unresolved intents
// never do; leases end by the server's clock, whatever the clock of the process that took them says.
import type { JournalEntry } from "@paysys/core";
import { RETENTION_LIMIT_MS } from "@paysys/core/internal";
import type { RedisClientType } from "redis";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RedisStore } from "../src/index.js";
import { redisForTests, uniquePrefix } from "./redis.js";

let redis: Awaited<ReturnType<typeof redisForTests>>;
let client: RedisClientType;
beforeAll(async () => {
  redis = await redisForTests();
  client = await redis.client();
});
afterAll(() => redis.close());
afterEach(() => vi.useRealTimers());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const intent = (key: string, scope?: string): JournalEntry => ({
  key,
  operation: "t.op",
  ...(scope ? { scope } : {}),
  hash: "h",
  holder: { id: "till-1" },
  startedAt: Date.now(),
  sendBy: Date.now() + 60_000,
  state: "pending",
});
const keysUnder = async (prefix: string) => (await client.keys(`${prefix}*`)).sort();

describe("key layout", () => {
  it("every key is one the README documents, under the store's prefix", async () => {
    const prefix = uniquePrefix("layout");
    const store = new RedisStore(client, { prefix });
    const lease = await store.acquireLease("fiscal/101", { id: "till-1" }, 5_000);
    await store.set("fiscal/101", "uid-1", lease);
    await store.update("tokens/cashout", () => "token-1");
    await store.beginIntent(intent("fiscal 77/receipt-1", "fiscal/101"), lease);
    await store.beginIntent(intent("fiscal 77/receipt-2", "fiscal/101"), lease);
    await store.settleIntent("fiscal 77/receipt-2", { state: "applied", settledAt: Date.now() }, lease);
    await store.claim("event-1", 5_000, "delivery");
    await store.recordOrderStatus("order-1", 1, undefined);
    expect(await keysUnder(prefix)).toEqual(
      [
        "callback:event-1",
        "journal:fiscal 77/receipt-1",
        "journal:fiscal 77/receipt-2",
        "lease:fiscal/101",
        "order:order-1",
        "store",
        "unresolved",
        "value:fiscal/101",
        "value:tokens/cashout",
      ].map((k) => prefix + k),
    );
    expect(await client.hGetAll(`${prefix}lease:fiscal/101`)).toEqual({ holder: "till-1", fence: "1", expiresAt: expect.stringMatching(/^\d{13}$/) });
    expect(await client.zRange(`${prefix}unresolved`, 0, -1)).toEqual(["fiscal 77/receipt-1"]);
  });

  it("stores under two prefixes share nothing: values, leases, journals, deliveries", async () => {
    const a = new RedisStore(client, { prefix: uniquePrefix("a") });
    const b = new RedisStore(client, { prefix: uniquePrefix("b") });
    await a.set("k", "from-a");
    expect(await b.get("k")).toBeNull();
    expect(await a.acquireLease("register", { id: "till-a" }, 5_000)).toBeDefined();
    expect(await b.acquireLease("register", { id: "till-b" }, 5_000)).toBeDefined();
    expect(await a.beginIntent(intent("p/r-1"))).toBeUndefined();
    expect(await b.beginIntent(intent("p/r-1"))).toBeUndefined();
    await a.settleIntent("p/r-1", { state: "applied", settledAt: Date.now() });
    expect((await a.pendingIntents("p/")).length).toBe(0);
    expect((await b.pendingIntents("p/")).map((e) => e.key)).toEqual(["p/r-1"]);
    expect(await a.claim("e", 5_000, "delivery")).toBe("new");
    expect(await b.claim("e", 5_000, "delivery")).toBe("new");
  });

  it("pendingIntents lists by key prefix (a range of the sorted set), by scope, oldest first", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("pending") });
    const at = Date.now();
    for (const [key, startedAt, scope] of [
      ["fiscal 1/c", at + 2, "fiscal/101"],
      ["fiscal 1/a", at + 3, "fiscal/102"],
      ["fiscal 1/b", at + 1, "fiscal/101"],
      ["fiscal 10/a", at, "fiscal/101"],
      ["fiscal 2/a", at, "fiscal/101"],
    ] as const) {
      await store.beginIntent({ ...intent(key, scope), startedAt });
    }
    expect((await store.pendingIntents("fiscal 1/")).map((e) => e.key)).toEqual(["fiscal 1/b", "fiscal 1/c", "fiscal 1/a"]);
    expect((await store.pendingIntents("fiscal 1/", "fiscal/101")).map((e) => e.key)).toEqual(["fiscal 1/b", "fiscal 1/c"]);
    expect((await store.pendingIntents("")).length).toBe(5);
  });
});

describe("expiry", () => {
  it("settled entries expire after the journal retention; pending and disputed ones never", async () => {
    const prefix = uniquePrefix("retention");
    const store = new RedisStore(client, { prefix, journalRetentionMs: 300 });
    for (const key of ["applied", "refused", "disputed", "pending"]) await store.beginIntent(intent(key));
    for (const state of ["applied", "refused", "disputed"] as const) await store.settleIntent(state, { state, settledAt: Date.now() });
    expect(await client.pTTL(`${prefix}journal:applied`)).toBeGreaterThan(0);
    expect(await client.pTTL(`${prefix}journal:disputed`)).toBe(-1);
    expect(await client.pTTL(`${prefix}journal:pending`)).toBe(-1);
    await sleep(450);
    expect(await store.getIntent("applied")).toBeUndefined();
    expect(await store.getIntent("refused")).toBeUndefined();
    expect((await store.getIntent("disputed"))?.state).toBe("disputed");
    expect((await store.getIntent("pending"))?.state).toBe("pending");
    expect((await store.pendingIntents("")).map((e) => e.key).sort()).toEqual(["disputed", "pending"]);
  });

  it("a processed event and an order's status are remembered for the callback retention, then forgotten", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("callbacks"), callbackRetentionMs: 300 });
    expect(await store.claim("event", 5_000, "delivery")).toBe("new");
    await store.complete("event");
    await store.recordOrderStatus("order", 2, undefined);
    expect(await store.claim("event", 5_000, "delivery")).toBe("done");
    await store.release("event", "delivery"); // a done event stays done
    expect(await store.claim("event", 5_000, "delivery")).toBe("done");
    await sleep(450);
    expect(await store.claim("event", 5_000, "delivery")).toBe("new");
    expect(await store.orderStatus("order")).toBeUndefined();
  });

  it("the default callback retention is 30 days", async () => {
    const prefix = uniquePrefix("callbacks-default");
    const store = new RedisStore(client, { prefix });
    await store.claim("event", 5_000, "delivery");
    await store.complete("event");
    const ttl = await client.pTTL(`${prefix}callback:event`);
    expect(ttl).toBeGreaterThan(30 * 24 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(30 * 24 * 3600_000);
  });
});

describe("the server's clock", () => {
  /** Sets this process's clock `skewMs` away from the server's (Date only: timers keep running). */
  const skew = (skewMs: number) => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + skewMs);
  };

  it("a lease taken by a process whose clock is an hour behind still ends by the server's clock", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("clock-behind") });
    skew(-3600_000);
    const lease = await store.acquireLease("register", { id: "slow-clock" }, 200);
    expect(lease!.expiresAt - Date.now()).toBeLessThanOrEqual(200); // reported in the taker's own clock
    vi.useRealTimers();
    expect(await store.acquireLease("register", { id: "other" }, 5_000)).toBeUndefined();
    await sleep(300);
    expect(await store.acquireLease("register", { id: "other" }, 5_000)).toBeDefined();
  });

  it("a lease taken by a process whose clock is an hour ahead does not outlive its time on the server", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("clock-ahead") });
    skew(3600_000);
    const lease = await store.acquireLease("register", { id: "fast-clock" }, 200);
    expect(lease!.expiresAt - Date.now()).toBeLessThanOrEqual(200);
    vi.useRealTimers();
    expect(await store.acquireLease("register", { id: "other" }, 5_000)).toBeUndefined();
    await sleep(300);
    const taken = await store.acquireLease("register", { id: "other" }, 5_000);
    expect(taken?.value).toBe(lease!.value + 1);
    await expect(store.set("register", "stale", lease)).rejects.toMatchObject({ name: "LeaseLostError" });
  });
});

// Held against a hostile probe: retention at its maximum, one text as every kind of key (five
// records), and separators, NUL, newlines and unicode forms in keys (distinct keys stay distinct).
describe("Redis store: names and limits", () => {
  it("retentions at their maximum (a thousand years): settle and complete work", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("max"), journalRetentionMs: RETENTION_LIMIT_MS, callbackRetentionMs: RETENTION_LIMIT_MS });
    await store.beginIntent(intent("k"));
    await store.settleIntent("k", { state: "applied", settledAt: Date.now() });
    expect((await store.getIntent("k"))?.state).toBe("applied");
    expect(await store.pendingIntents("")).toEqual([]);
    expect(await store.claim("e", 1000, "t")).toBe("new");
    await store.complete("e");
    expect(await store.claim("e", 1000, "t2")).toBe("done");
    expect(await store.recordOrderStatus("o", 1, undefined)).toBe(true);
  });

  it("one text as journal key, value key, lease name, callback key, order id: five records", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("same") });
    const text = "fiscal http://x/101";
    await store.beginIntent(intent(text));
    await store.set(text, "link-1");
    expect((await store.acquireLease(text, { id: "till" }, 10_000))?.value).toBe(1);
    expect(await store.claim(text, 10_000, "tok")).toBe("new");
    expect(await store.recordOrderStatus(text, 1, undefined)).toBe(true);
    expect((await store.getIntent(text))?.state).toBe("pending");
    expect(await store.get(text)).toBe("link-1");
    expect(await store.orderStatus(text)).toBe(1);
  });

  it("separators, NUL, newlines, braces, unicode forms: distinct keys stay distinct, prefixes list exactly", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("sep") });
    const keys = ["a:b/c", "a/b:c", "a b/c", "a\u0000b", "a\nb", "{a}b", "%61", "\u00e9", "e\u0301", "A:b/c", "a:b/c\u00ff", "a:b/c\uffff"];
    for (const [i, k] of keys.entries()) expect(await store.beginIntent({ ...intent(k), operation: `op${i}` })).toBeUndefined();
    for (const [i, k] of keys.entries()) expect((await store.getIntent(k))?.operation).toBe(`op${i}`);
    expect((await store.pendingIntents("a:b/c")).map((e) => e.key).sort()).toEqual(["a:b/c", "a:b/c\u00ff", "a:b/c\uffff"].sort());
    expect((await store.pendingIntents("a")).length).toBe(7);
  });
});
