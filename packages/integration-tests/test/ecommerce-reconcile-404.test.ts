// `payments.reconcile(orderId)` answers undefined only when the gateway itself says it has no such
// transaction (a 404 in its error shape). A proxy's HTML 404, a plain-text or an empty 404 says nothing
// of the order: read as "none" it had a shop create an existing payment again (found by a hostile probe).
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { type Fault, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const notTheGateway: [string, Fault][] = [
  ["a proxy's HTML 404 page", { kind: "html", status: 404 }],
  ["a plain-text 404", { kind: "status", status: 404, body: "Not Found", contentType: "text/plain" }],
  ["an empty 404", { kind: "status", status: 404, body: "", contentType: "text/plain" }],
];
for (const [what, fault] of notTheGateway) {
  it(`${what}: reconcile does not say an existing payment does not exist`, async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const orderId = `rec-${Math.random().toString(36).slice(2)}`;
    const created = await shop.payments.create({ amount: 1_000, orderId });
    expect(sb.ecommerce.transactionOf(merchant.merchantId, orderId)).toBe(created.id);
    sb.faults.add({ path: "/ecommerce/payment/status", fault, times: 1_000 });
    const answer = await shop.payments.reconcile(orderId).then(
      (v) => ({ ok: v }),
      (e: unknown) => ({ error: (e as Error).name }),
    );
    // Not "the gateway has none": the 404 itself, which says nothing of the order.
    expect(answer).toEqual({ error: "NotFoundError" });
  });
}

it("the gateway's own 404 (its error shape): reconcile answers undefined, the gateway has none", async () => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
  expect(await shop.payments.reconcile(`none-${Math.random().toString(36).slice(2)}`)).toBeUndefined();
});
