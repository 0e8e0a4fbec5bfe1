// The e-commerce client against the sandbox, over HTTP on loopback: every operation, the payment
// page, the card cryptogram (encrypted by the client, decrypted by the sandbox), callbacks
// delivered by the sandbox to a real merchant server, payments whose answer is lost, and secrets.

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { MemoryCallbackStore } from "@paysys/core";
import {
  AnswerLostError,
  AuthenticationError,
  type CallbackContext,
  type CallbackEvent,
  type CallbackProcessor,
  CallbackRefusedError,
  type CallbackStore,
  callbackSources,
  createEcommerceClient,
  type EcommerceClientOptions,
  IdempotencyKeyReusedError,
  type LogEvent,
  NotFoundError,
  OutcomeUnknownError,
  parseCallback,
  RequestValidationError,
  ServiceError,
  tenge,
  tiyn,
} from "@paysys/ecommerce";
import { loadCardEncryption } from "@paysys/ecommerce/card";
import { defaultMerchant, type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let sb: Sandbox;
const servers: Server[] = [];
beforeAll(async () => {
  sb = await startSandbox({
    ecommerce: { callbackRetryMs: 25, callbackMaxAttempts: 8, merchants: [defaultMerchant, { login: "hold01", password: "hold-password", twoStage: true }] },
  });
});
afterAll(async () => {
  for (const s of servers) s.close();
  await sb.close();
});

const card = (pan: string = TestCards.success) => ({ pan, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" });
const client = (extra: Partial<EcommerceClientOptions> = {}) =>
  createEcommerceClient({
    merchantId: defaultMerchant.login,
    password: defaultMerchant.password,
    baseUrl: sb.ecommerceUrl,
    validateResponses: true,
    // Callbacks come from the sandbox on loopback, not from the gateway's documented address.
    callbacks: { allowedAddresses: ["127.0.0.1"] },
    ...extra,
  });

/** A merchant's callback endpoint: a real HTTP server with the client's Node handler. */
async function callbackServer(shop: ReturnType<typeof client>, process: CallbackProcessor) {
  const server = createServer(shop.callbacks.nodeHandler(process));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`;
}

describe("e-commerce: every operation against the sandbox", () => {
  it("a payment on the gateway's page: create, the page, paying with a test card, the status, the callback, a refund", async () => {
    const shop = client();
    const events: CallbackEvent[] = [];
    const callbackUrl = await callbackServer(shop, (e) => events.push(e));
    const created = await shop.payments.create({
      amount: tiyn("1500.00"),
      description: "Order 1001",
      callbackUrl,
      returnUrl: "https://shop.example/return",
      metadata: { cart: "c-77" },
    });
    expect(created).toEqual({ id: expect.any(String), url: `${sb.ecommerceUrl}/pay/${created.id}`, orderId: expect.any(String) });
    expect(await shop.payments.reconcile(created.orderId)).toMatchObject({ id: created.id, amount: 150000, demo: false });
    expect((await shop.payments.reconcile(created.orderId))?.status).toBeUndefined();

    const page = await fetch(created.url);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("Pay 1500.00 KZT");
    const paid = await fetch(created.url, { method: "POST", body: new URLSearchParams({ pan: TestCards.success, month: "12", year: "2031", cvv: "123" }), redirect: "manual" });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe("https://shop.example/return");

    expect(await shop.payments.status({ orderid: created.orderId, id: created.id })).toMatchObject({ status: 1, amount: 150000 });
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(events[0]).toMatchObject({ id: created.id, orderId: created.orderId, amount: 150000, status: 1, errCode: 0, metadata: { cart: "c-77" } });

    expect(await shop.payments.cancel({ order_id: created.orderId })).toEqual({});
    expect((await shop.payments.reconcile(created.orderId))?.status).toBe(3);
    await vi.waitFor(() => expect(events.map((e) => e.status)).toEqual([1, 3]));
    expect(sb.ecommerce.balance(defaultMerchant.login)).toBe(0);
  });

  it("declined and insufficient-funds cards fail with errCode 220 and their message", async () => {
    const shop = client();
    for (const [pan, message] of [
      [TestCards.decline, "declined"],
      [TestCards.insufficientFunds, "insufficient funds"],
    ] as const) {
      const events: CallbackEvent[] = [];
      const callbackUrl = await callbackServer(shop, (e) => events.push(e));
      const { orderId } = await shop.payments.create({ amount: 1000, callbackUrl, customerData: { cardData: card(pan) } });
      expect((await shop.payments.reconcile(orderId))?.status).toBe(0);
      await vi.waitFor(() => expect(events).toHaveLength(1));
      expect(events[0]).toMatchObject({ status: 0, errCode: 220, errMessage: expect.stringContaining(message) });
    }
  });

  it("a card given as an object is encrypted with the gateway's key (fetched once for 20 payments at once), decrypted by the sandbox", async () => {
    const shop = client();
    const keysBefore = sb.ecommerce.stats.keys;
    const cryptogramsBefore = sb.ecommerce.stats.cryptograms;
    const created = await Promise.all(Array.from({ length: 20 }, () => shop.payments.create({ amount: 2500, customerData: { cardData: card() } })));
    expect(sb.ecommerce.stats.keys - keysBefore).toBe(1);
    expect(sb.ecommerce.stats.cryptograms - cryptogramsBefore).toBe(20);
    for (const p of created) expect(sb.ecommerce.transaction(p.id)?.status).toBe(1);
  });

  it("the key is kept at most a day: after it, the next card fetches it again", async () => {
    const shop = client();
    await shop.encryptCard(card());
    const before = sb.ecommerce.stats.keys;
    await shop.encryptCard(card());
    expect(sb.ecommerce.stats.keys).toBe(before);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.now() + 86_400_000);
      await shop.encryptCard(card());
      expect(sb.ecommerce.stats.keys).toBe(before + 1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the payment form's helper: the key by its PEM address, one fetch for 10 cards, a failed fetch not kept", async () => {
    const before = sb.ecommerce.stats.keys;
    const cards = loadCardEncryption({ keyUrl: `${sb.ecommerceUrl}/payment/getcert/pem` });
    const cryptograms = await Promise.all(Array.from({ length: 10 }, () => cards.encrypt(card())));
    expect(sb.ecommerce.stats.keys - before).toBe(1);
    const shop = client();
    const paid = await shop.payments.create({ amount: 1_000, customerData: { cardData: cryptograms[3]! } });
    expect(sb.ecommerce.transaction(paid.id)?.status).toBe(1);

    const broken = loadCardEncryption({ keyUrl: `${sb.ecommerceUrl}/payment/no-such-key` });
    await expect(broken.encrypt(card())).rejects.toThrow("the gateway's key could not be fetched (HTTP 404)");
    const requests = sb.ecommerce.stats.requests;
    await expect(broken.encrypt(card())).rejects.toThrow("HTTP 404");
    expect(sb.ecommerce.stats.requests).toBe(requests + 1);
  });

  it("a bad card is refused before anything is sent, with the field and never the number or the CVV", async () => {
    const shop = client();
    const requests = sb.ecommerce.stats.requests;
    const created = sb.ecommerce.stats.created;
    const bad = { pan: "4111111111111112", month: 13, year: 2031, cvv: "98" };
    const error = await shop.payments.create({ amount: 1000, customerData: { cardData: bad } }).catch((e) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(["/customerData/cardData"]);
    expect(error.message).toMatch(/pan is not a valid card number.*month must be a month.*cvv must be 3 or 4 digits/);
    for (const text of [error.message, JSON.stringify(error), inspect(error), error.stack]) {
      expect(text).not.toContain(bad.pan);
      expect(text).not.toContain('98"');
    }
    // The key may have been fetched; no payment was.
    expect(sb.ecommerce.stats.created).toBe(created);
    expect(sb.ecommerce.stats.requests - requests).toBeLessThanOrEqual(1);
  });

  it("payouts are payments of type 1 with the card number in a cryptogram; the balance moves only outside demo mode", async () => {
    const shop = client();
    const before = sb.ecommerce.balance(defaultMerchant.login);
    await shop.payments.create({ amount: 10_000, customerData: { cardData: card() } });
    expect(sb.ecommerce.balance(defaultMerchant.login)).toBe(before + 10_000);
    const payout = await shop.payouts.create({ amount: 4_000, customerData: { cardData: { pan: TestCards.success } } });
    expect(sb.ecommerce.transaction(payout.id)).toMatchObject({ payout: true, status: 1 });
    expect(sb.ecommerce.balance(defaultMerchant.login)).toBe(before + 6_000);

    const demo = client({ demo: true });
    await demo.payments.create({ amount: 99_900, customerData: { cardData: card() } });
    const demoPayout = await demo.payouts.create({ amount: 99_900, customerData: { cardData: { pan: TestCards.success } } });
    expect(sb.ecommerce.transaction(demoPayout.id)).toMatchObject({ demo: true, status: 1 });
    expect(sb.ecommerce.balance(defaultMerchant.login)).toBe(before + 6_000);
  });

  it("two-stage: the amount is held (status 2) until approved (status 1); an unknown id is the service's error", async () => {
    const shop = client({ merchantId: "hold01", password: "hold-password" });
    const events: CallbackEvent[] = [];
    const callbackUrl = await callbackServer(shop, (e) => events.push(e));
    const held = await shop.payments.create({ amount: 50_000, callbackUrl, customerData: { cardData: card() } });
    expect((await shop.payments.reconcile(held.orderId))?.status).toBe(2);
    expect(await shop.payments.approve({ ID: held.id, action: "approve" })).toEqual({ status: 1 });
    expect((await shop.payments.reconcile(held.orderId))?.status).toBe(1);
    await vi.waitFor(() => expect(events.map((e) => e.status)).toEqual([2, 1]));

    const unknown = await shop.payments.approve({ ID: "no-such-id", action: "approve" }).catch((e) => e);
    expect(unknown).toBeInstanceOf(ServiceError);
    expect(unknown.message).toContain("transaction not found");

    const cancelled = await shop.payments.create({ amount: 7_000, customerData: { cardData: card() } });
    await shop.payments.cancel({ order_id: cancelled.orderId });
    expect((await shop.payments.reconcile(cancelled.orderId))?.status).toBe(3);
  });

  it("card tokens: made with tokenization and a phone, listed masked, paid with (same phone only), removed", async () => {
    const shop = client();
    const phone = "77770001122";
    const events: CallbackEvent[] = [];
    const callbackUrl = await callbackServer(shop, (e) => events.push(e));
    await shop.payments.create({ amount: 1_000, callbackUrl, tokenization: true, customerData: { phone, cardData: card() } });
    await vi.waitFor(() => expect(events).toHaveLength(1));
    const token = events[0]!.cardToken!;
    expect(token).toMatch(/^ct_/);
    expect(await shop.cardTokens.list({ phone })).toEqual([{ ID: token, Pan: "411111******1111" }]);

    const again = await shop.payments.create({ amount: 2_000, customerData: { phone, cardToken: token } });
    expect(sb.ecommerce.transaction(again.id)?.status).toBe(1);
    const otherPhone = await shop.payments.create({ amount: 2_000, customerData: { phone: "77779999999", cardToken: token } });
    expect(sb.ecommerce.transaction(otherPhone.id)?.status).toBe(0);

    expect(await shop.cardTokens.remove({ id: token })).toEqual({ removed: true });
    expect(await shop.cardTokens.list({ phone })).toEqual([]);
  });

  it("the public key as PEM and as JWK, without credentials", async () => {
    const shop = client({ password: "not-the-password" });
    expect(await shop.publicKey.pem()).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+-----END PUBLIC KEY-----\n$/);
    expect(await shop.publicKey.jwk()).toMatchObject({ kty: "RSA", e: "AQAB", n: expect.any(String) });
  });

  it("an unpaid payment expires after its lifetime with errCode 230 and a callback", async () => {
    const shop = client();
    const events: CallbackEvent[] = [];
    const callbackUrl = await callbackServer(shop, (e) => events.push(e));
    const { orderId } = await shop.payments.create({ amount: 1_000, callbackUrl });
    sb.clock.advance(16 * 60_000);
    expect(await shop.payments.reconcile(orderId)).toMatchObject({ status: 0 });
    await vi.waitFor(() => expect(events[0]).toMatchObject({ status: 0, errCode: 230 }));
  });

  it("an unknown orderId: payments.status is a NotFoundError, reconcile says undefined", async () => {
    const shop = client();
    await expect(shop.payments.status({ orderid: "no-such-order" })).rejects.toBeInstanceOf(NotFoundError);
    expect(await shop.payments.reconcile("no-such-order")).toBeUndefined();
  });

  it("wrong credentials are an AuthenticationError with the gateway's message", async () => {
    const shop = client({ password: "Wr0ng-Merchant-Pass" });
    const error = await shop.payments.create({ amount: 1_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain("Unauthorized not found");
    expect(error.message).not.toContain("Wr0ng-Merchant-Pass");
  });
});

describe("e-commerce: money", () => {
  it("amounts are whole tiyn: tiyn() and tenge() are exact; fractions, zero and negatives are refused before sending", async () => {
    expect(tiyn("100.50")).toBe(10050);
    expect(tiyn(19.99)).toBe(1999);
    expect(tenge(10050)).toBe("100.50");
    const shop = client();
    const requests = sb.ecommerce.stats.requests;
    for (const amount of [10.5, -100, 0, Number.NaN]) {
      const error = await shop.payments.create({ amount }).catch((e) => e);
      expect(error, String(amount)).toBeInstanceOf(RequestValidationError);
      expect(error.issues[0].path).toBe("/amount");
    }
    expect(sb.ecommerce.stats.requests).toBe(requests);
  });
});

describe("e-commerce: nothing is sent twice", () => {
  /** A fetch that delivers the request and then loses the answer (`lose` decides which calls). */
  const losing = (lose: (url: string) => boolean) => async (url: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(url, init);
    if (lose(String(url))) throw new TypeError("fetch failed: socket hang up");
    return response;
  };

  it("a payment whose answer is lost is not re-sent; the status query tells it was created, and the same orderId never pays twice", async () => {
    const shop = client({ fetch: losing((u) => u.endsWith("/payment/create")), retry: { maxRetries: 3 } });
    const created = sb.ecommerce.stats.created;
    const error = await shop.payments.create({ amount: 3_000, orderId: "lost-answer-1", customerData: { cardData: card() } }).catch((e) => e);
    expect(error).toBeInstanceOf(AnswerLostError);
    expect(error).toMatchObject({ applied: true, key: "lost-answer-1", operation: "payments.create", attempts: 1 });
    expect(sb.ecommerce.stats.created - created).toBe(1);
    expect(await shop.payments.reconcile("lost-answer-1")).toMatchObject({ status: 1, amount: 3_000 });
    // The orderId is the key: the same payment again answers the same, and sends nothing.
    const requests = sb.ecommerce.stats.requests;
    expect(await shop.payments.create({ amount: 3_000, orderId: "lost-answer-1", customerData: { cardData: card() } }).catch((e) => e)).toBeInstanceOf(AnswerLostError);
    expect(sb.ecommerce.stats.requests).toBe(requests);
    // Another amount under the same orderId is another request: refused, nothing sent.
    const other = await shop.payments.create({ amount: 4_000, orderId: "lost-answer-1" }).catch((e) => e);
    expect(other).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(sb.ecommerce.stats.requests).toBe(requests);
  });

  it("a payment cut off on its way (it never reached the gateway): not known at once, then known not applied; sent again with the same key, created once", async () => {
    let cut = true;
    const shop = client({
      landingMs: 200,
      fetch: async (url, init) => {
        if (String(url).endsWith("/payment/create") && cut) {
          cut = false;
          throw new TypeError("fetch failed: socket hang up");
        }
        return fetch(url, init);
      },
    });
    const error = await shop.payments.create({ amount: 3_000, orderId: "never-arrived-1" }).catch((e) => e);
    // The SDK cannot tell a request cut off before it arrived from one cut off after: "not found" is final once it can no longer land.
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(await error.wasApplied()).toBe(false);
    expect(sb.ecommerce.transactionOf(defaultMerchant.login, "never-arrived-1")).toBeUndefined();
    expect(await shop.payments.create({ amount: 3_000, orderId: "never-arrived-1" })).toMatchObject({ orderId: "never-arrived-1" });
    expect(sb.ecommerce.transactionOf(defaultMerchant.login, "never-arrived-1")).toBeDefined();
  });

  it("a cancel whose answer is lost is not re-sent; the status query tells it was cancelled", async () => {
    const shop = client({ fetch: losing((u) => u.endsWith("/payment/kill")) });
    const { orderId } = await shop.payments.create({ amount: 1_000, customerData: { cardData: card() } });
    const error = await shop.payments.cancel({ order_id: orderId }).catch((e) => e);
    expect(error).toBeInstanceOf(AnswerLostError);
    expect((await shop.journal.get({ operation: "payments.cancel", key: orderId }))?.state).toBe("applied");
  });

  it("an orderId already used under another key is refused by the sandbox, and the journal does not take that for a payment", async () => {
    const shop = client();
    await shop.payments.create({ amount: 1_000, orderId: "once-only" });
    const error = await shop.payments.create({ amount: 1_000, orderId: "once-only" }, { idempotencyKey: "another-key" }).catch((e) => e);
    // Refused, while the status query finds a transaction of that orderId (the first one): disputed, never re-sent.
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error.cause.message).toContain("already used");
    expect((await shop.journal.get({ operation: "payments.create", key: "another-key" }))?.state).toBe("disputed");
  });
});

/** A whole callback body (every field the spec requires), for tests that deliver by hand. */
const callbackBody = (fields: Record<string, unknown> = {}) =>
  JSON.stringify({ id: "t-1", orderId: "o-1", merchantId: defaultMerchant.login, amount: 1_000, status: 1, errCode: 0, ...fields });

/** POSTs a body to a merchant's callback endpoint as the gateway would. */
const deliver = async (url: string, body: string | Uint8Array<ArrayBuffer>) => {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: response.status, body: await response.json() };
};

describe("e-commerce: callbacks", () => {
  it("delivered twice, processed once; both deliveries acknowledged", async () => {
    const shop = client();
    const events: CallbackEvent[] = [];
    const callbackUrl = await callbackServer(shop, (e) => events.push(e));
    const { id } = await shop.payments.create({ amount: 1_000, callbackUrl, customerData: { cardData: card() } });
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(await sb.ecommerce.redeliver(id)).toBe(true);
    expect(events).toHaveLength(1);
    await vi.waitFor(() =>
      expect(sb.ecommerce.transaction(id)?.deliveries).toEqual([
        { status: 200, accepted: true, callbackStatus: 1 },
        { status: 200, accepted: true, callbackStatus: 1 },
      ]),
    );
  });

  it("when the merchant's function throws, the callback is not acknowledged and the gateway's next delivery processes it", async () => {
    const shop = client();
    let calls = 0;
    const processed: string[] = [];
    const callbackUrl = await callbackServer(shop, (e) => {
      calls++;
      if (calls < 3) throw new Error("database is down");
      processed.push(e.id);
    });
    const { id } = await shop.payments.create({ amount: 1_000, callbackUrl, customerData: { cardData: card() } });
    await vi.waitFor(() => expect(processed).toEqual([id]));
    // The function returns before the gateway reads the answer, so the third delivery's record can lag.
    await vi.waitFor(() =>
      expect(sb.ecommerce.transaction(id)?.deliveries.map((d) => [d.status, d.accepted])).toEqual([
        [500, false],
        [500, false],
        [200, true],
      ]),
    );
  });

  it("an empty or partial callback is refused (400) and never reaches the function; the refusal names the missing fields", async () => {
    const shop = client({ callbacks: { allowedAddresses: ["127.0.0.1"], confirm: false } });
    const seen: CallbackEvent[] = [];
    const url = await callbackServer(shop, (e) => seen.push(e));
    expect(await deliver(url, "{}")).toEqual({ status: 400, body: { accepted: false } });
    expect(await deliver(url, '{"status":1}')).toEqual({ status: 400, body: { accepted: false } });
    expect(seen).toEqual([]);
    const refusal = await shop.callbacks.parse('{"status":1}', { remoteAddress: "127.0.0.1" }).catch((e) => e);
    expect(refusal).toBeInstanceOf(CallbackRefusedError);
    expect(refusal).toMatchObject({ reason: "body", operation: "callbacks.payment" });
    for (const field of ["id", "orderId", "merchantId", "amount"]) expect(refusal.message).toContain(`'${field}'`);
    expect(refusal.message).not.toContain("'status'");
    const wrongType = await shop.callbacks.parse(callbackBody({ amount: "100" }), { remoteAddress: "127.0.0.1" }).catch((e) => e);
    expect(wrongType).toMatchObject({ reason: "body", message: expect.stringContaining("/amount") });
    // A key given twice: JSON.parse would keep the last status (paid), which the sender may not have meant.
    const twice = callbackBody({ status: 2 }).replace(/}$/, ',"status":1}');
    expect(await deliver(url, twice)).toEqual({ status: 400, body: { accepted: false } });
    expect(await shop.callbacks.parse(twice, { remoteAddress: "127.0.0.1" }).catch((e) => e)).toMatchObject({ reason: "body", message: expect.stringContaining('"status" twice') });
    expect(seen).toEqual([]);
  });

  it("a callback for another merchant is refused (403), even from an allowed address and for a real transaction", async () => {
    const shop = client({ callbacks: { allowedAddresses: ["127.0.0.1"], confirm: false } });
    const seen: CallbackEvent[] = [];
    const url = await callbackServer(shop, (e) => seen.push(e));
    expect(await deliver(url, callbackBody({ merchantId: "someone-else" }))).toEqual({ status: 403, body: { accepted: false } });
    expect(seen).toEqual([]);
    await expect(shop.callbacks.parse(callbackBody({ merchantId: "someone-else" }), { remoteAddress: "127.0.0.1" })).rejects.toMatchObject({
      reason: "merchant",
      message: expect.stringContaining('"someone-else"'),
    });
    // Without a client, checked only when the merchant is named.
    await expect(parseCallback(callbackBody({ merchantId: "someone-else" }), { allowedAddresses: "any", merchantId: "shop01" })).rejects.toMatchObject({ reason: "merchant" });
    expect(await parseCallback(callbackBody({ merchantId: "someone-else" }), { allowedAddresses: "any" })).toMatchObject({ merchantId: "someone-else" });
  });

  it("a body over the limit is 413 from any sender, before its address is looked at; a small one from a disallowed address is 403; neither reaches the function", async () => {
    const shop = client({ callbacks: { allowedAddresses: ["35.157.105.64"], confirm: false } });
    const seen: CallbackEvent[] = [];
    const nodeUrl = await callbackServer(shop, (e) => seen.push(e));
    const web = shop.callbacks.fetchHandler((e) => seen.push(e));
    const huge = callbackBody({ errMessage: "x".repeat(2 * 1024 * 1024) });
    expect(await deliver(nodeUrl, huge)).toEqual({ status: 413, body: { accepted: false } });
    expect(await deliver(nodeUrl, callbackBody())).toEqual({ status: 403, body: { accepted: false } });
    // The web handler, from the gateway's own address: the size still decides first.
    const request = (body: string) => new Request("https://shop.example/callbacks", { method: "POST", body });
    expect((await web(request(huge), { remoteAddress: "35.157.105.64" })).status).toBe(413);
    expect((await web(request(callbackBody()), { remoteAddress: "203.0.113.9" })).status).toBe(403);
    // A chunked body (no content-length) is read only up to the limit.
    const chunked = new Request("https://shop.example/callbacks", {
      method: "POST",
      body: new ReadableStream({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode("x".repeat(64 * 1024)));
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect((await web(chunked, { remoteAddress: "35.157.105.64" })).status).toBe(413);
    expect(await shop.callbacks.handle(huge, { remoteAddress: "203.0.113.9" }, (e) => seen.push(e))).toEqual({ status: 413, body: { accepted: false } });
    await expect(shop.callbacks.parse(huge, {})).rejects.toMatchObject({ reason: "size" });
    expect(seen).toEqual([]);
  });

  it("the limit counts the body's UTF-8 bytes, not its characters", async () => {
    const size = (body: string) => new TextEncoder().encode(body).byteLength;
    // Cyrillic letters take two bytes each: within the limit in characters, over it in bytes.
    const cyrillic = callbackBody({ errMessage: "Отказ".repeat(200) });
    expect(cyrillic.length).toBeLessThanOrEqual(1500);
    expect(size(cyrillic)).toBeGreaterThan(1500);
    await expect(parseCallback(cyrillic, { allowedAddresses: "any", maxBodyBytes: 1500 })).rejects.toMatchObject({ reason: "size" });
    expect(await parseCallback(cyrillic, { allowedAddresses: "any", maxBodyBytes: size(cyrillic) })).toMatchObject({ errMessage: "Отказ".repeat(200) });
    // More characters than a third of the limit, all ASCII: within it, and exactly at it.
    const ascii = callbackBody({ errMessage: "x".repeat(1000) });
    expect(await parseCallback(ascii, { allowedAddresses: "any", maxBodyBytes: ascii.length })).toMatchObject({ errMessage: "x".repeat(1000) });
    await expect(parseCallback(ascii, { allowedAddresses: "any", maxBodyBytes: ascii.length - 1 })).rejects.toMatchObject({ reason: "size" });
  });

  it("refuses by address: none given, or not allowed (an IPv4-mapped IPv6 address is the same address)", async () => {
    const shop = client({ callbacks: { allowedAddresses: ["35.157.105.64"], confirm: false } });
    const body = callbackBody();
    expect(await shop.callbacks.handle(body, { remoteAddress: "203.0.113.9" }, () => {})).toEqual({ status: 403, body: { accepted: false } });
    await expect(shop.callbacks.parse(body, { remoteAddress: "203.0.113.9" })).rejects.toMatchObject({ reason: "address" });
    await expect(shop.callbacks.parse(body, {})).rejects.toMatchObject({ reason: "address" });
    expect(await shop.callbacks.parse(body, { remoteAddress: "::ffff:35.157.105.64" })).toMatchObject({ id: "t-1" });
    expect((await shop.callbacks.handle("{", { remoteAddress: "35.157.105.64" }, () => {})).status).toBe(400);
  });

  it("confirmation by the status query is on by default: a forged 'paid' for an unpaid payment never reaches the function; confirm: false trusts it", async () => {
    const shop = client({ callbacks: { allowedAddresses: "any" } });
    const seen: CallbackEvent[] = [];
    const url = await callbackServer(shop, (e) => seen.push(e));
    const unpaid = await shop.payments.create({ amount: 1_000 });
    const forged = callbackBody({ id: unpaid.id, orderId: unpaid.orderId, amount: 1_000, status: 1 });
    expect(await deliver(url, forged)).toEqual({ status: 400, body: { accepted: false } });
    await expect(shop.callbacks.parse(forged)).rejects.toMatchObject({ reason: "unconfirmed" });
    // Another amount than the transaction's is not borne out either, once it is paid.
    sb.ecommerce.pay(unpaid.id, card());
    await expect(shop.callbacks.parse(callbackBody({ id: unpaid.id, orderId: unpaid.orderId, amount: 999_999 }))).rejects.toMatchObject({ reason: "unconfirmed" });
    expect(await deliver(url, forged)).toEqual({ status: 200, body: { accepted: true } });
    expect(seen.map((e) => e.id)).toEqual([unpaid.id]);

    const trusting = client({ callbacks: { allowedAddresses: "any", confirm: false } });
    const never = callbackBody({ id: "never-created", orderId: "never-created" });
    expect(await trusting.callbacks.parse(never)).toMatchObject({ id: "never-created" });
  });

  it("a status query that cannot be asked answers 503, so the gateway delivers again", async () => {
    const down = client({
      callbacks: { allowedAddresses: "any" },
      retry: { maxRetries: 0 },
      fetch: async () => {
        throw new TypeError("fetch failed: connect ECONNREFUSED");
      },
    });
    let processed = 0;
    expect(await down.callbacks.handle(callbackBody(), {}, () => processed++)).toEqual({ status: 503, body: { accepted: false } });
    await expect(down.callbacks.parse(callbackBody())).rejects.toMatchObject({ reason: "confirmation-failed", message: expect.stringContaining("ECONNREFUSED") });
    expect(processed).toBe(0);
  });

  it("the order's states: a 'paid' delivered late, after the refund, reaches the function flagged, and the order stays refunded", async () => {
    const store = new MemoryCallbackStore();
    const shop = client({ callbackStore: store });
    const seen: [number, Omit<CallbackContext, "signal">][] = [];
    let refunded = false;
    const callbackUrl = await callbackServer(shop, (e, context) => {
      // The shop's database is down for the "paid" callback until the refund came through.
      if (e.status === 1 && !refunded) throw new Error("database is down");
      if (e.status === 3) refunded = true;
      const { signal: _, ...where } = context; // the claim's signal: its own tests
      seen.push([e.status, where]);
    });
    const { id, orderId } = await shop.payments.create({ amount: 4_200, callbackUrl, customerData: { cardData: card() } });
    await vi.waitFor(() => expect(sb.ecommerce.transaction(id)?.deliveries.length).toBeGreaterThan(0));
    await shop.payments.cancel({ order_id: orderId });
    await vi.waitFor(() => expect(seen.map(([status]) => status)).toEqual([3, 1]));
    expect(seen[0]![1]).toEqual({ previousStatus: undefined, impossibleTransition: false, gatewayStatus: 3, superseded: false });
    expect(seen[1]![1]).toEqual({ previousStatus: 3, impossibleTransition: true, gatewayStatus: 3, superseded: true });
    expect(await store.orderStatus(`ecommerce ${sb.ecommerceUrl} ${defaultMerchant.login} ${orderId}`)).toBe(3);
  });

  it("a 'paid' delivered while its refund is still being processed is flagged superseded, from the gateway's own status", async () => {
    const shop = client({ callbacks: { allowedAddresses: "any" } });
    const { id, orderId } = await shop.payments.create({ amount: 4_300, customerData: { cardData: card() } });
    const paid = callbackBody({ id, orderId, amount: 4_300, status: 1 });
    const other = await shop.payments.create({ amount: 4_400, customerData: { cardData: card() } });
    // Before the refund: the gateway says paid, so the "paid" is the order's current state.
    const contexts: Omit<CallbackContext, "signal">[] = [];
    const record = (_e: CallbackEvent, { signal: _, ...where }: CallbackContext) => void contexts.push(where);
    expect((await shop.callbacks.handle(callbackBody({ id: other.id, orderId: other.orderId, amount: 4_400, status: 1 }), {}, record)).status).toBe(200);
    // The refund's callback is held in the merchant's function (or not delivered yet) when the
    // late "paid" comes: the store knows no later status, the gateway does.
    let releaseRefund!: () => void;
    const refundHeld = new Promise<void>((resolve) => (releaseRefund = resolve));
    await shop.payments.cancel({ order_id: orderId });
    const refund = shop.callbacks.handle(callbackBody({ id, orderId, amount: 4_300, status: 3 }), {}, async (e, c) => {
      await refundHeld;
      record(e, c);
    });
    expect(await shop.callbacks.handle(paid, {}, record)).toEqual({ status: 200, body: { accepted: true } });
    releaseRefund();
    expect((await refund).status).toBe(200);
    expect(contexts).toEqual([
      { previousStatus: undefined, impossibleTransition: false, gatewayStatus: 1, superseded: false },
      { previousStatus: undefined, impossibleTransition: false, gatewayStatus: 3, superseded: true },
      { previousStatus: undefined, impossibleTransition: false, gatewayStatus: 3, superseded: false },
    ]);
    // Without confirmation the gateway is not asked: nothing is known, nothing flagged.
    const unasked = client({ callbacks: { allowedAddresses: "any", confirm: false } });
    await unasked.callbacks.handle(paid, {}, record);
    expect(contexts[3]).toEqual({ previousStatus: undefined, impossibleTransition: false, gatewayStatus: undefined, superseded: false });
  });

  it("the order's states by hand: blocked, paid, refunded follow each other; a second 'blocked' after the payment is flagged", async () => {
    const shop = client({ callbacks: { allowedAddresses: "any", confirm: false } });
    const contexts: Omit<CallbackContext, "signal">[] = [];
    const receive = (status: number) => shop.callbacks.handle(callbackBody({ id: "hold-1", orderId: "hold-order", status }), {}, (_e, { signal: _, ...c }) => contexts.push(c));
    for (const status of [2, 1, 2, 3, 31]) expect((await receive(status)).status).toBe(200);
    // The second 2 is the same event as the first: acknowledged as a duplicate, without the function.
    expect(contexts).toEqual([
      { previousStatus: undefined, impossibleTransition: false, gatewayStatus: undefined, superseded: false },
      { previousStatus: 2, impossibleTransition: false, gatewayStatus: undefined, superseded: false },
      { previousStatus: 1, impossibleTransition: false, gatewayStatus: undefined, superseded: false },
      // An unknown status is never judged.
      { previousStatus: 3, impossibleTransition: false, gatewayStatus: undefined, superseded: false },
    ]);
    const other = client({ callbacks: { allowedAddresses: "any", confirm: false } });
    const flagged: Omit<CallbackContext, "signal">[] = [];
    for (const status of [1, 2]) await other.callbacks.handle(callbackBody({ id: "p-9", orderId: "paid-order", status }), {}, (_e, { signal: _, ...c }) => flagged.push(c));
    expect(flagged[1]).toEqual({ previousStatus: 1, impossibleTransition: true, gatewayStatus: undefined, superseded: false });
  });

  it("parseCallback without a client: the spec's source address by default, a typed event or a typed refusal", async () => {
    expect(callbackSources).toEqual(["35.157.105.64"]);
    const body = callbackBody({ id: "p-1", orderId: "o-1", amount: 100 });
    expect(await parseCallback(body, { remoteAddress: "35.157.105.64" })).toEqual(JSON.parse(body));
    await expect(parseCallback(body, { remoteAddress: "127.0.0.1" })).rejects.toMatchObject({ name: "CallbackRefusedError", reason: "address" });
    expect(await parseCallback(body, { remoteAddress: "127.0.0.1", allowedAddresses: ["127.0.0.1"] })).toMatchObject({ id: "p-1" });
    await expect(parseCallback(callbackBody({ amount: 1.5 }), { allowedAddresses: "any" })).rejects.toMatchObject({ reason: "body" });
  });

  it("the web-standard handler (Request → Response) acknowledges after processing, once", async () => {
    const shop = client({ callbacks: { allowedAddresses: "any", confirm: false } });
    const seen: string[] = [];
    const handler = shop.callbacks.fetchHandler((e) => {
      seen.push(`${e.id}:${e.status}`);
    });
    const request = () => new Request("https://shop.example/callbacks", { method: "POST", body: callbackBody({ id: "web-1" }) });
    const first = await handler(request());
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ accepted: true });
    expect(await (await handler(request())).json()).toEqual({ accepted: true });
    expect(seen).toEqual(["web-1:1"]);
  });

  it("two deliveries of one event at the same moment: one processes, the other is told to come back (409) until it is done", async () => {
    const shop = client({ callbacks: { allowedAddresses: "any", confirm: false } });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let processed = 0;
    const body = callbackBody({ id: "same-1" });
    const first = shop.callbacks.handle(body, {}, async () => {
      await gate;
      processed++;
    });
    const second = await shop.callbacks.handle(body, {}, () => {
      processed++;
    });
    expect(second).toEqual({ status: 409, body: { accepted: false } });
    release();
    expect(await first).toEqual({ status: 200, body: { accepted: true } });
    expect(await shop.callbacks.handle(body, {}, () => processed++)).toEqual({ status: 200, body: { accepted: true } });
    expect(processed).toBe(1);
  });

  it("a delivery processed for longer than the lease keeps its claim: another delivery meanwhile is told to come back, and the event is processed once", async () => {
    const shop = client({ callbacks: { allowedAddresses: "any", confirm: false, leaseMs: 300 } });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    let processed = 0;
    let aborted = false;
    const body = callbackBody({ id: "slow-1" });
    const first = shop.callbacks.handle(body, {}, async (_event, { signal }) => {
      await sleep(1_000); // three leases and more: a slow ERP, say
      aborted = signal.aborted;
      processed++;
    });
    await sleep(700);
    expect(await shop.callbacks.handle(body, {}, () => processed++)).toEqual({ status: 409, body: { accepted: false } });
    expect(await first).toEqual({ status: 200, body: { accepted: true } });
    expect({ processed, aborted }).toEqual({ processed: 1, aborted: false });
  });

  it("a claim lost while processing (the store will not renew it) aborts the function's signal, and the logger is told", async () => {
    const store = new MemoryCallbackStore();
    const lapsing: CallbackStore = {
      claim: (key, _lease, token) => store.claim(key, 100, token),
      renew: async () => false, // as a store answers once another delivery took the event over
      complete: (key) => store.complete(key),
      release: (key, token) => store.release(key, token),
      orderStatus: (orderId) => store.orderStatus(orderId),
      recordOrderStatus: (orderId, status, expected) => store.recordOrderStatus(orderId, status, expected),
    };
    const events: LogEvent[] = [];
    const shop = client({ callbackStore: lapsing, callbacks: { allowedAddresses: "any", confirm: false, leaseMs: 150 }, logger: (e) => events.push(e) });
    let reason: unknown;
    const answer = await shop.callbacks.handle(callbackBody({ id: "lost-1" }), {}, async (_event, { signal }) => {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      reason = signal.aborted;
    });
    expect(reason).toBe(true);
    expect(answer.status).toBe(200); // processed: acknowledged all the same
    expect(events).toContainEqual({
      type: "error",
      operation: "callbacks.handle",
      error: { name: "CallbackClaimLost", message: expect.stringContaining("another delivery may process it too") },
    });
  });

  it("an event processed whose completion the store cannot record is still acknowledged, and the logger is told", async () => {
    const store = new MemoryCallbackStore();
    let failComplete = true;
    const flaky: CallbackStore = {
      claim: (key, lease, token) => store.claim(key, lease, token),
      renew: (key, lease, token) => store.renew(key, lease, token),
      complete(key) {
        if (!failComplete) return store.complete(key);
        failComplete = false;
        throw new Error("database unavailable");
      },
      release: (key, token) => store.release(key, token),
      orderStatus: (orderId) => store.orderStatus(orderId),
      recordOrderStatus: (orderId, status, expected) => store.recordOrderStatus(orderId, status, expected),
    };
    const events: LogEvent[] = [];
    const shop = client({ callbackStore: flaky, callbacks: { allowedAddresses: "any", confirm: false }, logger: (e) => events.push(e) });
    let processed = 0;
    const body = callbackBody({ id: "flaky-1" });
    // A refusal would bring the event back, and once the lease ran out it would be processed twice.
    expect(await shop.callbacks.handle(body, {}, () => processed++)).toEqual({ status: 200, body: { accepted: true } });
    expect(processed).toBe(1);
    expect(events).toContainEqual({
      type: "error",
      operation: "callbacks.handle",
      error: { name: "CallbackStoreError", message: expect.stringContaining("database unavailable") },
    });
    // A delivery again while the claim's lease holds is not processed.
    expect((await shop.callbacks.handle(body, {}, () => processed++)).body.accepted).toBe(false);
    expect(processed).toBe(1);
  });

  it("a custom store (as over a database) is used for every claim and the order's status; a store shared by two clients processes an event once", async () => {
    const store = new MemoryCallbackStore();
    const calls: string[] = [];
    const recording: CallbackStore = {
      claim(key, lease, token) {
        calls.push(`claim ${key}`);
        return store.claim(key, lease, token);
      },
      renew(key, lease, token) {
        calls.push(`renew ${key}`);
        return store.renew(key, lease, token);
      },
      complete(key) {
        calls.push(`complete ${key}`);
        return store.complete(key);
      },
      release(key, token) {
        calls.push(`release ${key}`);
        return store.release(key, token);
      },
      orderStatus(orderId) {
        calls.push(`orderStatus ${orderId}`);
        return store.orderStatus(orderId);
      },
      recordOrderStatus(orderId, status, expected) {
        calls.push(`recordOrderStatus ${orderId} ${status} ${expected}`);
        return store.recordOrderStatus(orderId, status, expected);
      },
    };
    const a = client({ callbackStore: recording, callbacks: { allowedAddresses: "any", confirm: false } });
    const b = client({ callbackStore: recording, callbacks: { allowedAddresses: "any", confirm: false } });
    let processed = 0;
    const body = callbackBody({ id: "db-1", orderId: "db-order" });
    await a.callbacks.handle(body, {}, () => processed++);
    await b.callbacks.handle(body, {}, () => processed++);
    expect(processed).toBe(1);
    // Keys and orders go under the gateway and the merchant (two merchants sharing the store never meet).
    const under = `ecommerce ${sb.ecommerceUrl} ${defaultMerchant.login}`;
    const key = `${under} order db-order:1`;
    expect(calls).toEqual([`claim ${key}`, `orderStatus ${under} db-order`, `complete ${key}`, `recordOrderStatus ${under} db-order 1 undefined`, `claim ${key}`]);
  });
});

describe("e-commerce: callbackUrl", () => {
  it("must be absolute: a relative or schemeless address is refused before sending, naming /callbackUrl and never the address", async () => {
    const requests = sb.ecommerce.stats.requests;
    for (const validateRequests of [true, false]) {
      const shop = client({ validateRequests });
      for (const callbackUrl of ["/callbacks", "shop.example/callbacks", "ftp://shop.example/callbacks", "https://"]) {
        const error = await shop.payments.create({ amount: 1_000, callbackUrl }).catch((e) => e);
        expect(error, callbackUrl).toBeInstanceOf(RequestValidationError);
        expect(error.issues).toEqual([{ path: "/callbackUrl", message: expect.stringContaining("absolute http or https address") }]);
      }
      const secret = await shop.payments.create({ amount: 1_000, callbackUrl: "user:S3cret-Pass@shop.example/cb" }).catch((e) => e);
      expect(secret.message).not.toContain("S3cret-Pass");
    }
    expect(sb.ecommerce.stats.requests).toBe(requests);
    expect(await client().payments.create({ amount: 1_000, callbackUrl: "https://shop.example/callbacks" })).toHaveProperty("id");
  });
});

describe("e-commerce: secrets", () => {
  it("no PAN, CVV, cryptogram, card token or password in any log line, error or console output", async () => {
    const lines: string[] = [];
    const log = (e: LogEvent) => lines.push(JSON.stringify(e));
    const consoleSpies = (["log", "info", "warn", "error", "debug"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args) => lines.push(args.map((a) => inspect(a)).join(" "))),
    );
    const password = defaultMerchant.password;
    const wrongPassword = "Wr0ng-Merchant-Pass-9";
    const cvv = "731";
    const shop = client({ logger: log, retry: { maxRetries: 1, baseDelayMs: 1 } });
    const phone = "77770005566";
    const events: CallbackEvent[] = [];
    const callbackUrl = await callbackServer(shop, (e) => events.push(e));
    const errors: unknown[] = [];
    const capture = (p: Promise<unknown>) => p.catch((e) => errors.push(e));

    const cryptogram = await shop.encryptCard({ ...card(), cvv });
    await shop.payments.create({ amount: 1_000, callbackUrl, tokenization: true, customerData: { phone, cardData: cryptogram } });
    await vi.waitFor(() => expect(events).toHaveLength(1));
    const token = events[0]!.cardToken!;
    await shop.cardTokens.list({ phone });
    await shop.payments.create({ amount: 1_000, customerData: { phone, cardToken: token } });
    await capture(shop.payments.create({ amount: 1.5, customerData: { cardData: cryptogram, cardToken: token } }));
    await capture(shop.payments.create({ amount: 1_000, customerData: { cardData: { pan: TestCards.success, month: 1, year: 2001, cvv } } }));
    await capture(client({ logger: log, password: wrongPassword }).payments.create({ amount: 1_000, customerData: { cardData: cryptogram } }));
    await capture(shop.payments.create({ amount: 1_000, customerData: { cardData: "bm90LWEtY3J5cHRvZ3JhbQ==" } }));
    await capture(
      client({ logger: log, retry: { maxRetries: 1, baseDelayMs: 1 }, fetch: async () => Promise.reject(new TypeError("fetch failed")) }).cardTokens.remove({ id: token }),
    );
    await shop.cardTokens.remove({ id: token });
    for (const s of consoleSpies) s.mockRestore();

    expect(errors).toHaveLength(5);
    const text = [...lines, ...errors.flatMap((e) => [String((e as Error).message), (e as Error).stack ?? "", JSON.stringify(e), inspect(e, { depth: 5 })])].join("\n");
    expect(lines.length).toBeGreaterThan(10);
    // The CVV as a value (a bare "731" could be part of any number, a port or a duration).
    expect(text).not.toMatch(/"731"|cvv\W+731/i);
    for (const secret of [TestCards.success, cryptogram, token, password, wrongPassword, Buffer.from(`${defaultMerchant.login}:${password}`).toString("base64")]) {
      expect(text).not.toContain(secret);
    }
  });
});
