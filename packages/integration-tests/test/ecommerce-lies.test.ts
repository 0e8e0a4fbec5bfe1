// The gateway (or what stands between) lies, and the shop must not believe it: a status answer about
// another order was returned as the one asked, and confirmed a forged "paid" callback (so did one
// naming no order, or another merchant); a gateway error quoting the card number and CVV the shop
// sent, or a card number it never saw, showed them in the error. Now the spec's x-answer-names
// refuses another order's status, a callback is borne out only by an answer naming its order, and
// every card number is cut from what the SDK writes.
import { inspect } from "node:util";
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient, OutcomeUnknownError } from "@paysys/ecommerce";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());
const lieStatus = (body: unknown) =>
  sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: JSON.stringify(body), contentType: "application/json" }, times: 1_000 });
const outcome = (p: Promise<unknown>) =>
  p.then(
    (v) => ({ ok: v }),
    (e: unknown) => ({ error: (e as Error).name }),
  );

describe("status reads", () => {
  it("payments.status answering another order's transaction is not returned as the asked order's", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    lieStatus({ id: "t-other", orderId: "someone-elses", merchantId: merchant.merchantId, amount: 999_00, demo: true, status: 1 });
    const r = await outcome(shop.payments.status({ orderid: "my-order" }));
    expect("error" in r || (r.ok as { orderId: string }).orderId === "my-order").toBe(true);
  });
  it("reconcile answering another order's transaction is not returned as the asked order's", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    lieStatus({ id: "t-other", orderId: "someone-elses", merchantId: merchant.merchantId, amount: 999_00, demo: true, status: 1 });
    const r = await outcome(shop.payments.reconcile("my-order", "t-mine"));
    expect("error" in r || ((r.ok as { orderId: string }).orderId === "my-order" && (r.ok as { id: string }).id !== "t-other")).toBe(true);
  });
});

describe("callback confirmation by the status query", () => {
  const shop = () => createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), callbacks: { allowedAddresses: "any" } });
  it("a status answer about another order (no id) does not confirm a forged 'paid' callback", async () => {
    lieStatus({ orderId: "someone-elses", merchantId: merchant.merchantId, amount: 5_000, status: 1 });
    const forged = JSON.stringify({ id: "t-forged", orderId: "my-order-1", merchantId: merchant.merchantId, amount: 5_000, status: 1 });
    const r = await outcome(shop().callbacks.parse(forged, { remoteAddress: "203.0.113.9" }));
    expect(r).toEqual({ error: "CallbackRefusedError" });
  });
  it("a status answer naming no order and no id does not confirm a forged 'paid' callback", async () => {
    lieStatus({ amount: 5_000, status: 1 });
    const forged = JSON.stringify({ id: "t-forged2", orderId: "my-order-2", merchantId: merchant.merchantId, amount: 5_000, status: 1 });
    const r = await outcome(shop().callbacks.parse(forged, { remoteAddress: "203.0.113.9" }));
    expect(r).toEqual({ error: "CallbackRefusedError" });
  });
  it("a status answer of another merchant does not confirm a callback", async () => {
    lieStatus({ id: "t-x", orderId: "my-order-3", merchantId: "another-shop", amount: 5_000, status: 1 });
    const forged = JSON.stringify({ id: "t-x", orderId: "my-order-3", merchantId: merchant.merchantId, amount: 5_000, status: 1 });
    const r = await outcome(shop().callbacks.parse(forged, { remoteAddress: "203.0.113.9" }));
    expect(r).toEqual({ error: "CallbackRefusedError" });
  });
  for (const amount of ['"5000"', "5000.5", "-0", "1e3"]) {
    it(`a callback with amount ${amount} is refused or read exactly`, async () => {
      lieStatus({ id: "t-a", orderId: "o-a", merchantId: merchant.merchantId, amount: 1000, status: 1 });
      const raw = `{"id":"t-a","orderId":"o-a","merchantId":"${merchant.merchantId}","amount":${amount},"status":1}`;
      const r = await outcome(shop().callbacks.parse(raw, { remoteAddress: "203.0.113.9" }));
      if ("ok" in r) expect((r.ok as { amount: unknown }).amount).toBe(1000);
    });
  }
});

