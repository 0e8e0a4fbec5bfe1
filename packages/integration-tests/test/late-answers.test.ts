// Timing lies a hostile probe found (2026-11-27), each one ending in a payment or a receipt sent
// twice under one key, or believed not applied when it was:
// - A check asked while the request could still land, and answered after its window ended (a slow
//   network on the way back), was taken as final. Its "not done" describes the moment it was read:
//   it is final only when asked after the window; one answered late is asked again.
// - A request that started late under its intent (its first attempt refused for an expired token, a
//   slow sign-in, then sent again) had almost no window left after its timeout: an intent's window
//   now allows its start to be late (START_WITHIN_MS) and still gives `landingMs` after the cut.
// - `landingMs: Infinity` was accepted (stored as `null`, read by others as "window passed"), and
//   `landingMs: 0` refused nearly every money call, as it also bounded how late a request may start.
// The sandbox's `{ after: true, fault: { kind: "delay" } }` reads the service's state first, then
// holds the answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "@paysys/core";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { AnswerLostError, createFiscalClient, type FiscalClient, NotAppliedError, type OutcomeUnknownError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());
const tills: FiscalClient[] = [];
afterAll(() => Promise.all(tills.map((t) => t.close())));
const till = (landingMs: number) => {
  const client = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), landingMs });
  tills.push(client);
  return client;
};
const creates = () => sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length;
const receipt = (idKkm: number, Name: string) => ({ idKkm, IdDomain: 1, Positions: [{ Name, IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" });
const nameOf = (e: unknown) => (e instanceof Error ? e.name : "no error");

describe("a check asked while the request could still land, answered after its window ended", () => {
  // Taken to land within 1 s of the cut; created 400 ms after it; the check is read at once (not
  // there yet) and its answer comes back 1.5 s later, inside its own timeout.
  const slowCheck = (createMs: number) => {
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: createMs } });
    sb.faults.add({ path: "/ecommerce/payment/status", after: true, fault: { kind: "delay", ms: 1_500 } });
  };
  const shop = () => createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), landingMs: 1_000 });

  it("a payment that timed out: not taken for 'not applied'; asked again, it was created, and its key is never sent again", async () => {
    const client = shop();
    slowCheck(700);
    const params = { amount: 1_000, orderId: "late-check-timeout", demo: true };
    const error = await client.payments.create(params, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(sb.ecommerce.transactionOf(merchant.merchantId, params.orderId)).toBeDefined();
    expect(error).toBeInstanceOf(AnswerLostError); // applied, its answer lost
    expect((await client.journal.get({ operation: "payments.create", key: params.orderId }))?.state).toBe("applied");
    await expect(client.payments.create(params)).rejects.toBeInstanceOf(AnswerLostError);
    expect(creates()).toBe(1);
  });

  it("a payment its caller aborted: the same", async () => {
    const client = shop();
    slowCheck(600);
    const params = { amount: 1_000, orderId: "late-check-abort", demo: true };
    const error = await client.payments.create(params, { signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    expect(sb.ecommerce.transactionOf(merchant.merchantId, params.orderId)).toBeDefined();
    expect(error).not.toBeInstanceOf(NotAppliedError);
    expect(nameOf(error)).toBe("AnswerLostError");
    expect(creates()).toBe(1);
  });

  it("wasApplied(), its check asked during the window and answered after it: true", async () => {
    const client = shop();
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 900 } });
    sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "delay", ms: 0 } }); // the call's own check: at once ("not yet")
    sb.faults.add({ path: "/ecommerce/payment/status", after: true, fault: { kind: "delay", ms: 1_500 } }); // wasApplied's: late
    const params = { amount: 1_000, orderId: "late-check-was-applied", demo: true };
    const error = (await client.payments.create(params, { timeoutMs: 300 }).catch((e: unknown) => e)) as OutcomeUnknownError;
    expect(nameOf(error)).toBe("OutcomeUnknownError");
    expect(await error.wasApplied!()).toBe(true);
    expect(creates()).toBe(1);
  });

  it("a receipt, the chain read inside the window and answered after it: registered once, never taken for 'not applied'", async () => {
    const register = 104;
    const fiscal = till(1_000);
    await fiscal.shifts.open({ IdKkm: register });
    const before = sb.fiscal.documents(register).length;
    sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 700 } });
    sb.faults.add({ path: `/fiscal/uid/${register}`, after: true, fault: { kind: "delay", ms: 1_500 } });
    const error = await fiscal.operations.sale(receipt(register, "late check"), { idempotencyKey: "late-check-1", timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerLostError);
    await expect(fiscal.operations.sale(receipt(register, "late check"), { idempotencyKey: "late-check-1" })).rejects.toBeInstanceOf(AnswerLostError);
    expect(sb.fiscal.documents(register).length - before).toBe(1);
  });
});

describe("a request that starts late under its intent, then times out", () => {
  it("still has its whole landingMs after the cut: the receipt that lands 1.5 s after it is found, and registered once", async () => {
    const register = 105;
    const fiscal = till(2_000); // taken to land within 2 s of the cut
    await fiscal.shifts.open({ IdKkm: register });
    const before = sb.fiscal.documents(register).length;
    sb.fiscal.expireTokens(); // the service refuses the client's token, which it still believes fresh
    sb.faults.add({ path: "/fiscal/auth", fault: { kind: "delay", ms: 1_700 } }); // signing in again is slow
    sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 0 } }); // the first attempt: 401 at once
    sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 2_500 } }); // sent again: registered 1.5 s after its 1 s timeout
    const error = (await fiscal.operations.sale(receipt(register, "late"), { idempotencyKey: "late-start-1", timeoutMs: 1_000 }).catch((e: unknown) => e)) as OutcomeUnknownError;
    expect(nameOf(error)).toBe("OutcomeUnknownError");
    expect(await error.wasApplied!()).toBe(true);
    await expect(fiscal.operations.sale(receipt(register, "late"), { idempotencyKey: "late-start-1" })).rejects.toBeInstanceOf(AnswerLostError);
    expect(sb.fiscal.documents(register).length - before).toBe(1);
  });
});

describe("the landingMs option at its edges", () => {
  it("refuses what is not a finite number of ms from 0 to 2^31-1 (Infinity would be stored as null)", () => {
    const make = (landingMs: number) => () => createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), landingMs });
    for (const bad of [Number.NaN, -1, Number.POSITIVE_INFINITY, 2 ** 31]) expect(make(bad), String(bad)).toThrow(/landingMs/);
    expect(make(0)).not.toThrow();
  });

  it("0 is usable: it no longer bounds how late a request may start (a file store's write, a renewed token)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "landing-zero-"));
    try {
      const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new FileStore(join(dir, "store.json")), landingMs: 0 });
      const outcomes: string[] = [];
      for (let i = 0; i < 10; i++) outcomes.push(await shop.payments.create({ amount: 1_000, orderId: `landing-zero-${i}`, demo: true }).then(() => "created", nameOf));
      expect(outcomes).toEqual(Array(10).fill("created"));
      const fiscal = till(0);
      await fiscal.shifts.open({ IdKkm: 107 });
      sb.fiscal.expireTokens(); // the sale waits for a sign-in first
      await expect(fiscal.operations.sale(receipt(107, "zero"))).resolves.toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
