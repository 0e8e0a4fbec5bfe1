// The store contracts, checked by the conformance kit every store runs (@paysys/core/testing): the
// memory store, and the file store with a second handle on the same files, as another process
// would open them. What only a file store can get wrong (a killed process, a torn or missing file)
// is checked further below.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createWhole, writeWhole } from "../src/file-io.js";
import {
  ConfigurationError,
  type Fence,
  type Holder,
  MemoryCallbackStore,
  MemoryStore,
  PaysysError,
  type Settlement,
  StoreCorruptError,
  StoreUnavailableError,
} from "../src/index.js";
import { FileStore } from "../src/node.js";
import { callbackStoreConformance, storeConformance } from "../src/testing.js";

const folders: string[] = [];
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});
const folder = () => {
  const f = mkdtempSync(join(tmpdir(), "paysys-store-"));
  folders.push(f);
  return f;
};

describe("MemoryStore passes the conformance kit", () => {
  for (const c of storeConformance({ fresh: () => new MemoryStore() })) it(c.name, c.run);
});

describe("MemoryStore keeps its memory bounded", () => {
  const holder: Holder = { id: "till-1" };
  const intent = (key: string, at: number) => ({ key, operation: "sale", scope: "101", hash: "h", holder, startedAt: at, sendBy: at + 1000, state: "pending" as const });
  const settle = (store: MemoryStore, key: string, state: Settlement["state"], at: number) => store.settleIntent(key, { state, answer: { key }, settledAt: at });
  const kept = async (store: MemoryStore, keys: string[]) => (await Promise.all(keys.map((k) => store.getIntent(k)))).map((e) => e?.state ?? "gone");

  it("drops a settled entry once it is older than the retention (pruned at most once a minute); an unresolved one never", async () => {
    let now = 1_000_000;
    const store = new MemoryStore({ journalRetentionMs: 10 * 60_000, now: () => now });
    for (const key of ["a", "b", "c"]) await store.beginIntent(intent(key, now));
    await settle(store, "a", "applied", now);
    await settle(store, "b", "disputed", now);
    now += 10 * 60_000 + 1;
    await store.beginIntent(intent("d", now)); // a write prunes
    expect(await kept(store, ["a", "b", "c", "d"])).toEqual(["gone", "disputed", "pending", "pending"]);
    await settle(store, "c", "refused", now);
    now += 5 * 60_000;
    await store.beginIntent(intent("e", now));
    expect(await kept(store, ["c"])).toEqual(["refused"]); // within the retention
  });

  it("past maxSettledEntries drops the oldest settled entry, within the retention too; unresolved ones neither count nor go", async () => {
    const store = new MemoryStore({ maxSettledEntries: 2 });
    const keys = ["k1", "k2", "k3", "k4", "k5"];
    for (const key of keys) await store.beginIntent(intent(key, 1));
    await settle(store, "k1", "applied", 2);
    await settle(store, "k2", "refused", 3);
    await settle(store, "k3", "disputed", 4);
    expect(await kept(store, keys)).toEqual(["applied", "refused", "disputed", "pending", "pending"]);
    await settle(store, "k4", "applied", 5);
    expect(await kept(store, keys)).toEqual(["gone", "refused", "disputed", "applied", "pending"]);
    await settle(store, "k3", "not-applied", 6); // a person settled the dispute
    expect(await kept(store, keys)).toEqual(["gone", "gone", "not-applied", "applied", "pending"]);
    expect((await store.pendingIntents("k")).map((e) => e.key)).toEqual(["k5"]);
  });

  it("drops an applied entry whose key nobody was shown (forgettable) at once; every other one it keeps as before", async () => {
    const store = new MemoryStore();
    const keys = ["made", "given", "made-refused", "made-pending"];
    for (const key of keys) await store.beginIntent(intent(key, 1));
    await store.settleIntent("made", { state: "applied", answer: { IdDocument: 1 }, forgettable: true, settledAt: 2 });
    await store.settleIntent("given", { state: "applied", answer: { IdDocument: 2 }, settledAt: 2 });
    // Only an applied call's answer reached its caller: anything else keeps its entry, whatever the flag says.
    await store.settleIntent("made-refused", { state: "refused", forgettable: true, settledAt: 2 });
    expect(await kept(store, keys)).toEqual(["gone", "applied", "refused", "pending"]);
    // Dropped through the deferred write too (an applied call's outcome carried by the register's next intent).
    const fence = (await store.acquireLease("fiscal/101", holder, 60_000))!;
    const carried = { key: "made-pending", settlement: { state: "applied" as const, answer: {}, forgettable: true, settledAt: 3 }, link: { key: "uid/101", value: "u-2" } };
    await store.settleThenBegin(carried, intent("next", 3), fence);
    expect(await kept(store, ["made-pending", "next"])).toEqual(["gone", "pending"]);
    expect(store.get("uid/101")).toBe("u-2");
    expect((await store.pendingIntents("made")).map((e) => e.key)).toEqual([]);
  });

  it("keeps a forgettable entry it listed while pending: the listing showed its key (journal.pending, recover)", async () => {
    const store = new MemoryStore();
    await store.beginIntent(intent("listed", 1));
    await store.beginIntent(intent("unlisted", 1));
    expect((await store.pendingIntents("listed")).map((e) => e.key)).toEqual(["listed"]);
    for (const key of ["listed", "unlisted"]) await store.settleIntent(key, { state: "applied", answer: { key }, forgettable: true, settledAt: 2 });
    expect(await kept(store, ["listed", "unlisted"])).toEqual(["applied", "gone"]);
    expect((await store.getIntent("listed"))?.settlement?.answer).toEqual({ key: "listed" });
  });

  it("a cap that is not a whole number ≥ 0 is a ConfigurationError, not a store that keeps everything", () => {
    for (const bad of [Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, "10"]) {
      expect(() => new MemoryStore({ maxSettledEntries: bad as number })).toThrow(ConfigurationError);
    }
    expect(() => new MemoryStore({ maxSettledEntries: 0 })).not.toThrow();
  });
});

