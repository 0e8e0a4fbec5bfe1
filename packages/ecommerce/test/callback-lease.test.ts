// A lease as long as the options allow (days) is renewed every third of it, within what a timer can
// wait: leaseMs / 3 past the timer limit fired every 1 ms while the function ran, and a slow
// store's renewals were joined by the next ones.
import { MemoryCallbackStore } from "@paysys/core";
import { expect, it } from "vitest";
import { createEcommerceClient } from "../src/index.js";

it("a lease of 100 days is renewed a few times at most while a 300 ms function runs", async () => {
  const store = new MemoryCallbackStore();
  let renewals = 0;
  const renew = store.renew.bind(store);
  store.renew = (...a) => {
    renewals++;
    return renew(...a);
  };
  const shop = createEcommerceClient({ merchantId: "m", password: "p", callbackStore: store, callbacks: { allowedAddresses: "any", confirm: false, leaseMs: 100 * 86_400_000 } });
  const body = JSON.stringify({ id: "t1", orderId: "o-1", merchantId: "m", amount: 1000, status: 1, errCode: 0 });
  const answer = await shop.callbacks.handle(body, {}, () => new Promise((r) => setTimeout(r, 300)));
  expect(answer.status).toBe(200);
  expect(renewals).toBeLessThan(5);
});
