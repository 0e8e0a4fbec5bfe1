// Refusals of calls nothing can check (`x-outcome: by: none`: a cash-out request, a two-stage
// payment's confirmation). A refusal spends its key, and the README tells the caller that a new
// attempt needs a new key, so a refusal taken at its word when it was not the service's would have
// the money moved twice. A client probe (2026-12-04) had a proxy pass each withdrawal on (it was
// stored), then answer 401, 403 (a WAF's page), 404, 409, 413, 425 or 429: each was spent as
// "refused". Now only the service's own refusal is final: its JSON (with the envelope's code or
// message where the spec names them), never a 409. Any other is unknown, left to a person, who can
// record "not applied" so that the key is sent again.
import { type CashoutClient, createCashoutClient, OutcomeUnknownError } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { type Fault, type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ ecommerce: { merchants: [{ login: "hold01", password: "hold-password", twoStage: true }] } });
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const WITHDRAWAL = "/cashout/cash-out-request";
const sent = (path: string) => sb.faults.seen.filter((s) => s.path === path).length;
const text = (status: number, body: string, contentType = "text/plain"): Fault => ({ kind: "status", status, body, contentType });
const json = (status: number, body: unknown): Fault => ({ kind: "status", status, body: JSON.stringify(body) });

async function signedIn(): Promise<CashoutClient> {
  const cash = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() });
  await cash.requests.create({ amount: 1 });
  return cash;
}

/** A withdrawal the service stores, answered with `fault`; then the same key again: what each call ended with, and what the service did. */
async function withdrawLied(fault: Fault, key: string) {
  const cash = await signedIn();
  const stored = sb.cashout.stats.stored;
  const before = sent(WITHDRAWAL);
  sb.faults.add({ path: WITHDRAWAL, after: true, fault, times: 1 });
  const first = await cash.requests.create({ amount: 700, account: "77771112233" }, { idempotencyKey: key }).catch((e: unknown) => e);
  const again = await cash.requests.create({ amount: 700, account: "77771112233" }, { idempotencyKey: key }).catch((e: unknown) => e);
  const state = (await cash.journal.get({ operation: "requests.create", key }))?.state;
  return { first, again, state, stored: sb.cashout.stats.stored - stored, sent: sent(WITHDRAWAL) - before, cash };
}

describe("cash-out: a refusal that is not the service's own JSON is unknown, never a spent key", () => {
  const notTheService: [string, Fault][] = [
    ["a WAF's 403 page", { kind: "html", status: 403 }],
    ["a proxy's 404 page", { kind: "html", status: 404 }],
    ["a proxy's 413 page", { kind: "html", status: 413 }],
    ["an empty 429", { kind: "status", status: 429, headers: { "retry-after": "1" } }],
    ["an empty 425", { kind: "status", status: 425 }],
    ["401 as text", text(401, "Unauthorized")],
    ["400 as text", text(400, "Bad Request")],
    ["400 JSON sent as text/html", text(400, '{"error":"bad"}', "text/html")],
    ["a JSON array", json(400, ["bad"])],
    ["409 in JSON (a conflict may be 'I have it already')", json(409, { error: "duplicate" })],
  ];
  notTheService.forEach(([name, fault], i) => {
    it(`${name}: OutcomeUnknownError, pending, and the key never sent again`, async () => {
      const key = `lied-${i}`;
      const r = await withdrawLied(fault, key);
      expect(r.first).toBeInstanceOf(OutcomeUnknownError);
      expect((r.first as OutcomeUnknownError).message).toMatch(/refused by an answer that does not show it is the service's own/);
      expect((r.first as OutcomeUnknownError).wasApplied).toBeUndefined(); // nothing can ask: a person settles it
      expect(r.state).toBe("pending");
      expect(r.again).toBeInstanceOf(OutcomeUnknownError);
      expect({ stored: r.stored, sent: r.sent }).toEqual({ stored: 1, sent: 1 });
    });
  });

  it("the service's own refusal in JSON (400, 401, 422, 429) is final: the key is spent, and it is sent once", async () => {
    for (const status of [400, 401, 422, 429]) {
      const cash = await signedIn();
      const before = sent(WITHDRAWAL);
      sb.faults.add({ path: WITHDRAWAL, fault: json(status, { error: `refused with ${status}` }), times: 1 });
      const key = `own-${status}`;
      const first = await cash.requests.create({ amount: 700 }, { idempotencyKey: key }).catch((e: unknown) => e);
      const again = await cash.requests.create({ amount: 700 }, { idempotencyKey: key }).catch((e: unknown) => e);
      expect((first as Error).name, `${status}`).not.toBe("OutcomeUnknownError");
      expect((first as { status?: number }).status).toBe(status);
      expect((again as Error).name).toBe((first as Error).name);
      expect((await cash.journal.get({ operation: "requests.create", key }))?.state).toBe("refused");
      expect(sent(WITHDRAWAL) - before).toBe(1);
    }
  });

  it("a person who learns it was not done records so, and the key is then sent once more", async () => {
    const cash = await signedIn();
    const stored = sb.cashout.stats.stored;
    sb.faults.add({ path: WITHDRAWAL, fault: { kind: "html", status: 403 }, times: 1 }); // refused before the service: nothing stored
    const error = await cash.requests.create({ amount: 700 }, { idempotencyKey: "waf-before" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(sb.cashout.stats.stored - stored).toBe(0);
    await cash.journal.settle(error as OutcomeUnknownError, false);
    await expect(cash.requests.create({ amount: 700 }, { idempotencyKey: "waf-before" })).resolves.toMatchObject({ status: 1 });
    await expect(cash.requests.create({ amount: 700 }, { idempotencyKey: "waf-before" })).resolves.toMatchObject({ status: 1 });
    expect(sb.cashout.stats.stored - stored).toBe(1);
  });
});

describe("e-commerce confirmation (nothing checks it): its envelope's `error` makes a refusal the service's", () => {
  const shop = () => createEcommerceClient({ baseUrl: sb.ecommerceUrl, merchantId: "hold01", password: "hold-password", store: new MemoryStore() });
  const CONFIRM = "/ecommerce/payment/processing/end";
  const held = async (s: ReturnType<typeof shop>, orderId: string) =>
    (await s.payments.create({ amount: 1_000, orderId, customerData: { cardData: { pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" } } })).id;

  for (const [i, name, fault, final] of [
    [1, "a WAF's 403 page", { kind: "html", status: 403 } as Fault, false],
    [2, "400 JSON without the envelope's `error`", json(400, { message: "no" }), false],
    [3, "400 JSON with the envelope's `error`", json(400, { error: "declined" }), true],
  ] as const) {
    it(`${name}: ${final ? "final" : "unknown"}`, async () => {
      const s = shop();
      const ID = await held(s, `confirm-${i}`);
      const before = sent(CONFIRM);
      sb.faults.add({ path: CONFIRM, fault, times: 1 });
      const error = await s.payments.approve({ ID, action: "approve" }).catch((e: unknown) => e);
      expect((error as Error).name).toBe(final ? "BadRequestError" : "OutcomeUnknownError");
      expect(sent(CONFIRM) - before).toBe(1);
    });
  }
});
