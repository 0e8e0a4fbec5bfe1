// A store write the client gave up on that lands later (a review's probe, 2026-11-27). A receipt's
// intent is written before it is sent; when that write does not answer in time the caller is told
// "nothing was sent". But the write may still be at the server: a PostgreSQL statement waiting for a
// lock another session holds commits once it gets it, a Redis script queued behind a paused server
// runs once it resumes. If the register's next receipt was sent meanwhile, the late intent reads as
// applied (the chain moved past it) though it was never registered: money believed moved that was not.
//
// The client now gives its lease up after any intent write it cannot vouch for, and takes it again
// (raising the fence) before anything else goes out on the register: the late write is either in the
// store before the take lists the register's intents, or is refused by its stale fence.
//
// A second review found the two edges of that promise, both below: PostgreSQL takes that waited
// behind the late write were left waiting on the server (each call on the register one more
// backend, until the database's connections ran out), and a FileStore took its lock over from a
// live process frozen inside it, whose write then landed after another holder took the register.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCashoutClient } from "@paysys/cashout";
import type { Store } from "@paysys/core";
import { FileStore } from "@paysys/core/node";
import { createFiscalClient } from "@paysys/fiscal";
import { PostgresStore } from "@paysys/store-postgres";
import { RedisStore } from "@paysys/store-redis";
import pg from "pg";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials } from "./credentials.js";
import { useSandboxAndServers } from "./fleet/kinds.js";
import { startWorker } from "./workers.js";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const env = useSandboxAndServers();

const url = (kind: "postgres" | "redis") => env.servers.config(kind).url as string;
const receipt = (idKkm: number, Name: string) => ({ idKkm, IdDomain: 1, Positions: [{ Name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });
const registered = (idKkm: number, name: string) => env.sb.fiscal.documents(idKkm).filter((d) => d.names.includes(name)).length;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: Error) => e,
  );

type Till = ReturnType<typeof createFiscalClient>;
/** A till whose store gives up after 400 ms (its own timeout), and whose requests wait 5 s. */
const tillOn = (store: Store, holder: string): Till => createFiscalClient({ baseUrl: env.sb.fiscalUrl, credentials: fiscalCredentials, store, holder, timeoutMs: 5_000 });

/**
 * What every case ends with: after the late write, the register's intents are resolved and R2 is
 * sent again under its key. R2 is then registered exactly once and its journal entry says applied;
 * R3 is registered at most once, and applied exactly when it was.
 */
async function expectEachOnce(till: Till, idKkm: number, tag: string) {
  await till.journal.recover();
  await till.operations.sale(receipt(idKkm, `${tag}-r2`), { idempotencyKey: `${tag}-r2` });
  const r2 = await till.journal.get({ operation: "operations.sale", key: `${tag}-r2` });
  const r3 = await till.journal.get({ operation: "operations.sale", key: `${tag}-r3` });
  expect({ r2: registered(idKkm, `${tag}-r2`), journal: r2?.state }).toEqual({ r2: 1, journal: "applied" });
  expect(registered(idKkm, `${tag}-r3`)).toBe(r3?.state === "applied" ? 1 : 0);
}

/**
 * `real` with the first intent write of a key ending `ending` held in the client: the call is told
 * "read timeout" after 400 ms, and the write runs as it was sent once `release()` is called (`late`
 * then answers its outcome, or its error).
 */
function holdingWrite(real: Store, ending: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let late: Promise<unknown> | undefined;
  const store = new Proxy(real, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "settleThenBegin" && prop !== "beginIntent") return typeof value === "function" ? value.bind(target) : value;
      return (...args: [never, never, never]) => {
        const entry = (prop === "settleThenBegin" ? args[1] : args[0]) as { key: string };
        if (!entry.key.endsWith(ending) || late) return value.apply(target, args);
        late = released.then(() => value.apply(target, args)).catch((e: Error) => e);
        return pause(400).then(() => Promise.reject(new Error("read timeout")));
      };
    },
  });
  return { store, release: () => release(), late: () => late };
}

async function openShift(till: Till, idKkm: number, tag: string) {
  await till.shifts.open({ IdKkm: idKkm });
  await till.operations.sale(receipt(idKkm, `${tag}-r1`), { idempotencyKey: `${tag}-r1` });
}

