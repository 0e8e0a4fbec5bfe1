// Held against a hostile probe: retention at its maximum, one text as every kind of key (five
// records), and separators, NUL, newlines and unicode forms in keys (distinct keys stay distinct).
import type { JournalEntry } from "@paysys/core";
import { RETENTION_LIMIT_MS } from "@paysys/core/internal";
import type { RedisClientType } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { redisForTests, uniquePrefix } from "./redis.js";

let redis: Awaited<ReturnType<typeof redisForTests>>;
let client: RedisClientType;
beforeAll(async () => {
  redis = await redisForTests();
  client = await redis.client();
});
afterAll(() => redis.close());

const intent = (key: string): JournalEntry => ({
  key,
  operation: "t.op",
  hash: "h",
  holder: { id: "till-1" },
  startedAt: Date.now(),
  sendBy: Date.now() + 60_000,
  state: "pending",
});

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
