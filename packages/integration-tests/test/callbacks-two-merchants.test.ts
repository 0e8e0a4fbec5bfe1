// Two merchants sharing one callback store (as docs/fleets.md shows) share no events and no order
// states: order ids are each merchant's own. Found by a hostile probe: one merchant's processed paid
// callback acknowledged the other's, whose handler never ran, and one merchant's order status
// flagged the other's callbacks as impossible. On the memory, Redis and PostgreSQL stores.
import { type CallbackStore, MemoryCallbackStore } from "@paysys/core";
import { type CallbackContext, type CallbackEvent, createEcommerceClient } from "@paysys/ecommerce";
import { defaultMerchant, type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "./fixtures/fleet-store.mjs";
import { startServers } from "./fleet/kinds.js";

const second = { login: "shop02", password: "second-password" };
let sb: Sandbox;
let servers: Awaited<ReturnType<typeof startServers>>;
beforeAll(async () => {
  sb = await startSandbox({ ecommerce: { merchants: [defaultMerchant, second], callbackMaxAttempts: 1 } });
  servers = await startServers();
}, 120_000);
afterAll(async () => {
  await sb?.close();
  await servers?.stop();
});

const card = (pan: string) => ({ pan, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" });

/** A fetch that answers the status query as a gateway may: without the transaction id (the SDK then keys the event by its order). */
const noIdInStatus: typeof fetch = async (input, init) => {
  const answer = await fetch(input, init);
  if (!String(input instanceof Request ? input.url : input).includes("status")) return answer;
  const body = (await answer.json()) as Record<string, unknown>;
  delete body.id;
  return new Response(JSON.stringify(body), { status: answer.status, headers: { "content-type": "application/json" } });
};

const shopOf = (m: { login: string; password: string }, store: CallbackStore, stripId: boolean) =>
  createEcommerceClient({
    merchantId: m.login,
    password: m.password,
    baseUrl: sb.ecommerceUrl,
    callbackStore: store,
    callbacks: { allowedAddresses: "any" },
    ...(stripId ? { fetch: noIdInStatus } : {}),
  });

const callbackOf = (id: string) => {
  const t = sb.ecommerce.transaction(id)!;
  return JSON.stringify({ id: t.id, orderId: t.orderId, merchantId: t.merchantId, amount: t.amount, demo: t.demo, status: t.status, errCode: t.errCode ?? 0 });
};

const kinds = ["memory", "redis", "postgres"] as const;
async function open(kind: (typeof kinds)[number]): Promise<{ store: CallbackStore; close(): Promise<void> }> {
  if (kind === "memory") return { store: new MemoryCallbackStore(), close: async () => {} };
  return (await openStore(servers.config(kind))) as never;
}

describe("two merchants, one callback store", () => {
  for (const kind of kinds) {
    it(`${kind}: merchant 2's paid callback for its own order 1001 is processed (not taken for merchant 1's)`, async () => {
      const { store, close } = await open(kind);
      try {
        const orderId = `1001-${kind}-a`;
        const m1 = shopOf(defaultMerchant, store, true);
        const m2 = shopOf(second, store, true);
        const p1 = await m1.payments.create({ amount: 1_000, orderId, customerData: { cardData: card(TestCards.success) } });
        const p2 = await m2.payments.create({ amount: 1_000, orderId, customerData: { cardData: card(TestCards.success) } });
        expect(p1.id).not.toBe(p2.id);
        const seen1: CallbackEvent[] = [];
        const seen2: CallbackEvent[] = [];
        expect(await m1.callbacks.handle(callbackOf(p1.id), {}, (e) => seen1.push(e))).toEqual({ status: 200, body: { accepted: true } });
        const answer2 = await m2.callbacks.handle(callbackOf(p2.id), {}, (e) => seen2.push(e));
        expect(answer2).toEqual({ status: 200, body: { accepted: true } });
        // Merchant 2's payment was acknowledged to the gateway: its processor must have run.
        expect(seen2.map((e) => e.merchantId)).toEqual([second.login]);
      } finally {
        await close();
      }
    }, 30_000);

    it(`${kind}: merchant 2's first callback of its order 1001 sees no previous status of merchant 1's order 1001`, async () => {
      const { store, close } = await open(kind);
      try {
        const orderId = `1001-${kind}-b`;
        const m1 = shopOf(defaultMerchant, store, false);
        const m2 = shopOf(second, store, false);
        const p1 = await m1.payments.create({ amount: 1_000, orderId, customerData: { cardData: card(TestCards.success) } });
        await m1.callbacks.handle(callbackOf(p1.id), {}, () => {});
        const p2 = await m2.payments.create({ amount: 1_000, orderId, customerData: { cardData: card(TestCards.decline) } });
        let context: CallbackContext | undefined;
        const answer = await m2.callbacks.handle(callbackOf(p2.id), {}, (_e, c) => {
          context = c;
        });
        expect(answer).toEqual({ status: 200, body: { accepted: true } });
        expect({ previousStatus: context?.previousStatus, impossibleTransition: context?.impossibleTransition }).toEqual({
          previousStatus: undefined,
          impossibleTransition: false,
        });
      } finally {
        await close();
      }
    }, 30_000);
  }
});
