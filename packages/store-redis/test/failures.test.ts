// What the store does when Redis is not what it should be: unreachable (the error names the server,
// never its password), holding data the store did not write (StoreCorruptError), or emptied under a
// running process (a restart without its append-only file): it refuses to carry on as if nothing had
// been written, and a lost fence counter never lets an old holder's write through.
import { inspect } from "node:util";
import { ConfigurationError, intentIdOf, type JournalEntry, LeaseLostError, StoreCorruptError, StoreUnavailableError } from "@paysys/core";
import { withoutUrlCredentials } from "@paysys/core/internal";
import { freePort } from "@paysys/test-servers";
import { createClient, createClientPool, type RedisClientType } from "redis";
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

const PASSWORD = "s3cret-Pa55word";

describe("an unreachable server", () => {
  const shownNowhere = (error: unknown) => {
    expect(error).toBeInstanceOf(StoreUnavailableError);
    const e = error as StoreUnavailableError;
    for (const shown of [e.message, e.store ?? "", JSON.stringify(e), inspect(e, { depth: 5 })]) expect(shown).not.toContain(PASSWORD);
    return e;
  };

  it("a refused connection is a StoreUnavailableError within the timeout, naming the server without its credentials", async () => {
    const port = await freePort();
    const unreachable = createClient({ url: `redis://paysys:${PASSWORD}@127.0.0.1:${port}/2`, socket: { reconnectStrategy: () => 50, connectTimeout: 200 } });
    unreachable.on("error", () => {});
    unreachable.connect().catch(() => {});
    try {
      const store = new RedisStore(unreachable, { timeoutMs: 300 });
      const started = performance.now();
      const e = shownNowhere(await store.beginIntent({ key: "k", operation: "o", hash: "h", holder: { id: "x" }, startedAt: 0, sendBy: 0, state: "pending" }).catch((e) => e));
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(e.store).toBe(`redis://127.0.0.1:${port}/2 (prefix paysys:)`);
      expect(e.message).toContain("beginIntent");
    } finally {
      unreachable.destroy();
    }
  });

  it("a client pool of an unreachable server: named as a pool, never as localhost:6379 (where it is not)", async () => {
    const port = await freePort();
    const pool = createClientPool({ url: `redis://paysys:${PASSWORD}@127.0.0.1:${port}/2`, socket: { reconnectStrategy: false, connectTimeout: 200 } }, { acquireTimeout: 200 });
    pool.on("error", () => {});
    await pool.connect().catch(() => {});
    try {
      const e = shownNowhere(await new RedisStore(pool as never, { timeoutMs: 300 }).get("k").catch((x: unknown) => x));
      expect(e.store).toBe("redis (address not shown by the client: a client pool?) (prefix paysys:)");
      expect(e.message).not.toContain("localhost");
    } finally {
      pool.destroy();
    }
  });

  it("a closed client is a StoreUnavailableError at once", async () => {
    const closed = createClient({ url: `redis://paysys:${PASSWORD}@127.0.0.1:1` });
    const e = shownNowhere(await new RedisStore(closed).get("k").catch((e) => e));
    expect(e.message).toMatch(/failed get: .*closed/i);
  });

  it("credentials in any URL an error message shows are taken out", () => {
    expect(withoutUrlCredentials(`cannot reach rediss://user:${PASSWORD}@cache.internal:6380/0 now`)).toBe("cannot reach rediss://cache.internal:6380/0 now");
  });
});

describe("data the store did not write", () => {
  it("an entry that is not JSON, a key of the wrong type, a status that is not a number: StoreCorruptError", async () => {
    const prefix = uniquePrefix("corrupt");
    const store = new RedisStore(client, { prefix });
    await client.hSet(`${prefix}journal:k`, { intent: "{not json", state: "pending" });
    await expect(store.getIntent("k")).rejects.toBeInstanceOf(StoreCorruptError);
    await expect(store.beginIntent({ key: "k", operation: "o", hash: "h", holder: { id: "x" }, startedAt: 0, sendBy: 0, state: "pending" })).rejects.toBeInstanceOf(
      StoreCorruptError,
    );
    await client.set(`${prefix}lease:register`, "a string, not a lease");
    await expect(store.acquireLease("register", { id: "x" }, 1_000)).rejects.toBeInstanceOf(StoreCorruptError);
    await client.set(`${prefix}order:o`, "paid");
    await expect(store.orderStatus("o")).rejects.toBeInstanceOf(StoreCorruptError);
  });
});