describe("FileStore passes the conformance kit, with a second handle on the same files", () => {
  for (const c of storeConformance({ fresh: () => new FileStore(join(folder(), "store.json")), again: (s) => new FileStore((s as FileStore).path) })) it(c.name, c.run);
});

describe("MemoryCallbackStore passes the callback conformance kit", () => {
  for (const c of callbackStoreConformance({ fresh: () => new MemoryCallbackStore() })) it(c.name, c.run);
});

describe("FileStore passes the callback conformance kit, with a second handle on the same files", () => {
  for (const c of callbackStoreConformance({ fresh: () => new FileStore(join(folder(), "store.json")), again: (s) => new FileStore((s as FileStore).path) })) it(c.name, c.run);
});

describe("the kit fails stores that break the contracts", () => {
  const callbackCheck = (name: string, store: () => MemoryCallbackStore) => callbackStoreConformance({ fresh: store }).find((c) => c.name.startsWith(name))!;
  it("a callback store that lets every delivery claim an event", async () => {
    class Amnesiac extends MemoryCallbackStore {
      override async claim() {
        return "new" as const;
      }
    }
    await expect(callbackCheck("callbacks: a claimed event", () => new Amnesiac()).run()).rejects.toThrow(/must answer processing/);
  });
  it("a callback store whose status moves are not compare-and-set", async () => {
    class Blind extends MemoryCallbackStore {
      override async recordOrderStatus(orderId: string, status: number) {
        return super.recordOrderStatus(orderId, status, await this.orderStatus(orderId));
      }
    }
    await expect(callbackCheck("callbacks: an order's status", () => new Blind()).run()).rejects.toThrow(/must fail once one is recorded/);
  });
  const byName = (name: string, store: () => MemoryStore) => storeConformance({ fresh: store }).find((c) => c.name.startsWith(name))!;
  it("a store that hands a held lease to anyone", async () => {
    class Careless extends MemoryStore {
      override async acquireLease(name: string, holder: Holder, ttlMs: number) {
        await this.releaseLease({ name, holder: "anyone", value: 0 });
        return { name, holder: holder.id, value: 1, expiresAt: Date.now() + ttlMs };
      }
    }
    await expect(byName("lease: one live holder", () => new Careless()).run()).rejects.toThrow(/must not be taken by another/);
  });
  it("a store that ignores fences", async () => {
    class Unfenced extends MemoryStore {
      override set(key: string, value: string) {
        super.set(key, value);
      }
    }
    await expect(byName("lease: an expired lease", () => new Unfenced()).run()).rejects.toThrow(/stale fence was accepted/);
  });
  it("a store whose outcome-with-link ignores the fence, or forgets the link", async () => {
    const check = "journal: settleIntentWithLink";
    class Unfenced extends MemoryStore {
      override async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }) {
        this.set(link.key, link.value);
        await this.settleIntent(key, settlement);
      }
    }
    await expect(byName(check, () => new Unfenced()).run()).rejects.toThrow(/stale fence was accepted/);
    class Linkless extends MemoryStore {
      override async settleIntentWithLink(key: string, settlement: Settlement, _link: { key: string; value: string }, fence: Fence) {
        await this.settleIntent(key, settlement, fence);
      }
    }
    await expect(byName(check, () => new Linkless()).run()).rejects.toThrow(/the link must be kept/);
  });
  it("a store whose update is not atomic", async () => {
    class Racy extends MemoryStore {
      override async update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>) {
        const next = await decide(this.get(key));
        if (next !== undefined) this.set(key, next);
        return this.get(key);
      }
    }
    await expect(byName("tokens: update is atomic", () => new Racy()).run()).rejects.toThrow(/40 atomic updates must make 40/);
  });
  it("a journal that writes a key twice", async () => {
    class Forgetful extends MemoryStore {
      override async beginIntent() {
        return undefined;
      }
    }
    await expect(byName("journal: of ten begins", () => new Forgetful()).run()).rejects.toThrow(/exactly one begin must write/);
  });
});