describe("the payment page address in a create answer", () => {
  // The shop sends its customer to this address: one that would run script, stay on the shop's own
  // page, or hide another host behind a user name or a backslash is no created payment.
  const lieCreate = (url: unknown) =>
    sb.faults.add({
      path: "/ecommerce/payment/create",
      fault: { kind: "status", status: 200, body: JSON.stringify({ id: "t-page", url }), contentType: "application/json" },
      times: 1,
    });
  const refused = [
    "",
    "javascript:alert(document.cookie)",
    "JavaScript://%0aalert(1)",
    "data:text/html,<script>x</script>",
    "/payment/t-page",
    "//evil.example/pay",
    "https://ecommerce.pult24.kz@evil.example/pay",
    "https://evil.example\\@ecommerce.pult24.kz/",
    "https:///payment",
    "https://ecommerce.pult24.kz/pay ment",
    42,
  ];
  for (const url of refused) {
    it(`${JSON.stringify(url)} is refused as a lost answer, the order left pending`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), validateResponses: false });
      lieCreate(url);
      const orderId = `page-${Math.random().toString(36).slice(2)}`;
      const e = await shop.payments.create({ amount: 1_000, orderId }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect(String((e as Error).message)).toMatch(/\/url/);
      expect((await shop.journal.get({ operation: "payments.create", key: orderId }))?.state).toBe("pending");
    });
  }
  const accepted = [
    "https://ecommerce.pult24.kz/payment/t-page",
    "https://ecommerce.pult24.kz/payment/view?id=t-page",
    "HTTPS://pay.example:8443#t",
    "http://127.0.0.1:4010/payment/t-page",
  ];
  for (const url of accepted) {
    it(`${JSON.stringify(url)} is a payment page`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
      lieCreate(url);
      const created = await shop.payments.create({ amount: 1_000 });
      expect(created.url).toBe(url);
    });
  }
});

describe("card data and secrets never in errors", () => {
  const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "987", cardholder: "IVAN IVANOV" };
  const leaks = (e: unknown) => {
    const shown = `${inspect(e, { depth: 10, showHidden: true })} ${String(e)} ${JSON.stringify(e)} ${(e as Error)?.stack}`;
    return [TestCards.success, "987", "tok-SECRET-123", merchant.password].filter((s) => shown.includes(s));
  };
  it("a refused create carrying a card, a token and a bad amount leaks nothing", async () => {
    const logs: unknown[] = [];
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), logger: (e: unknown) => logs.push(e) } as never);
    const e = await shop.payments.create({ amount: 0, customerData: { cardData: card, cardToken: "tok-SECRET-123" } } as never).catch((x: unknown) => x);
    expect(leaks(e)).toEqual([]);
    expect(leaks(logs)).toEqual([]);
  });
  it("a card with the PAN in the wrong field leaks nothing", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const e = await shop.payments.create({ amount: 100, customerData: { cardData: { ...card, cardholder: TestCards.success, month: "987" } } } as never).catch((x: unknown) => x);
    expect(leaks(e)).toEqual([]);
  });
  it("a card token of the wrong type leaks nothing", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const e = await shop.payments.create({ amount: 100, customerData: { cardToken: ["tok-SECRET-123"], cvv: "987" } } as never).catch((x: unknown) => x);
    expect(leaks(e)).toEqual([]);
  });
  it("a gateway error echoing the card number and CVV of the card sent leaks nothing", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    sb.faults.add({
      path: "/ecommerce/payment/create",
      fault: { kind: "status", status: 400, body: JSON.stringify({ error: `bad card ${TestCards.success} cvv 987` }), contentType: "application/json" },
    });
    const e = await shop.payments.create({ amount: 100, customerData: { cardData: card } }).catch((x: unknown) => x);
    expect(leaks(e)).toEqual([]);
  });
  it("a gateway error echoing the card token (and a PAN the client never saw) leaks nothing", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    sb.faults.add({
      path: "/ecommerce/payment/create",
      fault: { kind: "status", status: 400, body: JSON.stringify({ error: `bad token tok-SECRET-123 for ${TestCards.success}` }), contentType: "application/json" },
    });
    const e = await shop.payments.create({ amount: 100, customerData: { cardToken: "tok-SECRET-123", phone: "77770000000" } }).catch((x: unknown) => x);
    expect(leaks(e)).toEqual([]);
  });
  for (const [what, status, body, type] of [
    ["URL-encoded with spaces, in a text body", 400, "card=4111%201111%201111%201111&error=declined", "text/plain"],
    ["with dots, in the gateway's message", 400, JSON.stringify({ error: "card 4111.1111.1111.1111 declined" }), "application/json"],
  ] as const) {
    it(`a card number the client never saw, ${what}, is cut`, async () => {
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "status", status, body, contentType: type } });
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
      const e = await shop.payments.create({ amount: 100 }).catch((x: unknown) => x);
      expect(`${inspect(e, { depth: 10, showHidden: true })} ${JSON.stringify(e)}`).not.toMatch(/4111.{0,3}1111.{0,3}1111.{0,3}1111/);
    });
  }
  it("a status answer naming a card number as its order: the refusal quotes no card number, nor does its log line", async () => {
    const logs: unknown[] = [];
    lieStatus({ orderId: TestCards.success, amount: 5_000, status: 1 });
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), logger: (x: unknown) => logs.push(x) });
    const e = await shop.payments.status({ orderid: "my-order" }).catch((x: unknown) => x);
    expect(String(e)).toMatch(/about orderId "\[REDACTED\]", not the orderid asked/);
    expect(`${inspect(e, { depth: 10 })} ${JSON.stringify(logs)}`).not.toContain(TestCards.success);
  });
});
