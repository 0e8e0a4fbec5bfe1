// A lost cancellation (refund) is learnt from the status query: 3 means applied, and only 0, 1 and 2
// (what the transaction was before) mean not applied (x-outcome notAppliedWhen). 4, 5 and 31, whose
// meaning is not found (one client treats them as cancellation), once read as "not applied" and freed
// the key to send the refund again (found by a hostile probe).
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient, OutcomeUnknownError } from "@paysys/ecommerce";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

for (const seen of [4, 5, 31]) {
  it(`a lost cancellation whose status query answers the unknown status ${seen} is not settled "not applied"`, async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 50 });
    const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" };
    const orderId = `cancel-${seen}-${Math.random().toString(36).slice(2)}`;
    const { id } = await shop.payments.create({ amount: 1_000, orderId, customerData: { cardData: card } });
    // The gateway applies the refund; its answer is lost behind a 502.
    sb.faults.add({ path: "/ecommerce/payment/kill", fault: { kind: "status", status: 502, body: "{}" }, after: true, times: 1 });
    const status = JSON.stringify({ id, orderId, merchantId: merchant.merchantId, amount: 1_000, demo: false, status: seen });
    sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: status, contentType: "application/json" }, times: 1_000 });
    const error = await shop.payments.cancel({ order_id: orderId }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 150)); // past the landing window
    const learnt = error instanceof OutcomeUnknownError && error.wasApplied ? await error.wasApplied().catch((e: unknown) => (e as Error).name) : (error as Error).name;
    const journal = (await shop.journal.get({ operation: "payments.cancel", key: orderId }))?.state;
    // The key is then free: the same refund is sent to the gateway a second time.
    const kills = () => sb.faults.seen.filter((r) => r.path === "/ecommerce/payment/kill").length;
    const before = kills();
    await shop.payments.cancel({ order_id: orderId }).catch(() => undefined);
    const resent = kills() - before;
    sb.faults.clear();
    expect(resent, "the refund was sent again under the same key").toBe(0);
    expect(sb.ecommerce.transaction(sb.ecommerce.transactionOf(merchant.merchantId, orderId)!)?.status).toBe(3); // it was refunded
    expect({ learnt, journal }).not.toMatchObject({ journal: "not-applied" });
    expect(learnt).not.toBe(false);
  });
}