describe("FileStore's first start", () => {
  // A first start takes no lock: were its empty store written over one another process made a moment
  // before (with a lease in it), that lease would be lost and the register taken twice.
  it("makes the store file only when there is none: a store another process made meanwhile is kept", async () => {
    const path = join(folder(), "store.json");
    const other = new FileStore(path);
    const lease = await other.acquireLease("fiscal/101", { id: "till-1" }, 60_000);
    createWhole(path, `${JSON.stringify({ "paysys-store": 1, values: {}, leases: {} })}\n`, true); // what a racing first start writes
    expect(await new FileStore(path).acquireLease("fiscal/101", { id: "till-2" }, 60_000)).toBeUndefined();
    expect(lease).toBeDefined();
  });
});

describe("FileStore and a process killed with -9", () => {
  const holding = async (mode: string, path: string, arg = "") => {
    const child = spawn(process.execPath, [new URL("./fixtures/store-holder.mjs", import.meta.url).pathname, mode, path, arg], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once("data", () => resolve());
      child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before it held anything`)));
    });
    return child;
  };
  const killed = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      child.once("exit", () => resolve());
      child.kill("SIGKILL");
    });

  it("a killed process's lock is taken over within a second", async () => {
    const path = join(folder(), "store.json");
    const child = await holding("lock", path);
    await killed(child);
    const started = performance.now();
    await new FileStore(path).update("after", () => "ok");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("a live process's lock is waited for, then a StoreUnavailableError naming the store, never a plain Error", async () => {
    const path = join(folder(), "store.json");
    const child = await holding("lock", path);
    try {
      const err = await new FileStore(path, { lockTimeoutMs: 300 }).update("after", () => "ok").catch((e) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err).toBeInstanceOf(PaysysError);
      expect(err).toMatchObject({ store: path });
      expect(err.message).toMatch(/locked by another live process/);
    } finally {
      await killed(child);
    }
  });

  // A process frozen inside the lock (a failing disk, a paused container) would write after whoever
  // took the lock from it, under a lease fence it checked before the freeze (a review's probe).
  it("a live process's lock is never taken over, however long it was held: here a process stopped (SIGSTOP) while holding it", async () => {
    const path = join(folder(), "store.json");
    const child = await holding("lock", path);
    process.kill(child.pid!, "SIGSTOP");
    try {
      const err = await new FileStore(path, { staleLockMs: 100, lockTimeoutMs: 800 }).update("after", () => "ok").catch((e) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err.message).toMatch(/locked by another live process/);
    } finally {
      process.kill(child.pid!, "SIGCONT");
      await killed(child);
    }
  });

  it("a lock whose pid now names another process (it started later) is taken over at once", async () => {
    const path = join(folder(), "store.json");
    const child = await holding("lock", path);
    try {
      // The lock as an earlier process with the child's pid would have left it: another start time.
      const [format, host, pid, , ...rest] = readFileSync(`${path}.lock`, "utf8").split(" ");
      writeFileSync(`${path}.lock`, [format, host, pid, "1", ...rest].join(" "));
      const started = performance.now();
      await new FileStore(path, { lockTimeoutMs: 5_000 }).update("after", () => "ok");
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await killed(child);
    }
  });

  it("a holder keeps its lock fresh while it holds it (a long update is not taken for a hung one elsewhere)", async () => {
    const path = join(folder(), "store.json");
    const child = await holding("lock", path, "150");
    try {
      const first = statSync(`${path}.lock`).mtimeMs;
      await new Promise((r) => setTimeout(r, 400));
      expect(statSync(`${path}.lock`).mtimeMs).toBeGreaterThan(first);
    } finally {
      await killed(child);
    }
  });

  it("a killed process's lease is taken at once by another holder on this machine, with a higher fence", async () => {
    const path = join(folder(), "store.json");
    const child = await holding("lease", path, "fiscal/42");
    const store = new FileStore(path);
    expect(await store.acquireLease("fiscal/42", { id: "till-2", host: hostname(), pid: process.pid }, 60_000)).toBeUndefined();
    await killed(child);
    const lease = await store.acquireLease("fiscal/42", { id: "till-2", host: hostname(), pid: process.pid }, 60_000);
    expect(lease).toMatchObject({ holder: "till-2", value: 2 });
  });

  it("killed at 20 random moments while writing, the store always holds one whole value: the old or the new", { timeout: 90_000 }, async () => {
    const path = join(folder(), "store.json");
    for (let kill = 0; kill < 20; kill++) {
      const child = await holding("write", path, "big");
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 40));
      await killed(child);
      const value = new FileStore(path).get("big");
      if (value !== undefined) expect(value).toMatch(/^\d+:x{200000}$/);
    }
    expect(readdirSync(dirname(path)).filter((f) => f.endsWith(".tmp")).length).toBeLessThanOrEqual(20);
  });
});

/** A pending intent of the key, started at `startedAt`. */
const pendingIntent = (key: string, startedAt = Date.now()) => ({
  key,
  operation: "t.op",
  hash: "h",
  holder: { id: "x" },
  startedAt,
  sendBy: startedAt,
  state: "pending" as const,
});

describe("FileStore after a write cut by kill -9", () => {
  it("the write's temporary file is not an entry: the next process prunes it and goes on", async () => {
    const path = join(folder(), "store.json");
    const now = Date.now();
    const intent = (key: string) => pendingIntent(key, now);
    const first = new FileStore(path);
    await first.beginIntent(intent("k/1"));
    await first.settleIntent("k/1", { state: "applied", answer: { id: 1 }, settledAt: now });
    // What a process killed between creating its temporary file and renaming it leaves: an empty file.
    const cut = join(`${path}.journal`, "done", "0123abcd.json.4242.x1y2z3.tmp");
    writeFileSync(cut, "");
    const next = new FileStore(path);
    await next.beginIntent(intent("k/2")); // the first write of a process prunes the journal
    expect(readdirSync(dirname(cut))).not.toContain("0123abcd.json.4242.x1y2z3.tmp");
    expect((await next.getIntent("k/1"))?.settlement?.answer).toEqual({ id: 1 });
    expect((await next.pendingIntents("k/")).map((e) => e.key)).toEqual(["k/2"]);
  });
});

describe("FileStore and a settle the machine lost", () => {
  it("a settled entry keeps its pending copy until the prune has flushed it; a settled copy lost meanwhile leaves the intent pending", async () => {
    const path = join(folder(), "store.json");
    const now = Date.now();
    const intent = (key: string) => pendingIntent(key, now);
    const store = new FileStore(path);
    await store.beginIntent(intent("k/1"));
    await store.beginIntent(intent("k/2"));
    await store.settleIntent("k/1", { state: "applied", answer: { id: 1 }, settledAt: now });
    await store.settleIntent("k/2", { state: "applied", answer: { id: 2 }, settledAt: now });
    const pendingDir = join(`${path}.journal`, "pending");
    expect(readdirSync(pendingDir)).toHaveLength(2); // not flushed yet: the pending copies stay
    expect(await store.pendingIntents("k/")).toEqual([]);
    // A power cut before the settled copy of k/2 reached the disk: it is empty (or cut short).
    const doneDir = join(`${path}.journal`, "done");
    const [k2] = readdirSync(pendingDir).filter((name) => readFileSync(join(doneDir, name), "utf8").includes('"id":2'));
    writeFileSync(join(doneDir, k2!), "");
    const after = new FileStore(path);
    expect((await after.getIntent("k/2"))?.state).toBe("pending");
    expect((await after.pendingIntents("k/")).map((e) => e.key)).toEqual(["k/2"]);
    // The next process's first write prunes: k/1's settled copy is flushed and its pending copy goes;
    // k/2's lost settled copy goes and its intent stays pending.
    await after.beginIntent(intent("k/3"));
    expect(readdirSync(pendingDir)).toHaveLength(2);
    expect(readdirSync(doneDir)).not.toContain(k2);
    expect((await after.getIntent("k/1"))?.settlement?.answer).toEqual({ id: 1 });
    expect((await after.pendingIntents("k/")).map((e) => e.key).sort()).toEqual(["k/2", "k/3"]);
  });

  it("a settled copy of an earlier intent of the key (its removal undone by a power cut) never hides the intent written since", async () => {
    const path = join(folder(), "store.json");
    const store = new FileStore(path);
    const intent = (startedAt: number) => pendingIntent("k/1", startedAt);
    await store.beginIntent(intent(1_000));
    await store.settleIntent("k/1", { state: "not-applied", settledAt: 2_000 });
    const [name] = readdirSync(join(`${path}.journal`, "done"));
    const notApplied = readFileSync(join(`${path}.journal`, "done", name!), "utf8");
    await store.beginIntent(intent(3_000)); // sent again: the earlier settled copy is removed
    writeFileSync(join(`${path}.journal`, "done", name!), notApplied); // ... and a power cut brings it back
    const after = new FileStore(path);
    expect(await after.getIntent("k/1")).toMatchObject({ state: "pending", startedAt: 3_000 });
    expect((await after.pendingIntents("k/")).map((e) => e.startedAt)).toEqual([3_000]);
    await after.beginIntent({ ...intent(4_000), key: "k/2" }); // the prune removes the stale copy, never the intent
    expect(await after.getIntent("k/1")).toMatchObject({ state: "pending", startedAt: 3_000 });
    expect(readdirSync(join(`${path}.journal`, "done"))).toEqual([]);
  });

  it("a settled copy that is not JSON, with no intent beside it, is a StoreCorruptError naming it", async () => {
    const path = join(folder(), "store.json");
    const store = new FileStore(path);
    const now = Date.now();
    await store.beginIntent(pendingIntent("k/1", now));
    await store.settleIntent("k/1", { state: "applied", settledAt: now });
    const [name] = readdirSync(join(`${path}.journal`, "done"));
    rmSync(join(`${path}.journal`, "pending", name!));
    writeFileSync(join(`${path}.journal`, "done", name!), '{"key":"k/1","sta');
    const err = await store.getIntent("k/1").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect((err as Error).message).toContain(name!);
  });
});

describe("FileStore never starts afresh silently", () => {
  it("a corrupt store file is a StoreCorruptError naming it", async () => {
    const path = join(folder(), "store.json");
    new FileStore(path);
    writeFileSync(path, '{"paysys-store":1,"values":{"4');
    const err = (() => {
      try {
        new FileStore(path).get("42");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect(err).toMatchObject({ store: path });
    expect((err as Error).message).toContain(path);
  });

  it("a store file gone while its journal stayed is a StoreCorruptError, not an empty store", async () => {
    const path = join(folder(), "store.json");
    const store = new FileStore(path);
    const now = Date.now();
    await store.beginIntent(pendingIntent("k/1", now));
    rmSync(path);
    expect(() => new FileStore(path)).toThrow(StoreCorruptError);
  });

  it("an unreadable store file (a folder in its place) is a StoreCorruptError naming it", async () => {
    const path = join(folder(), "store.json");
    new FileStore(path);
    rmSync(path);
    mkdirSync(path);
    await expect(new FileStore(`${path}`).set("a", "b")).rejects.toThrow(StoreCorruptError);
  });
});

describe("a store file's write that fails", () => {
  it("leaves the old content and no temporary file, whether refused or failed at its rename", () => {
    const dir = mkdtempSync(join(tmpdir(), "paysys-write-"));
    try {
      const file = join(dir, "store.json");
      writeWhole(file, "old", false);
      expect(() =>
        writeWhole(file, "new", true, false, () => {
          throw new Error("the lock was lost");
        }),
      ).toThrow("the lock was lost");
      // A folder where the file should be: the rename fails (EISDIR), as a full or failing disk would.
      const blocked = join(dir, "blocked");
      mkdirSync(join(blocked, "inside"), { recursive: true });
      expect(() => writeWhole(blocked, "new", true)).toThrow();
      expect(readFileSync(file, "utf8")).toBe("old");
      expect(readdirSync(dir).sort()).toEqual(["blocked", "store.json"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
