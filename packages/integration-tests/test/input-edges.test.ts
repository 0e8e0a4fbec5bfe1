// Input that the spec's schema lets through but that cannot be sent as it was checked: a header
// value with a line break (the HTTP stack refused it after the journal's intent, leaving a payout
// "perhaps sent" that never was), a lone surrogate (the payment was made, then its status could never
// be asked), a value the checks saw but JSON drops (non-enumerable), and card objects with a field
// misspelt (left out of the cryptogram, or a payment card read as a payout's).
import { createCashoutClient } from "@paysys/cashout";
import { ConfigurationError, MemoryStore, RequestValidationError } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const sent: { url: string; body: string; headers: unknown }[] = [];
const recFetch = async (url: string, init: RequestInit) => {
  sent.push({ url, headers: init.headers, body: typeof init.body === "string" ? init.body : init.body ? new TextDecoder().decode(init.body as Uint8Array) : "" });
  return globalThis.fetch(url, init);
};

describe("cash-out Accept parameter (a header) with a line break", () => {
  for (const accept of ["application/json\r\n;X-Evil: 1", "application/json\n;x", "application/json ;\u0000", "application/json ;\u0001", "application/json ;€"]) {
    it(JSON.stringify(accept), async () => {
      const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() });
      await c.requests.create({ amount: 1 });
      const before = sb.cashout.storedBodies().length;
      const r = await c.requests.create({ amount: 1, Accept: accept } as never).catch((e: unknown) => e);
      expect(r).toBeInstanceOf(RequestValidationError);
      expect(sb.cashout.storedBodies().length).toBe(before);
      expect(await c.journal.pending()).toEqual([]);
    });
  }
});

describe("a headers option HTTP cannot carry", () => {
  for (const value of ["a\u0001b", "a\u007fb", "price €"]) {
    it(`${JSON.stringify(value)}: refused before the journal, nothing sent`, async () => {
      const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() });
      const before = sb.cashout.storedBodies().length;
      await expect(c.requests.create({ amount: 1 }, { headers: { "x-note": value } })).rejects.toBeInstanceOf(RequestValidationError);
      expect(sb.cashout.storedBodies().length).toBe(before);
      expect(await c.journal.pending()).toEqual([]);
    });
  }
});