describe("an intent another writer wrote", () => {
  it("with its id null (not a string), it is named by its start, as core's intentIdOf names it: a settlement of it is written", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("null-id") });
    const entry = { key: "k", id: null, operation: "o", hash: "h", holder: { id: "x" }, startedAt: 1_764_000_000_123, sendBy: 0, state: "pending" };
    await store.beginIntent(entry as unknown as JournalEntry);
    await store.settleIntent("k", { state: "not-applied", settledAt: 1, intentId: intentIdOf({ startedAt: entry.startedAt }) });
    expect((await store.getIntent("k"))?.state).toBe("not-applied");
  });
});

describe("data lost under a running process", () => {
  it("after a flush, a store that wrote before refuses every write (StoreCorruptError); a store opened afterwards starts anew", async () => {
    const prefix = uniquePrefix("lost");
    const store = new RedisStore(client, { prefix });
    const lease = await store.acquireLease("register", { id: "till-1" }, 60_000);
    await store.beginIntent({ key: "r-1", operation: "o", hash: "h", holder: { id: "till-1" }, startedAt: 0, sendBy: 0, state: "pending" }, lease);
    for (const key of await client.keys(`${prefix}*`)) await client.del(key); // what a restart without the AOF leaves
    const refused = await store.beginIntent({ key: "r-1", operation: "o", hash: "h", holder: { id: "till-1" }, startedAt: 0, sendBy: 0, state: "pending" }).catch((e) => e);
    expect(refused).toBeInstanceOf(StoreCorruptError);
    expect(refused.message).toMatch(/lost the data this process wrote/);
    await expect(store.acquireLease("register", { id: "till-1" }, 60_000)).rejects.toBeInstanceOf(StoreCorruptError);
    await expect(store.claim("event", 1_000, "delivery")).rejects.toBeInstanceOf(StoreCorruptError);
    const reopened = new RedisStore(client, { prefix });
    expect(await reopened.acquireLease("register", { id: "till-2" }, 60_000)).toBeDefined();
    await expect(store.set("register", "link")).rejects.toBeInstanceOf(StoreCorruptError); // the old one still refuses
  });

  it("a lease whose fence counter was lost: the new holder starts again at 1, and the old holder's fence is still refused", async () => {
    const prefix = uniquePrefix("fence-lost");
    const store = new RedisStore(client, { prefix });
    const old = await store.acquireLease("register", { id: "till-1" }, 60_000);
    await client.del(`${prefix}lease:register`);
    const next = await store.acquireLease("register", { id: "till-2" }, 60_000);
    expect(next?.value).toBe(old?.value);
    await expect(store.set("register", "stale", old)).rejects.toBeInstanceOf(LeaseLostError);
    await expect(store.beginIntent({ key: "r", operation: "o", hash: "h", holder: { id: "till-1" }, startedAt: 0, sendBy: 0, state: "pending" }, old)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await store.set("register", "fresh", next);
    expect(await store.get("register")).toBe("fresh");
  });

  it("reading a key the process began (sent) is a StoreCorruptError, as every write then is, never 'no entry'", async () => {
    const prefix = uniquePrefix("lost-reads");
    const store = new RedisStore(client, { prefix });
    const lease = (await store.acquireLease("fiscal/1", { id: "till-1" }, 60_000))!;
    const now = Date.now();
    const entry: JournalEntry = {
      key: "fiscal A L/sale/r-1",
      id: "i-1",
      operation: "sale",
      scope: "1",
      hash: "h",
      holder: { id: "till-1" },
      startedAt: now,
      sendBy: now + 50_000,
      state: "pending",
    };
    await store.beginIntent(entry, lease); // then the receipt is sent
    for (const key of await client.keys(`${prefix}*`)) await client.del(key); // what a restart without the AOF leaves
    // Writes are refused...
    expect(await outcome(store.beginIntent({ ...entry, id: "i-2" }, lease))).toEqual({ threw: "StoreCorruptError" });
    // ...and so are the reads the client decides with: "never begun" would read as "never sent".
    expect({
      getIntent: await outcome(store.getIntent(entry.key)),
      pendingIntents: await outcome(store.pendingIntents("fiscal A L/")),
    }).toEqual({ getIntent: { threw: "StoreCorruptError" }, pendingIntents: { threw: "StoreCorruptError" } });
  });
});

const outcome = <T>(p: Promise<T>) =>
  p.then(
    (v) => ({ answered: v === undefined ? "undefined" : JSON.stringify(v) }),
    (e: Error) => ({ threw: e instanceof StoreCorruptError ? "StoreCorruptError" : e.name }),
  );

describe("a server that refuses work for a while", () => {
  it("out of memory under noeviction (from inside a script) is a StoreUnavailableError, not a StoreCorruptError", async () => {
    const admin = await redis.client();
    const store = new RedisStore(client, { prefix: uniquePrefix("refused") });
    await store.acquireLease("fiscal/1", { id: "till" }, 60_000); // the store is open and healthy
    await admin.sendCommand(["CONFIG", "SET", "maxmemory-policy", "noeviction"]);
    await admin.sendCommand(["CONFIG", "SET", "maxmemory", "1"]);
    let error: unknown;
    try {
      error = await store.acquireLease("fiscal/2", { id: "till" }, 60_000).then(
        () => undefined,
        (e) => e,
      );
    } finally {
      await admin.sendCommand(["CONFIG", "SET", "maxmemory", "0"]);
    }
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/failed acquireLease: OOM/);
  });
});