describe("an intent write that lands after its caller was told nothing was sent", () => {
  it("postgres: R2's statement waits on another session's row lock past the store's timeout, and commits after the till went on", async () => {
    const idKkm = 105;
    const pool = new pg.Pool({ connectionString: url("postgres"), max: 4 });
    pool.on("error", () => {});
    const till = tillOn(new PostgresStore(pool, { timeoutMs: 400 }), "till-late-pg");
    const locker = new pg.Client({ connectionString: url("postgres") });
    await locker.connect();
    try {
      await openShift(till, idKkm, "pg");
      // Another session holds the lock R2's insert will wait on: its own uncommitted row of R2's key.
      const { rows } = await locker.query("SELECT key FROM paysys_journal WHERE key LIKE '%/pg-r1' AND scope = $1", [String(idKkm)]);
      const r2key = (rows[0].key as string).replace(/r1$/, "r2");
      await locker.query("BEGIN");
      await locker.query("INSERT INTO paysys_journal (key, scope, state, started_at, intent) VALUES ($1, $2, 'not-applied', 0, '{}')", [r2key, String(idKkm)]);

      const r2 = await errorOf(till.operations.sale(receipt(idKkm, "pg-r2"), { idempotencyKey: "pg-r2" }));
      expect(r2?.name).toBe("StoreUnavailableError");
      expect(registered(idKkm, "pg-r2")).toBe(0);
      // The register's next receipt, while R2's statement still waits: the till takes its lease again
      // first, and that take waits for R2's statement (which holds the lease row), so nothing is sent.
      const r3 = await errorOf(till.operations.sale(receipt(idKkm, "pg-r3"), { idempotencyKey: "pg-r3" }));
      expect(r3?.name).toBe("StoreUnavailableError");

      await locker.query("ROLLBACK"); // R2's abandoned statement gets its lock and commits
      for (let i = 0; i < 50 && (await locker.query("SELECT 1 FROM paysys_journal WHERE key = $1", [r2key])).rowCount === 0; i++) await pause(20);
      await expectEachOnce(till, idKkm, "pg");
    } finally {
      await locker.end();
      await till.close();
      await pool.end();
    }
  }, 60_000);

  it("redis: R2's script is held by a paused server past the store's timeout, and runs when it resumes", async () => {
    const idKkm = 106;
    const client = createClient({ url: url("redis") });
    client.on("error", () => {});
    await client.connect();
    const admin = createClient({ url: url("redis") });
    await admin.connect();
    const till = tillOn(new RedisStore(client, { timeoutMs: 400 }), "till-late-redis");
    try {
      await openShift(till, idKkm, "redis");
      await admin.sendCommand(["CLIENT", "PAUSE", "1500", "WRITE"]);
      const r2 = await errorOf(till.operations.sale(receipt(idKkm, "redis-r2"), { idempotencyKey: "redis-r2" }));
      expect(r2?.name).toBe("StoreUnavailableError");
      // Behind R2's script on the one connection (Redis runs a connection's commands in order), so nothing is sent.
      const r3 = await errorOf(till.operations.sale(receipt(idKkm, "redis-r3"), { idempotencyKey: "redis-r3" }));
      expect(r3?.name).toBe("StoreUnavailableError");
      await admin.sendCommand(["CLIENT", "UNPAUSE"]);
      // Behind R2's and R3's commands on the one connection: once it answers they have run, however
      // busy the machine (a fixed 100 ms was not always enough, and the store's 400 ms timed out).
      await client.sendCommand(["PING"]);
      await expectEachOnce(till, idKkm, "redis");
    } finally {
      await admin.sendCommand(["CLIENT", "UNPAUSE"]).catch(() => {});
      await admin.close();
      await till.close();
      await client.close();
    }
  }, 60_000);

  // Whatever holds a write up (a lock, a slow disk, a queue in a proxy), it is the same write arriving
  // late with the fence it was sent under: here it is held in the client until R3 has been tried.
  for (const kind of ["postgres", "redis"] as const) {
    it(`${kind}: R2's write, held until after R3 was tried, then run as it was sent`, async () => {
      const idKkm = kind === "postgres" ? 107 : 108;
      const pool = new pg.Pool({ connectionString: url("postgres"), max: 4 });
      const client = createClient({ url: url("redis") });
      await client.connect();
      const real = kind === "postgres" ? new PostgresStore(pool, { timeoutMs: 400 }) : new RedisStore(client, { timeoutMs: 400 });
      const held = holdingWrite(real, "-r2");
      const till = tillOn(held.store, `till-held-${kind}`);
      try {
        await openShift(till, idKkm, `held-${kind}`);
        const r2 = await errorOf(till.operations.sale(receipt(idKkm, `held-${kind}-r2`), { idempotencyKey: `held-${kind}-r2` }));
        expect(r2?.name).toBe("StoreUnavailableError");
        await errorOf(till.operations.sale(receipt(idKkm, `held-${kind}-r3`), { idempotencyKey: `held-${kind}-r3` }));
        held.release();
        const outcome = await held.late();
        // Refused by its stale fence: the till took the register's lease again before R3.
        expect((outcome as Error | undefined)?.name).toBe("LeaseLostError");
        await expectEachOnce(till, idKkm, `held-${kind}`);
      } finally {
        await till.close();
        await client.close();
        await pool.end();
      }
    }, 60_000);
  }

  it("postgres: the takes that wait behind the late write leave no backend waiting on the server, and the till's other registers go on", async () => {
    // The till's own role, limited to 8 connections: the database's max_connections, reached sooner.
    const admin = new pg.Client({ connectionString: url("postgres") });
    await admin.connect();
    const role = `till_pile_${Math.random().toString(36).slice(2, 8)}`;
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'pile' CONNECTION LIMIT 8`);
    await admin.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
    const own = new URL(url("postgres"));
    own.username = role;
    own.password = "pile";
    const pool = new pg.Pool({ connectionString: own.toString(), max: 4 });
    pool.on("error", () => {});
    const till = tillOn(new PostgresStore(pool, { timeoutMs: 400 }), "till-pile");
    const locker = new pg.Client({ connectionString: url("postgres") });
    await locker.connect();
    const waiting = async () => Number((await admin.query("SELECT count(*) AS n FROM pg_stat_activity WHERE usename = $1 AND wait_event_type = 'Lock'", [role])).rows[0].n);
    try {
      for (const idKkm of [109, 110]) await openShift(till, idKkm, `pile-${idKkm}`);
      const { rows } = await locker.query("SELECT key FROM paysys_journal WHERE key LIKE '%/pile-109-r1' AND scope = '109'");
      await locker.query("BEGIN");
      await locker.query("INSERT INTO paysys_journal (key, scope, state, started_at, intent) VALUES ($1, '109', 'not-applied', 0, '{}')", [
        (rows[0].key as string).replace(/r1$/, "r2"),
      ]);
      expect((await errorOf(till.operations.sale(receipt(109, "pile-109-r2"), { idempotencyKey: "pile-109-r2" })))?.name).toBe("StoreUnavailableError");
      // Ten more calls on the register: each takes the lease again, and gives up on the server too.
      for (let i = 3; i < 13; i++) {
        expect((await errorOf(till.operations.sale(receipt(109, `pile-109-r${i}`), { idempotencyKey: `pile-109-r${i}` })))?.name).toBe("StoreUnavailableError");
      }
      expect(await waiting()).toBeLessThanOrEqual(2); // R2's own write, and at most one take on its way out
      await till.operations.sale(receipt(110, "pile-110-r2"), { idempotencyKey: "pile-110-r2" });
      expect(registered(110, "pile-110-r2")).toBe(1);
    } finally {
      await locker.query("ROLLBACK").catch(() => {});
      await locker.end();
      await till.close().catch(() => {});
      await pool.end();
      for (let i = 0; i < 50 && (await waiting()) > 0; i++) await pause(100);
      await admin.end();
    }
  }, 60_000);

  it("file: a till frozen inside the store's lock keeps it; the back office waits, and R2 is judged by what the service has", async () => {
    const idKkm = 101;
    const folder = mkdtempSync(join(tmpdir(), "paysys-frozen-"));
    const path = join(folder, "store.json");
    const cfg = { path, url: env.sb.fiscalUrl, credentials: fiscalCredentials, idKkm, r1: "frozen-r1", r2: "frozen-r2", stallMs: 16_000 };
    const frozen = startWorker(new URL("./fixtures/frozen-till.mjs", import.meta.url), [JSON.stringify(cfg)]);
    const said: Record<string, unknown>[] = [];
    frozen.lines.on("line", (line) => said.push(JSON.parse(line)));
    const until = async (what: string, ms: number) => {
      for (const end = Date.now() + ms; !said.some((line) => what in line); await pause(20)) if (Date.now() > end) throw new Error(`the frozen till never said ${what}`);
    };
    // The back office, on the same machine and the same file, its lock deemed stale after 1 s.
    const office = createFiscalClient({
      baseUrl: env.sb.fiscalUrl,
      credentials: fiscalCredentials,
      store: new FileStore(path, { staleLockMs: 1000, lockTimeoutMs: 60_000 }),
      holder: "backoffice",
      timeoutMs: 2000,
      landingMs: 300,
      lease: { waitMs: 40_000 },
    });
    try {
      await office.shifts.open({ IdKkm: 102 }); // at work on another register first (its store's once-a-minute prune runs then)
      await frozen.ready;
      await until("stalling", 20_000);
      // Before: the lock was taken from the frozen till after 1 s, the register once its lease ran out;
      // nothing was pending yet, R3 went out, and R2's intent landed after it, reading as applied.
      await office.operations.sale(receipt(idKkm, "frozen-r3"), { idempotencyKey: "frozen-r3" });
      await until("r2", 30_000);
      await office.journal.recover();
      const r2 = await office.journal.get({ operation: "operations.sale", key: "frozen-r2" });
      expect({ journal: r2?.state, registered: registered(idKkm, "frozen-r2") }).toEqual({ journal: r2?.state, registered: r2?.state === "applied" ? 1 : 0 });
      expect(registered(idKkm, "frozen-r3")).toBe(1);
    } finally {
      frozen.child.kill("SIGKILL");
      await office.close();
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});

// A withdrawal's outcome nothing can check (x-outcome: none). Its intent's write that lands after the
// caller was told "nothing was sent" used to stay pending in the store: this process settled it when
// it met the key again, but another process, or this one after a restart, found a withdrawal of
// unknown outcome and left it to a person, who could book as paid one that was never submitted.
// The client now settles it "not applied" in the store itself as soon as the store answers again.
describe("a withdrawal's intent that lands late is settled in the store, for every process", () => {
  /** The journal as another process reads it: its own client, holder and connection. */
  const stateSeenElsewhere = async (store: Store, key: string) =>
    (await createCashoutClient({ baseUrl: env.sb.cashoutUrl, credentials: cashoutCredentials, store, holder: "elsewhere" }).journal.get({ operation: "requests.create", key }))
      ?.state;
  /** Polls until the state is no longer `pending` (at most 10 s): the store is asked again 0.25 s, then 1 s, then 4 s after a failed try. */
  const settledElsewhere = async (store: Store, key: string) => {
    let state = await stateSeenElsewhere(store, key);
    for (let i = 0; i < 100 && state !== "not-applied"; i++) {
      await pause(100);
      state = await stateSeenElsewhere(store, key);
    }
    return state;
  };

  // A paused Redis does not show it: the script the client gave up on is withdrawn, never run. A
  // queue between the two (a proxy) can still run it late: here the store's write is held in the client.
  it("redis: the intent's write held past the store's timeout, then run as it was sent", async () => {
    const client = createClient({ url: url("redis") });
    await client.connect();
    const real = new RedisStore(client, { timeoutMs: 400 });
    const held = holdingWrite(real, "/late-redis-2");
    const cashout = createCashoutClient({ baseUrl: env.sb.cashoutUrl, credentials: cashoutCredentials, store: held.store, holder: "cashier-redis" });
    try {
      await cashout.requests.create({ amount: 1 }, { idempotencyKey: "late-redis-1" }); // signed in, the token kept
      const stored = env.sb.cashout.stats.stored;
      const error = await errorOf(cashout.requests.create({ amount: 2 }, { idempotencyKey: "late-redis-2" }));
      expect(error?.name).toBe("StoreUnavailableError");
      held.release();
      expect(await held.late()).toBeUndefined(); // the intent is in the store now, pending
      expect(await settledElsewhere(real, "late-redis-2")).toBe("not-applied");
      expect(env.sb.cashout.stats.stored).toBe(stored); // and it was indeed never sent
    } finally {
      await cashout.close();
      await client.close();
    }
  }, 60_000);

  it("postgres: the intent's statement waits on another session's row lock past the store's timeout, and commits later", async () => {
    const pool = new pg.Pool({ connectionString: url("postgres"), max: 4 });
    pool.on("error", () => {});
    const reader = new pg.Pool({ connectionString: url("postgres"), max: 2 });
    const locker = new pg.Client({ connectionString: url("postgres") });
    await locker.connect();
    const cashout = createCashoutClient({ baseUrl: env.sb.cashoutUrl, credentials: cashoutCredentials, store: new PostgresStore(pool, { timeoutMs: 400 }), holder: "cashier-pg" });
    try {
      await cashout.requests.create({ amount: 1 }, { idempotencyKey: "late-pg-1" });
      const stored = env.sb.cashout.stats.stored;
      const { rows } = await locker.query("SELECT key FROM paysys_journal WHERE key LIKE '%/late-pg-1'");
      await locker.query("BEGIN");
      await locker.query("INSERT INTO paysys_journal (key, state, started_at, intent) VALUES ($1, 'not-applied', 0, '{}')", [(rows[0].key as string).replace(/1$/, "2")]);
      const error = await errorOf(cashout.requests.create({ amount: 2 }, { idempotencyKey: "late-pg-2" }));
      expect(error?.name).toBe("StoreUnavailableError");
      await locker.query("ROLLBACK"); // the abandoned statement gets its lock and commits the intent, pending
      expect(await settledElsewhere(new PostgresStore(reader), "late-pg-2")).toBe("not-applied");
      expect(env.sb.cashout.stats.stored).toBe(stored);
    } finally {
      await locker.end();
      await cashout.close();
      await pool.end();
      await reader.end();
    }
  }, 60_000);
});
