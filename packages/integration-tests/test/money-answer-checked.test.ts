// An answer that carries no payment is not a payment made. The answers of operations that move money
// are checked against the spec, by default and with validateResponses false alike: a 200 with an empty body, a
// 204, `{}`, `null` or `[]` where the gateway answers the created payment (a proxy's placeholder) was
// read as a created payment without an id, and the journal recorded the order as applied, so the
// order could never be sent again while the gateway had no such payment (a hostile probe). Now the
// call ends as after a lost answer: its outcome unknown while the request may still land (the
// gateway behind a proxy may still be working on it), then learnt from the status query (no such
// payment), journaled so, and the same order goes through when sent again.
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient, NotFoundError, OutcomeUnknownError } from "@paysys/ecommerce";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { merchant } from "./credentials.js";

describe("an answer the spec does not allow on payments.create is no payment made", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterEach(() => sb.faults.clear());
  afterAll(() => sb.close());

  const faults = [
    ["an empty 200", { kind: "empty", status: 200 }],
    ["a 204", { kind: "empty", status: 204 }],
    ["a 200 with {}", { kind: "status", status: 200, body: "{}", contentType: "application/json" }],
    ["a 200 with null", { kind: "status", status: 200, body: "null", contentType: "application/json" }],
    ["a 200 with []", { kind: "status", status: 200, body: "[]", contentType: "application/json" }],
  ] as const;
  for (const [what, fault] of faults) {
    it(`${what}: outcome unknown, then learnt not applied from the gateway, and the order goes through when sent again`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 300 });
      sb.faults.add({ path: "/ecommerce/payment/create", fault: fault as never, times: 1 });
      const orderId = `unchecked-${Math.random().toString(36).slice(2)}`;
      const e = await shop.payments.create({ amount: 1_000, orderId }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect((await shop.journal.get({ operation: "payments.create", key: orderId }))?.state).toBe("pending");
      expect(await shop.payments.status({ orderid: orderId }).catch((x: unknown) => x)).toBeInstanceOf(NotFoundError);
      await new Promise((r) => setTimeout(r, 350)); // past the window in which the request could still land
      expect(await (e as OutcomeUnknownError).wasApplied!()).toBe(false);
      expect((await shop.journal.get({ operation: "payments.create", key: orderId }))?.state).toBe("not-applied");
      const created = await shop.payments.create({ amount: 1_000, orderId });
      expect(created.id).toEqual(expect.any(String));
    });
  }

  it("a client that turned answer checks off still has the answers that move money checked", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), validateResponses: false });
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "status", status: 200, body: "{}", contentType: "application/json" }, times: 1 });
    const e = await shop.payments.create({ amount: 1_000, orderId: `unchecked-off-${Date.now()}` }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutcomeUnknownError);
  });
});
