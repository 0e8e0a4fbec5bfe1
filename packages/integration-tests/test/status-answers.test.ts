// A status answer decides a lost call only when it is about what was asked (`x-outcome` identifies):
// an answer about another order or register, or naming none (`{}`, a proxy's placeholder), settles
// nothing; nor does one that lacks the field it is read for. (Before, any 200 settled a lost payment
// as made, another order's status a refund as not done, and a missing status a Z report as not done.)
import { MemoryStore } from "@paysys/core";
import { AnswerLostError, createEcommerceClient, NotFoundError, OutcomeUnknownError } from "@paysys/ecommerce";
import { createFiscalClient, UnexpectedResponseError } from "@paysys/fiscal";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

describe("a status answer about another order decides no lost payment", () => {
  const lies = [
    ["a 200 with {}", "{}"],
    ["another order's transaction", JSON.stringify({ id: "t-other", orderId: "some-other-order", merchantId: merchant.merchantId, amount: 1000, demo: true, status: 1 })],
  ] as const;
  for (const [what, body] of lies) {
    it(`${what}: a create that never reached the gateway is not reported as done`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 200 });
      const orderId = `lie-${Math.random().toString(36).slice(2)}`;
      // The create is cut before the gateway sees it: no payment exists.
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "reset-before-headers" }, times: 1 });
      sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body, contentType: "application/json" }, times: 1_000 });
      const error = await shop.payments.create({ amount: 1_000, orderId }).catch((e: unknown) => e);
      sb.faults.clear();
      const exists = await shop.payments.status({ orderid: orderId }).then(
        () => true,
        (e: unknown) => (e instanceof NotFoundError ? false : e),
      );
      const record = await shop.journal.get({ operation: "payments.create", key: orderId });
      expect(exists).toBe(false);
      expect(sb.ecommerce.transactionOf(merchant.merchantId, orderId)).toBeUndefined();
      // Neither made nor refused: unknown, and the key stays pending (never spent on another's word).
      expect({ error: (error as Error).name, journal: record?.state }).toEqual({ error: "OutcomeUnknownError", journal: "pending" });
      expect(error).not.toBeInstanceOf(AnswerLostError);
    });
  }
});

describe("a status answer about another order decides no lost cancellation", () => {
  it("another order's transaction (status 1): a refund that took effect is not reported as not applied", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 200 });
    const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" };
    const orderId = `cancel-${Math.random().toString(36).slice(2)}`;
    await shop.payments.create({ amount: 1_000, orderId, customerData: { cardData: card } });
    // The gateway cancels (refunds) it, then a gateway error takes the answer's place.
    sb.faults.add({ path: "/ecommerce/payment/kill", fault: { kind: "status", status: 502, body: "{}" }, after: true, times: 1 });
    const other = JSON.stringify({ id: "t-other", orderId: "some-other-order", merchantId: merchant.merchantId, amount: 1000, demo: true, status: 1 });
    sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: other, contentType: "application/json" }, times: 1_000 });
    const error = await shop.payments.cancel({ order_id: orderId }).catch((e: unknown) => e);
    // Past the window in which the request could still land, the caller asks again, as the error invites.
    await new Promise((r) => setTimeout(r, 300));
    const whileLying = await (error as OutcomeUnknownError).wasApplied!().catch((e: unknown) => (e as Error).name);
    const pendingWhileLying = (await shop.journal.get({ operation: "payments.cancel", key: orderId }))?.state;
    sb.faults.clear();
    const real = sb.ecommerce.transaction(sb.ecommerce.transactionOf(merchant.merchantId, orderId) ?? "")?.status;
    expect(real).toBe(3); // it was cancelled
    // Another order's answer says nothing of this one: never "not applied" (which invites a second refund).
    expect({ whileLying, pendingWhileLying }).toEqual({ whileLying: "OutcomeUnknownError", pendingWhileLying: "pending" });
    // Once the status answers about this order, the outcome is learnt.
    const applied = await (error as OutcomeUnknownError).wasApplied!();
    const record = await shop.journal.get({ operation: "payments.cancel", key: orderId });
    expect({ applied, journal: record?.state }).toEqual({ applied: true, journal: "applied" });
  });
});

