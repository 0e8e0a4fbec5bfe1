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
import type { Store } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { PostgresStore } from "@paysys/store-postgres";
import { RedisStore } from "@paysys/store-redis";
import pg from "pg";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";
import { useSandboxAndServers } from "./fleet/kinds.js";

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
      await pause(100);
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
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let late: Promise<unknown> | undefined;
      const store = new Proxy(real, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (prop !== "settleThenBegin" && prop !== "beginIntent") return typeof value === "function" ? value.bind(target) : value;
          return (...args: [never, never, never]) => {
            const entry = (prop === "settleThenBegin" ? args[1] : args[0]) as { key: string };
            if (!entry.key.endsWith("-r2") || late) return value.apply(target, args);
            late = released.then(() => value.apply(target, args)).catch((e: Error) => e);
            return pause(400).then(() => Promise.reject(new Error("read timeout")));
          };
        },
      });
      const till = tillOn(store, `till-held-${kind}`);
      try {
        await openShift(till, idKkm, `held-${kind}`);
        const r2 = await errorOf(till.operations.sale(receipt(idKkm, `held-${kind}-r2`), { idempotencyKey: `held-${kind}-r2` }));
        expect(r2?.name).toBe("StoreUnavailableError");
        await errorOf(till.operations.sale(receipt(idKkm, `held-${kind}-r3`), { idempotencyKey: `held-${kind}-r3` }));
        release();
        const outcome = await late;
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
});
