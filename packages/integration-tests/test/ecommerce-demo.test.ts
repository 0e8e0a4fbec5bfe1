// A client made with `demo: true` sends `demo: true` with every payment and payout that does not say
// otherwise, and a call whose `demo` is undefined (`{ demo: order.isTest }` with the flag unset) says
// nothing: spread over the client's default, it once sent no `demo` at all, and the gateway's default
// (false) made a real payment from a test client (found by a hostile probe).
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

/** A client made with `demo: true`, and the request bodies it sends. */
function demoShop() {
  const bodies: string[] = [];
  const shop = createEcommerceClient({
    ...merchant,
    baseUrl: sb.ecommerceUrl,
    demo: true,
    store: new MemoryStore(),
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      if (typeof init?.body === "string") bodies.push(init.body);
      return fetch(input, init);
    },
  });
  return { shop, bodies };
}

it("demo: undefined in params keeps the client's demo: true (no real money moves)", async () => {
  const { shop, bodies } = demoShop();
  const orderId = `demo-${Math.random().toString(36).slice(2)}`;
  await shop.payments.create({ amount: 1_000, orderId, demo: undefined });
  const sent = JSON.parse(bodies.find((b) => b.includes(orderId))!);
  const t = sb.ecommerce.transaction(sb.ecommerce.transactionOf(merchant.merchantId, orderId)!);
  expect({ sentDemo: sent.demo, gatewayDemo: t?.demo }).toEqual({ sentDemo: true, gatewayDemo: true });
});

it("payouts: demo: undefined keeps the client's demo: true", async () => {
  const { shop, bodies } = demoShop();
  const orderId = `demo-p-${Math.random().toString(36).slice(2)}`;
  await shop.payouts.create({ amount: 1_000, orderId, demo: undefined }).catch(() => undefined);
  const sent = JSON.parse(bodies.find((b) => b.includes(orderId))!);
  expect(sent.demo).toBe(true);
});
