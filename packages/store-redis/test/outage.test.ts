// Redis going away is never a silent risk: with the server halted every method fails with
// StoreUnavailableError within its timeout, a till refuses a receipt before anything is sent, and
// after the server comes back (same data: the append-only file) the till's restart recipe resolves
// what was under way, and every receipt is registered exactly once.
import { StoreUnavailableError } from "@paysys/core";
import { AnswerLostError, createFiscalClient, type FiscalClient } from "@paysys/fiscal";
import { defaultFiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { redisForTests } from "./redis.js";

const TIMEOUT_MS = 400;
/** What a failing call may take beyond its timeout on a busy 2-core machine. */
const SLACK_MS = 600;
const REGISTER = 101;
const credentials = { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password };
const receipt = (name: string) => ({ idKkm: REGISTER, IdDomain: 1, Positions: [{ Name: name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });
const SALES = `/fiscal/kkms/${REGISTER}/sales`;

let redis: Awaited<ReturnType<typeof redisForTests>>;
let sb: Sandbox;
beforeAll(async () => {
  redis = await redisForTests();
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
  await redis.close();
});

/** How many receipts named `name` the sandbox registered on the register. */
const registered = (name: string) => sb.fiscal.documents(REGISTER).filter((d) => d.names.includes(name)).length;

/** A till as the fiscal README's restart recipe starts one: its own client on the shared store, the same holder name every time. */
async function till(): Promise<{ fiscal: FiscalClient; store: RedisStore }> {
  const store = new RedisStore(await redis.client(), { timeoutMs: TIMEOUT_MS });
  return { fiscal: createFiscalClient({ baseUrl: sb.fiscalUrl, credentials, store, holder: "till-redis", lease: { lingerMs: 0 } }), store };
}

describe("the Redis server halted, then resumed", () => {
  it("every method fails with StoreUnavailableError within its timeout; a till sends nothing; after resuming, each receipt is registered exactly once", async () => {
    const first = await till();
    await first.fiscal.shifts.open({ IdKkm: REGISTER });
    const lease = await first.store.acquireLease("outage/lease", { id: "till-redis" }, 60_000);
    expect(lease).toBeDefined();

    // A receipt under way when the server goes: the sandbox holds it while the server halts.
    sb.faults.add({ path: new RegExp(`${SALES}$`), fault: { kind: "delay", ms: 1500 } });
    const reached = sb.faults.count(SALES);
    const underWay = first.fiscal.operations.sale(receipt("under-way"), { idempotencyKey: "under-way" });
    while (sb.faults.count(SALES) === reached) await new Promise((r) => setTimeout(r, 10));
    await redis.server.halt();
    // Registered: the till gets its receipt (an error would invite sending it again), while its
    // outcome could not be written and its intent stays pending in the store.
    expect((await underWay).IdDocument).toBeGreaterThan(0);
    expect(registered("under-way")).toBe(1);

    const { store } = first;
    const entry = { key: "outage/k", operation: "t.op", hash: "h", holder: { id: "till-redis" }, startedAt: Date.now(), sendBy: Date.now() + 1000, state: "pending" as const };
    const calls: Record<string, () => Promise<unknown>> = {
      get: async () => store.get("outage/chain"),
      set: async () => store.set("outage/chain", "uid"),
      update: () => store.update("outage/token", () => "t"),
      acquireLease: () => store.acquireLease("outage/other", { id: "till-redis" }, 1000),
      renewLease: () => store.renewLease(lease!, 1000),
      releaseLease: () => store.releaseLease(lease!),
      beginIntent: () => store.beginIntent(entry),
      settleIntent: () => store.settleIntent(entry.key, { state: "applied", settledAt: Date.now() }),
      getIntent: () => store.getIntent(entry.key),
      pendingIntents: () => store.pendingIntents(""),
      claim: () => store.claim("outage/event", 1000, "delivery"),
      complete: () => store.complete("outage/event"),
      release: () => store.release("outage/event", "delivery"),
      orderStatus: () => store.orderStatus("outage/order"),
      recordOrderStatus: () => store.recordOrderStatus("outage/order", 1, undefined),
    };
    for (const [method, call] of Object.entries(calls)) {
      const started = performance.now();
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      const tookMs = performance.now() - started;
      expect(error, method).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).message, method).toContain(method);
      expect((error as StoreUnavailableError).store, method).toBe(`${redis.server.url} (prefix paysys:)`);
      expect(tookMs, method).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    }

    // A new receipt while the store is away: a typed error, and nothing reaches the service.
    const before = sb.faults.count(SALES);
    const refused = await first.fiscal.operations.sale(receipt("while-away"), { idempotencyKey: "while-away" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect(sb.faults.count(SALES)).toBe(before);
    expect(registered("while-away")).toBe(0);
    await first.fiscal.close().catch(() => {});

    // The server comes back with its data; the till restarts with the recipe.
    await redis.server.resume();
    const second = await till();
    const recovered = await second.fiscal.journal.recover();
    expect(recovered).toEqual([expect.objectContaining({ key: "under-way", state: "applied" })]);
    expect(await second.store.pendingIntents("")).toEqual([]);
    const again = await second.fiscal.operations.sale(receipt("under-way"), { idempotencyKey: "under-way" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(AnswerLostError); // registered before; never sent again
    const sent = await second.fiscal.operations.sale(receipt("while-away"), { idempotencyKey: "while-away" });
    expect(sent.IdDocument).toBeGreaterThan(0);
    expect({ underWay: registered("under-way"), whileAway: registered("while-away") }).toEqual({ underWay: 1, whileAway: 1 });
    await second.fiscal.close();
  });
});
