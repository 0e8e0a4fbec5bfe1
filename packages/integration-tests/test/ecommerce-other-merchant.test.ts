// The status query's answer names the order, the transaction and the merchant it is about
// (x-answer-names, `/merchantId: $account`). Order ids repeat across shops, so a shared cache or
// proxy answering another shop's transaction of the same order id once made a payment that never
// reached the gateway "created", and another shop's refund this one's (found by a hostile probe).
import { MemoryStore } from "@paysys/core";
import { AnswerLostError, createEcommerceClient, NotFoundError } from "@paysys/ecommerce";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

it("another merchant's transaction of the same order id does not make a never-sent payment 'created'", async () => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 200 });
  const orderId = `order-${Math.random().toString(36).slice(2)}`;
  sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "reset-before-headers" }, times: 1 });
  const others = JSON.stringify({ id: "t-theirs", orderId, merchantId: "another-shop", amount: 777_00, demo: false, status: 1 });
  sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: others, contentType: "application/json" }, times: 1_000 });
  const error = await shop.payments.create({ amount: 1_000, orderId }).catch((e: unknown) => e);
  const record = await shop.journal.get({ operation: "payments.create", key: orderId });
  sb.faults.clear();
  // No payment exists at the gateway for this merchant.
  expect(sb.ecommerce.transactionOf(merchant.merchantId, orderId)).toBeUndefined();
  expect(await shop.payments.status({ orderid: orderId }).catch((e: unknown) => (e instanceof NotFoundError ? "not found" : e))).toBe("not found");
  expect(error).not.toBeInstanceOf(AnswerLostError);
  expect(record?.state).not.toBe("applied");
});

it("payments.status does not return another merchant's transaction as this merchant's order", async () => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
  const orderId = `order-${Math.random().toString(36).slice(2)}`;
  const others = JSON.stringify({ id: "t-theirs", orderId, merchantId: "another-shop", amount: 777_00, demo: false, status: 1 });
  sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: others, contentType: "application/json" }, times: 1_000 });
  const got = await shop.payments.status({ orderid: orderId }).then(
    (v) => ({ ok: v }),
    (e: unknown) => ({ error: (e as Error).name }),
  );
  expect(got).toEqual({ error: "UnexpectedResponseError" });
});

it("another merchant's cancelled transaction of the same order id does not make a refund that never reached the gateway 'done'", async () => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), landingMs: 50 });
  const orderId = `order-${Math.random().toString(36).slice(2)}`;
  await shop.payments.create({ amount: 1_000, orderId });
  sb.faults.add({ path: "/ecommerce/payment/kill", fault: { kind: "reset-before-headers" }, times: 1 });
  const others = JSON.stringify({ id: "t-theirs", orderId, merchantId: "another-shop", amount: 1_000, demo: false, status: 3 });
  sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: others, contentType: "application/json" }, times: 1_000 });
  const error = await shop.payments.cancel({ order_id: orderId }).catch((e: unknown) => e);
  const record = await shop.journal.get({ operation: "payments.cancel", key: orderId });
  sb.faults.clear();
  expect(sb.ecommerce.transaction(sb.ecommerce.transactionOf(merchant.merchantId, orderId)!)?.status).not.toBe(3); // not refunded
  expect(error).not.toBeInstanceOf(AnswerLostError);
  expect(record?.state).not.toBe("applied");
});