describe('a status field present but null, or of another type ("3" for 3), decides nothing', () => {
  for (const status of ['"3"', "null"]) {
    it(`answers unchecked (validateResponses off): a lost refund whose status answer names the order with status ${status} is not settled not applied`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 200, validateResponses: false });
      const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" };
      const orderId = `eq-${Math.random().toString(36).slice(2)}`;
      await shop.payments.create({ amount: 1_000, orderId, customerData: { cardData: card } });
      sb.faults.add({ path: "/ecommerce/payment/kill", fault: { kind: "status", status: 502, body: "{}" }, after: true, times: 1 });
      const id = sb.ecommerce.transactionOf(merchant.merchantId, orderId)!;
      const body = `{"id":"${id}","orderId":"${orderId}","merchantId":"${merchant.merchantId}","amount":1000,"demo":true,"status":${status}}`;
      sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body, contentType: "application/json" }, times: 1_000 });
      const error = await shop.payments.cancel({ order_id: orderId }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 300));
      const asked = await (error as OutcomeUnknownError).wasApplied?.().catch((e: unknown) => (e as Error).name);
      const journal = (await shop.journal.get({ operation: "payments.cancel", key: orderId }))?.state;
      expect(sb.ecommerce.transaction(id)?.status).toBe(3); // it was refunded
      expect({ error: (error as Error).name, asked, journal }).toEqual({ error: "OutcomeUnknownError", asked: "OutcomeUnknownError", journal: "pending" });
    });
  }
});

describe("a register's answers decide a lost shift operation only about that register", () => {
  const REGISTER = 104;
  const tillOf = (hooks?: Parameters<typeof createFiscalClient>[0]["hooks"]) =>
    createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), landingMs: 200, lease: { lingerMs: 0 }, hooks });
  const kkmAnswer = (Id: number, IdShift: number) => JSON.stringify({ Status: 200, Message: "OK", Data: { Kkm: { Id, Name: "other", IdShift, IdStatusKkm: 2, Allowed: true } } });
  const closeOpen = async () => {
    const open = sb.fiscal.register(REGISTER)!.shift;
    if (open) await tillOf().shifts.closeWithZReport({ idShift: open.Id, IdKkm: REGISTER });
  };

  it("a shift opening whose read before it answers about another register is not sent", async () => {
    await closeOpen();
    sb.faults.add({ path: `/fiscal/kkms/${REGISTER}`, fault: { kind: "status", status: 200, body: kkmAnswer(REGISTER + 1, 9), contentType: "application/json" } });
    const error = await tillOf()
      .shifts.open({ IdKkm: REGISTER })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(/nothing was sent/);
    expect(sb.faults.seen.filter((r) => r.method === "POST" && r.path === "/fiscal/shifts")).toEqual([]);
    expect(sb.fiscal.register(REGISTER)!.shift).toBeUndefined();
  });

  it("a lost shift opening is not settled by another register's shift, and is learnt once its own answers", async () => {
    await closeOpen();
    // The opening takes effect, its answer is lost; the read after it answers about another register.
    sb.faults.add({ path: "/fiscal/shifts", fault: { kind: "status", status: 502, body: "{}" }, after: true });
    const lie = () =>
      sb.faults.add({
        path: `/fiscal/kkms/${REGISTER}`,
        fault: { kind: "status", status: 200, body: kkmAnswer(REGISTER + 1, 999_999), contentType: "application/json" },
        times: 100,
      });
    const till = tillOf({ afterResponse: ({ operation }) => void (operation === "shifts.open" && lie()) });
    const error = await till.shifts.open({ IdKkm: REGISTER }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    await new Promise((r) => setTimeout(r, 300));
    expect(await (error as OutcomeUnknownError).wasApplied!().catch((e: unknown) => (e as Error).name)).toBe("OutcomeUnknownError");
    sb.faults.clear();
    expect(await (error as OutcomeUnknownError).wasApplied!()).toBe(true);
    expect(sb.fiscal.register(REGISTER)!.shift).toBeDefined();
  });

  it("a lost Z report is not settled as not done by a shift answer without its status", async () => {
    const till = tillOf();
    if (!sb.fiscal.register(REGISTER)!.shift) await till.shifts.open({ IdKkm: REGISTER });
    const idShift = sb.fiscal.register(REGISTER)!.shift!.Id;
    sb.faults.add({ path: `/fiscal/shifts/${idShift}/z`, fault: { kind: "status", status: 502, body: "{}" }, after: true });
    const noStatus = JSON.stringify({ Status: 200, Message: "OK", Data: { Id: idShift } });
    sb.faults.add({ path: new RegExp(`^/fiscal/shifts/${idShift}$`), fault: { kind: "status", status: 200, body: noStatus, contentType: "application/json" }, times: 100 });
    const error = await till.shifts.closeWithZReport({ idShift, IdKkm: REGISTER }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    const whileSilent = await (error as OutcomeUnknownError).wasApplied!().catch((e: unknown) => (e as Error).name);
    sb.faults.clear();
    // It was closed: "not done" would invite a second Z report.
    expect(sb.fiscal.register(REGISTER)!.shift).toBeUndefined();
    expect(whileSilent).toBe("OutcomeUnknownError");
    expect(await (error as OutcomeUnknownError).wasApplied!()).toBe(true);
  });
});
