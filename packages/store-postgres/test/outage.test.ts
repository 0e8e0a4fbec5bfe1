// The database goes away: every store call fails with StoreUnavailableError within its bound, a
// till gets a typed error before anything is sent, and after the database comes back the receipt
// that was under way is resolved as after a crash and registered exactly once. Judged by the
// sandbox's own records. Also: a server that accepts connections but never answers, and no
// password in any message.
import { createServer, type Server, type Socket } from "node:net";
import { ConfigurationError, StoreUnavailableError } from "@paysys/core";
import { AnswerLostError, createFiscalClient } from "@paysys/fiscal";
import { defaultFiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate, PostgresStore } from "../src/index.js";
import { startDatabase, type TestDatabase } from "./database.js";

const TIMEOUT_MS = 800;
/** What a failing call may take beyond its timeout on a loaded 2-core machine. */
const SLACK_MS = 700;
const REGISTER = 105;
const credentials = { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password };

let db: TestDatabase;
let sb: Sandbox;
beforeAll(async () => {
  [db, sb] = await Promise.all([startDatabase(), startSandbox()]);
  await migrate(db.pool());
});
afterAll(async () => {
  await sb.close();
  await db.close();
});

/** How long the call took to fail, and with what. */
async function failure(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: performance.now() - started };
}

const fence = { name: "fiscal/1", holder: "till", value: 1 };
const entry = { key: "k", operation: "op", hash: "h", holder: { id: "till" }, startedAt: 1, sendBy: 2, state: "pending" as const };
const everyMethod = (store: PostgresStore): Record<string, () => Promise<unknown>> => ({
  get: async () => store.get("k"),
  set: async () => store.set("k", "v"),
  "set (fenced)": async () => store.set("k", "v", fence),
  update: () => store.update("k", () => "v"),
  acquireLease: () => store.acquireLease("fiscal/1", { id: "till" }, 1000),
  renewLease: () => store.renewLease(fence, 1000),
  releaseLease: () => store.releaseLease(fence),
  beginIntent: () => store.beginIntent(entry),
  settleIntent: () => store.settleIntent("k", { state: "applied", settledAt: 1 }),
  getIntent: () => store.getIntent("k"),
  pendingIntents: () => store.pendingIntents(""),
  claim: () => store.claim("e", 1000, "delivery"),
  complete: () => store.complete("e"),
  release: () => store.release("e", "delivery"),
  orderStatus: () => store.orderStatus("o"),
  recordOrderStatus: () => store.recordOrderStatus("o", 1, undefined),
  prune: () => store.prune(),
});

