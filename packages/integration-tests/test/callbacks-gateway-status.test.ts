// What the status query said of a callback's order reaches the merchant: `gatewayStatus`, and
// `superseded` when the gateway already reports a later status than the callback's own. A review
// probed every callback status against every status the gateway may answer, concurrent deliveries of
// a payment and its refund, and `parse`, which had no way to show it (hence `check`).
import { type CallbackContext, type CallbackEvent, createEcommerceClient } from "@paysys/ecommerce";
import { defaultMerchant, type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const card = () => ({ pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" });
const shop = () =>
  createEcommerceClient({ merchantId: defaultMerchant.login, password: defaultMerchant.password, baseUrl: sb.ecommerceUrl, callbacks: { allowedAddresses: "any" } });
const body = (fields: Record<string, unknown>) => JSON.stringify({ merchantId: defaultMerchant.login, amount: 1_000, errCode: 0, ...fields });
type Seen = Omit<CallbackContext, "signal">;
let n = 0;

it("every callback status against every status the gateway answers: superseded exactly when the gateway is further on", async () => {
  const client = shop();
  // The transitions the SDK reads (order-status.ts): a blocked amount becomes paid, refused or cancelled; a payment is refunded.
  const later = new Set(["1>3", "2>0", "2>1", "2>3"]);
  const wrong: string[] = [];
  for (const callback of [0, 1, 2, 3, 4, 5, 31]) {
    for (const gateway of [undefined, 0, 1, 2, 3, 4, 5, 31]) {
      const [id, orderId] = [`t-${++n}`, `o-${n}`];
      const answer = { id, orderId, merchantId: defaultMerchant.login, amount: 1_000, demo: false, ...(gateway === undefined ? {} : { status: gateway }) };
      sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: JSON.stringify(answer), contentType: "application/json" }, times: 1 });
      let seen: Seen | undefined;
      const { status } = await client.callbacks.handle(body({ id, orderId, status: callback }), {}, (_e, { signal: _, ...context }) => {
        seen = context;
      });
      // Borne out: the gateway reports the callback's status, or one it can become; anything else is refused unseen.
      const bornOut = gateway === callback || later.has(`${callback}>${gateway}`);
      if (status !== (bornOut ? 200 : 400) || (seen !== undefined) !== bornOut) wrong.push(`${callback} / ${gateway}: answered ${status}`);
      if (seen && (seen.gatewayStatus !== gateway || seen.superseded !== later.has(`${callback}>${gateway}`))) wrong.push(`${callback} / ${gateway}: ${JSON.stringify(seen)}`);
    }
  }
  expect(wrong).toEqual([]);
});

it("a payment and its refund delivered together, twice over: the payment once and flagged, the refund once and not", async () => {
  const client = shop();
  for (let round = 0; round < 10; round++) {
    const { id, orderId } = await client.payments.create({ amount: 4_700, customerData: { cardData: card() } });
    await client.payments.cancel({ order_id: orderId });
    const seen: [number, Seen][] = [];
    const record = async (e: CallbackEvent, { signal: _, ...context }: CallbackContext) => {
      await new Promise((r) => setTimeout(r, 5));
      seen.push([e.status, context]);
    };
    const deliver = (status: number) => client.callbacks.handle(body({ id, orderId, amount: 4_700, status }), {}, record);
    await Promise.all([deliver(3), deliver(1), deliver(1)]);
    const paid = seen.filter(([status]) => status === 1);
    const refund = seen.filter(([status]) => status === 3);
    expect(paid).toHaveLength(1);
    expect(paid[0]![1].superseded || paid[0]![1].impossibleTransition).toBe(true);
    expect(refund).toEqual([[3, expect.objectContaining({ gatewayStatus: 3, superseded: false })]]);
  }
});

it("check: the same checks as parse, with what the gateway said, for a callback you process yourself", async () => {
  const client = shop();
  const { id, orderId } = await client.payments.create({ amount: 4_600, customerData: { cardData: card() } });
  const paid = body({ id, orderId, amount: 4_600, status: 1 });
  expect(await client.callbacks.check(paid)).toEqual({ event: JSON.parse(paid), gatewayStatus: 1, superseded: false });
  await client.payments.cancel({ order_id: orderId });
  expect(await client.callbacks.check(paid)).toEqual({ event: JSON.parse(paid), gatewayStatus: 3, superseded: true });
  expect(await client.callbacks.parse(paid)).toEqual(JSON.parse(paid));
  await expect(client.callbacks.check(body({ id, orderId, amount: 1, status: 1 }))).rejects.toMatchObject({ name: "CallbackRefusedError", reason: "unconfirmed" });
});
