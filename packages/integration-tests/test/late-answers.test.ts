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
// A second probe the same day:
// - The window a late check is judged by was read after its answer, from a table that forgets ended
//   windows once it holds 256: other calls cut off meanwhile made the late "not there" final.
// - A 499 opened a window yet still counted as the service's refusal: a cash-out it stored was
//   settled "refused", and a receipt or payment it applied was "disputed".
// - A person's `journal.settle(key, false)` was accepted while this process's call of the key was
//   still in flight; the call then ended unknown, and the key went out again.
// The sandbox's `{ after: true, fault: { kind: "delay" } }` reads the service's state first, then
// holds the answer.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCashoutClient } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { AnswerLostError, createFiscalClient, type FiscalClient, NotAppliedError, type OutcomeUnknownError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";

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
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cashout = () => createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), landingMs: 200 });

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

  it("the same when other calls of the program, cut off meanwhile, made it forget ended windows", async () => {
    // Over 256 windows of 60 s (cash-outs cut off by a 503), then one more cut-off call after this
    // payment's window ended and before its check's answer came: the table forgets ended windows.
    const cash = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), landingMs: 60_000 });
    await cash.requests.create({ amount: 1 }); // signed in
    const cutOff = (n: number) => {
      sb.faults.add({ path: "/cashout/cash-out-request", times: n, fault: { kind: "status", status: 503, body: "upstream unavailable", contentType: "text/plain" } });
      return Promise.all(Array.from({ length: n }, (_, i) => cash.requests.create({ amount: 1 + i }).then(() => "sent", nameOf)));
    };
    expect(new Set(await cutOff(257))).toEqual(new Set(["OutcomeUnknownError"]));
    const client = shop();
    slowCheck(700);
    const params = { amount: 1_000, orderId: "late-check-forgotten", demo: true };
    const started = Date.now();
    const call = client.payments.create(params, { timeoutMs: 300 }).catch((e: unknown) => e);
    await pause(1_500 - (Date.now() - started));
    await cutOff(1);
    expect(nameOf(await call)).toBe("AnswerLostError");
    expect((await client.journal.get({ operation: "payments.create", key: params.orderId }))?.state).toBe("applied");
    await expect(client.payments.create(params)).rejects.toBeInstanceOf(AnswerLostError);
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

describe("a 408 or a 499 after the service applied the request: may have landed, never the service's refusal", () => {
  const gatewayAnswer = (status: number) => ({ kind: "status" as const, status, body: "client closed request", contentType: "text/plain" });
  for (const status of [408, 499]) {
    it(`(${status}) a cash-out it stored: unknown, not spent as "refused"`, async () => {
      const cash = cashout();
      await cash.requests.create({ amount: 1 }); // signed in
      const storedBefore = sb.cashout.stats.stored;
      sb.faults.add({ path: "/cashout/cash-out-request", after: true, fault: gatewayAnswer(status) });
      const key = `late-cashout-${status}`;
      const error = await cash.requests.create({ amount: 5_000, account: "77771112233" }, { idempotencyKey: key }).catch((e: unknown) => e);
      expect(nameOf(error)).toBe("OutcomeUnknownError");
      expect((await cash.journal.get({ operation: "requests.create", key }))?.state).toBe("pending");
      expect(sb.cashout.stats.stored - storedBefore).toBe(1);
    });
  }

  for (const [status, register] of [
    [408, 103],
    [499, 106],
  ] as const) {
    it(`(${status}) a receipt it registered: AnswerLostError, and the register goes on`, async () => {
      const fiscal = till(200);
      await fiscal.shifts.open({ IdKkm: register });
      sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, after: true, fault: gatewayAnswer(status) });
      const key = `late-sale-${status}`;
      await expect(fiscal.operations.sale(receipt(register, "first"), { idempotencyKey: key })).rejects.toBeInstanceOf(AnswerLostError);
      expect((await fiscal.journal.get({ operation: "operations.sale", key }))?.state).toBe("applied");
      await expect(fiscal.operations.sale(receipt(register, "next"))).resolves.toBeDefined();
    });
  }

  for (const status of [408, 499]) {
    it(`(${status}) a payment it created: AnswerLostError, not "disputed"`, async () => {
      const client = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), landingMs: 200 });
      sb.faults.add({ path: "/ecommerce/payment/create", after: true, fault: gatewayAnswer(status) });
      const orderId = `late-payment-${status}`;
      await expect(client.payments.create({ amount: 1_000, orderId, demo: true })).rejects.toBeInstanceOf(AnswerLostError);
      expect((await client.journal.get({ operation: "payments.create", key: orderId }))?.state).toBe("applied");
    });
  }
});

describe("a person's 'not applied' while this process's call of the key is in flight", () => {
  it("a cash-out: refused; the call ends unknown, and the key is stored once", async () => {
    const cash = cashout();
    await cash.requests.create({ amount: 1 }); // signed in
    const storedBefore = sb.cashout.stats.stored;
    sb.faults.add({ path: "/cashout/cash-out-request", fault: { kind: "delay", ms: 1_500 } }); // stored even though the caller has gone
    const key = "in-flight-cashout";
    const body = { amount: 70_000, account: "77771112233", reference: "in-flight-1" };
    const call = cash.requests.create(body, { idempotencyKey: key, timeoutMs: 1_000 }).catch((e: unknown) => e);
    await pause(300);
    expect((await cash.journal.pending()).map((p) => p.key)).toContain(key); // what an operator's dashboard lists
    await expect(cash.journal.settle({ operation: "requests.create", key }, false)).rejects.toThrow(/being sent or checked by a call of this process/);
    expect(nameOf(await call)).toBe("OutcomeUnknownError");
    await pause(1_000); // stored by now
    await expect(cash.requests.create(body, { idempotencyKey: key })).rejects.toBeInstanceOf(Error);
    expect(sb.cashout.stats.stored - storedBefore).toBe(1);
  });

  it("a payment: refused; its key is sent once", async () => {
    const client = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), landingMs: 300 });
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 1_500 } });
    const orderId = "in-flight-payment";
    const call = client.payments.create({ amount: 1_000, orderId, demo: true }, { timeoutMs: 1_000 }).catch((e: unknown) => e);
    await pause(300);
    await expect(client.journal.settle({ operation: "payments.create", key: orderId }, false)).rejects.toThrow(/being sent or checked/);
    await call;
    await pause(1_000);
    await client.payments.create({ amount: 1_000, orderId, demo: true }).catch(() => {});
    expect(creates()).toBe(1);
  });
});