describe("the database stops", () => {
  it("every method throws StoreUnavailableError naming what it did, within timeoutMs, and works again once it is back", async () => {
    const store = new PostgresStore(db.pool(), { timeoutMs: TIMEOUT_MS });
    await store.get("warm-up"); // a pooled connection that the stop will break
    await db.server.halt();
    try {
      for (const [method, call] of Object.entries(everyMethod(store))) {
        const { error, ms } = await failure(call);
        expect(error, method).toBeInstanceOf(StoreUnavailableError);
        expect((error as StoreUnavailableError).store, method).toBe(store.target);
        expect((error as Error).message, method).toMatch(/^@paysys\/store-postgres could not [a-z' ]+ on postgres:\/\/paysys@127\.0\.0\.1:\d+\/postgres: /);
        expect(ms, method).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      }
    } finally {
      await db.server.resume();
    }
    await store.set("after", "v");
    expect(await store.get("after")).toBe("v");
  });

  it("a till gets a typed error before anything is sent; back up, the receipt under way when it stopped is resolved and registered once", async () => {
    const pool = db.pool();
    const till = (holder = "till-pg") =>
      createFiscalClient({ baseUrl: sb.fiscalUrl, credentials, store: new PostgresStore(pool, { timeoutMs: TIMEOUT_MS }), holder, lease: { lingerMs: 0 } });
    const receipt = (Name: string) => ({ idKkm: REGISTER, IdDomain: 1, Positions: [{ Name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });
    const sales = () => sb.faults.count(`/fiscal/kkms/${REGISTER}/sales`);
    const registered = (name: string) => sb.fiscal.documents(REGISTER).filter((d) => d.names.includes(name)).length;

    const first = till();
    await first.shifts.open({ IdKkm: REGISTER });
    await first.operations.sale(receipt("before"), { idempotencyKey: "before" });

    // 1. The database is down before the receipt: nothing reaches the service.
    await db.server.halt();
    const sentBefore = sales();
    const { error, ms } = await failure(() => first.operations.sale(receipt("while-down"), { idempotencyKey: "while-down" }));
    await db.server.resume();
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ms).toBeLessThan(2 * (TIMEOUT_MS + SLACK_MS));
    expect(sales()).toBe(sentBefore);
    expect(registered("while-down")).toBe(0);

    // 2. The database stops while the receipt is at the service: the service registers it and the
    // till gets its answer, but cannot record the outcome: the intent stays pending in the journal.
    sb.faults.add({ path: `/fiscal/kkms/${REGISTER}/sales`, fault: { kind: "delay", ms: 1500 } });
    const underWay = first.operations.sale(receipt("under-way"), { idempotencyKey: "under-way" });
    await expect.poll(sales, { interval: 10 }).toBe(sentBefore + 1);
    await db.server.halt();
    expect((await underWay).IdDocument).toEqual(expect.any(Number));
    expect(registered("under-way")).toBe(1);
    await db.server.resume();
    expect((await first.journal.pending()).map((r) => [r.key, r.state])).toEqual([["under-way", "pending"]]);

    // 3. Back up: the till restarts with its README's recipe, learns the receipt was registered,
    // and sending it again under its key registers nothing more.
    await first.close();
    const restarted = till();
    expect(await restarted.journal.recover()).toEqual([{ operation: "operations.sale", key: "under-way", state: "applied" }]);
    await expect(restarted.operations.sale(receipt("under-way"), { idempotencyKey: "under-way" })).rejects.toBeInstanceOf(AnswerLostError);
    await restarted.operations.sale(receipt("while-down"), { idempotencyKey: "while-down" });
    expect([registered("before"), registered("under-way"), registered("while-down")]).toEqual([1, 1, 1]);
    expect(await restarted.journal.pending()).toEqual([]);
    await restarted.close();
  });
});

describe("a server that accepts connections and never answers", () => {
  let silent: Server;
  const sockets = new Set<Socket>();
  let port = 0;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    // The pool's connections wait for the server's first byte: ended with their sockets, the pools can end.
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await Promise.all(pools.map((p) => p.end()));
  });

  it("every call fails within timeoutMs, and no message carries the password", async () => {
    const password = "s3cret-Pa55/word";
    const pool = new pg.Pool({ connectionString: `postgres://till:${encodeURIComponent(password)}@127.0.0.1:${port}/payments?sslpassword=${password}` });
    pools.push(pool);
    const store = new PostgresStore(pool, { timeoutMs: TIMEOUT_MS });
    for (const [method, call] of Object.entries(everyMethod(store))) {
      const { error, ms } = await failure(call);
      expect(error, method).toBeInstanceOf(StoreUnavailableError);
      expect(ms, method).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      const shown = `${(error as Error).message} ${JSON.stringify(error)} ${(error as StoreUnavailableError).store}`;
      expect(shown, method).not.toContain("s3cret");
      expect(shown, method).not.toContain(encodeURIComponent(password));
      expect(shown, method).toContain(`postgres://till@127.0.0.1:${port}/payments`);
    }
  });

  it("a refused connection with the password in the pool's options: the message names the server, not the password", async () => {
    const pool = new pg.Pool({ host: "127.0.0.1", port: 1, user: "till", password: "hunter2-secret", database: "payments" });
    const error = await new PostgresStore(pool, { timeoutMs: TIMEOUT_MS }).get("k").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(/could not read a value on postgres:\/\/till@127\.0\.0\.1:1\/payments: .*ECONNREFUSED/);
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain("hunter2");
    await pool.end();
  });

  it.each(["#k3y-Zq81-secret", "pzp@zzq#w0rdq", "qxq/zkz@vwv?jyj#uvu"])(
    "a password with a # / or ? written unencoded in the connection string (%s): a ConfigurationError at once that shows no part of it",
    async (password) => {
      const pool = new pg.Pool({ connectionString: `postgres://till:${password}@127.0.0.1:1/payments` });
      const error = (() => {
        try {
          return new PostgresStore(pool, { timeoutMs: TIMEOUT_MS });
        } catch (e) {
          return e;
        }
      })();
      await pool.end();
      expect(error).toBeInstanceOf(ConfigurationError);
      // pg would read what follows the # as no password (WHATWG URL's fragment): a part of it became the host, or the fragment, shown whole.
      for (const part of password.split(/[#@/?]/).filter((p) => p.length > 2)) expect((error as Error).message).not.toContain(part);
      expect((error as Error).message).toContain("percent-encode it");
    },
  );

  it("a password with an @ written unencoded: the server named, the password in no part of the message", async () => {
    const pool = new pg.Pool({ connectionString: "postgres://till:p@ssw0rd-x@127.0.0.1:1/payments", connectionTimeoutMillis: 500 });
    const store = new PostgresStore(pool, { timeoutMs: TIMEOUT_MS });
    const error = await store.get("k").catch((e: unknown) => e);
    await pool.end();
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(store.target).toBe("postgres://till@127.0.0.1:1/payments");
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain("ssw0rd");
  });
});