describe("a header the HTTP stack sets itself (framing, connection, host), given by a caller", () => {
  // `transfer-encoding: chunked` beside the stack's `content-length` is the shape of request
  // smuggling; `host` sends a payment to another virtual host than its address; `upgrade` and
  // `connection` speak to a proxy on the way. Each is refused where it was given, nothing sent.
  const names = ["Transfer-Encoding", "content-length", "Host", "connection", "upgrade", "te", "expect", "keep-alive"];
  const client = (extra: object = {}) => createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), ...extra });

  for (const name of names)
    it(`per call, ${name}: a RequestValidationError at (options)/headers/${name}, before the journal`, async () => {
      const c = client();
      await c.requests.create({ amount: 1 });
      const before = sb.cashout.storedBodies().length;
      const e = await c.requests.create({ amount: 1 }, { headers: { [name]: "chunked" } }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RequestValidationError);
      expect((e as RequestValidationError).issues.map((i) => i.path)).toEqual([`(options)/headers/${name}`]);
      expect(sb.cashout.storedBodies().length).toBe(before);
      expect(await c.journal.pending()).toEqual([]);
    });

  it("in the client's options: a ConfigurationError at construction, naming the header", () => {
    expect(() => client({ headers: { "Transfer-Encoding": "chunked" } })).toThrow(ConfigurationError);
    expect(() => client({ headers: { "Transfer-Encoding": "chunked" } })).toThrow(/\/headers\/Transfer-Encoding is set by the HTTP stack/);
    expect(() => createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, headers: { host: "other.example" } })).toThrow(
      /\/headers\/host is set by the HTTP stack/,
    );
  });

  it("added by a beforeRequest hook: a ConfigurationError naming the hook, nothing sent, nothing pending", async () => {
    const c = client({
      hooks: {
        beforeRequest: ({ request }: { request: Request }) => {
          const headers = new Headers(request.headers);
          headers.set("connection", "upgrade");
          return new Request(request, { headers });
        },
      },
    });
    const before = sb.cashout.stats.requests;
    const e = await c.requests.create({ amount: 1 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigurationError);
    expect((e as Error).message).toMatch(/beforeRequest hook's request has the header connection.*nothing was sent/);
    expect(sb.cashout.stats.requests).toBe(before);
    expect(await c.journal.pending()).toEqual([]);
  });

  it("through raw: a RequestValidationError at (options)/headers/…, nothing sent", async () => {
    const c = client();
    await c.requests.create({ amount: 1 });
    const before = sb.cashout.storedBodies().length;
    const raw = c.raw as unknown as { POST(path: string, init: object): Promise<unknown> };
    const e = await raw.POST("/cash-out-request", { body: { amount: 1 }, headers: { "transfer-encoding": "chunked" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect((e as RequestValidationError).issues[0]?.path).toBe("(options)/headers/transfer-encoding");
    expect(sb.cashout.storedBodies().length).toBe(before);
  });
});

describe("lone surrogates in a query-bound value", () => {
  it("payments.status orderid '\\ud800': refused by name (it was a raw URIError)", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const r = await shop.payments.status({ orderid: "a\ud800" }).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(RequestValidationError);
  });
});

describe("non-enumerable parameters: checked, then not sent", () => {
  it("fiscal sale with a non-enumerable Cash", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), fetch: recFetch });
    await fiscal.shifts.open({ IdKkm: 103 }).catch(() => undefined);
    const params: Record<string, unknown> = { idKkm: 103, IdDomain: 1, Positions: [{ Name: "Tea", IdSection: 1, Price: 250, Qty: 2 }], Total: 500 };
    Object.defineProperty(params, "Cash", { value: 500, enumerable: false });
    const before = sent.length;
    const r = await fiscal.operations.sale(params as never).catch((e: unknown) => e);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/sales"))
      .map((s) => s.body);
    expect(r).toBeInstanceOf(RequestValidationError);
    expect(bodies).toEqual([]);
  });
  it("cash-out with a non-enumerable amount (maxAmount checks it) and an enumerable Amount", async () => {
    const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), maxAmount: { value: 100, at: "/amount" }, fetch: recFetch });
    const params: Record<string, unknown> = { Amount: 1e9, account: "7777" };
    Object.defineProperty(params, "amount", { value: 1, enumerable: false });
    const before = sb.cashout.storedBodies().length;
    const r = await c.requests.create(params as never).catch((e: unknown) => e);
    expect(r).toBeInstanceOf(RequestValidationError);
    expect(sb.cashout.storedBodies().length).toBe(before);
  });
  it("ecommerce: nested non-enumerable customerData field with a card number", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), fetch: recFetch });
    const metadata: Record<string, unknown> = { a: 1 };
    Object.defineProperty(metadata, "pan", { value: TestCards.success, enumerable: false });
    const before = sent.length;
    await shop.payments.create({ amount: 1, metadata } as never);
    expect(
      sent
        .slice(before)
        .map((s) => s.body)
        .join(""),
    ).not.toContain(TestCards.success);
  });
});

describe("card objects as cardData with extra or misspelt keys: refused, nothing sent", () => {
  const base = { pan: TestCards.success, month: 12, year: 2031, cvv: "123" };
  for (const [label, card] of [
    ["cardholder misspelt", { ...base, cardholdr: "IVAN IVANOV" }],
    ["cvv misspelt as cvc, no month/year (reads as a payout card)", { pan: TestCards.success, cvc: "123" }],
    ["cvv misspelt as cvc2", { pan: TestCards.success, month: 12, year: 2031, cvc2: "123" }],
    ["unknown key with the pan", { ...base, pan2: TestCards.success }],
    ["ip with newline", { ...base, ip: "1.2.3.4\r\nX: y" }],
    ["cardholder too long for one RSA-OAEP block", { ...base, cardholder: "Ж".repeat(60) }],
    ["__proto__ key carrying cvv", JSON.parse(`{"pan":"${TestCards.success}","month":12,"year":2031,"__proto__":{"cvv":"123"}}`)],
  ] as const) {
    it(`payments.create with card ${label}`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), fetch: recFetch });
      const before = sent.length;
      const r = await shop.payments.create({ amount: 1000, customerData: { cardData: card } } as never).catch((e: unknown) => e);
      const bodies = sent
        .slice(before)
        .filter((s) => s.url.includes("/payment/create"))
        .map((s) => s.body.replace(/"cardData":"[^"]+"/, '"cardData":"…"'));
      expect(r, label).toBeInstanceOf(RequestValidationError);
      expect((r as Error).message).not.toContain(TestCards.success);
      expect(bodies).toEqual([]);
    });
  }
});

it("a lone surrogate in an order id: refused before the payment is made, and by the status query by name", async () => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
  const r = await shop.payments.create({ amount: 100, orderId: "ord-\udc00" }).catch((e: unknown) => e);
  expect(r).toBeInstanceOf(RequestValidationError);
  expect((r as Error).message).toContain("/orderId is not well-formed Unicode");
  expect(sb.ecommerce.transactionOf(merchant.merchantId, "ord-\udc00")).toBeUndefined();
  await expect(shop.payments.reconcile("ord-\udc00")).rejects.toBeInstanceOf(RequestValidationError);
});