describe("options", () => {
  it("durations must be whole milliseconds a server and a timer take: a ConfigurationError names the option", () => {
    for (const [name, value] of [
      ["callbackRetentionMs", 1.1 * 24 * 3600_000], // 95040000.00000001: Redis refuses a fraction in PX
      ["journalRetentionMs", Number.POSITIVE_INFINITY],
      ["journalRetentionMs", 0],
      ["timeoutMs", -1],
      ["lockWaitMs", 2 ** 31],
      ["timeoutMs", "2000"],
    ] as const) {
      expect(() => new RedisStore(client, { [name]: value })).toThrow(new RegExp(`^@paysys/store-redis: ${name} must be a whole number of milliseconds`));
      expect(() => new RedisStore(client, { [name]: value })).toThrow(ConfigurationError);
    }
    expect(() => new RedisStore(client, { callbackRetentionMs: 95_040_000, journalRetentionMs: 1, timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});

describe("update", () => {
  it("a decision that fails frees the lock at once and writes nothing", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("update-fails") });
    await expect(
      store.update("token", () => {
        throw new Error("the authorization failed");
      }),
    ).rejects.toThrow("the authorization failed");
    const started = performance.now();
    expect(await store.update("token", () => "t2")).toBe("t2");
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("a lock lost while deciding (it ran out) refuses the write with LeaseLostError", async () => {
    const prefix = uniquePrefix("update-lost");
    const store = new RedisStore(client, { prefix });
    const error = await store
      .update("token", async () => {
        await client.del(`${prefix}value-lock:token`); // as if it had run out while this process was paused
        await client.set(`${prefix}value:token`, "written by another process");
        return "mine";
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(await store.get("token")).toBe("written by another process");
  });

  it("a lock held by a live update longer than lockWaitMs: StoreUnavailableError", async () => {
    const store = new RedisStore(client, { prefix: uniquePrefix("update-wait"), lockWaitMs: 200 });
    let release = () => {};
    const holding = store.update("token", () => new Promise<string>((resolve) => (release = () => resolve("first"))));
    await new Promise((r) => setTimeout(r, 50));
    await expect(store.update("token", () => "second")).rejects.toBeInstanceOf(StoreUnavailableError);
    release();
    expect(await holding).toBe("first");
  });
});
