// A call reads its own copy of its parameters and options, taken when it is made (core's
// snapshot.ts): what the caller does with its objects afterwards, or a getter that answers
// differently on each read, changes nothing that is checked, journaled or sent. Each case here once
// sent other money than was asked (found by a hostile probe): a payout to A changed to B before the
// client had loaded paid B twice; a reused options object journaled one payout under another's key.
import { createCashoutClient } from "@paysys/cashout";
import { MemoryStore, OutcomeUnknownError, RequestValidationError } from "@paysys/core";
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

const sent: { url: string; body: string }[] = [];
const recFetch = async (url: string, init: RequestInit) => {
  sent.push({ url, body: typeof init.body === "string" ? init.body : init.body ? new TextDecoder().decode(init.body as Uint8Array) : "" });
  return globalThis.fetch(url, init);
};

describe("one params object reused for two calls, changed between them (no await)", () => {
  for (const loaded of [false, true]) {
    it(`cash-out: two payouts, to A 10 and to B 20 (client ${loaded ? "already loaded" : "not loaded yet"})`, async () => {
      const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), maxAmount: { value: 100, at: "/amount" } });
      if (loaded) await c.requests.create({ amount: 1, account: "77770000009" });
      const before = sb.cashout.storedBodies().length;
      const req = { amount: 10, account: "77770000001" };
      const p1 = c.requests.create(req);
      req.amount = 20;
      req.account = "77770000002";
      const p2 = c.requests.create(req);
      await Promise.all([p1, p2]);
      expect(sb.cashout.storedBodies().slice(before)).toEqual([
        { amount: 10, account: "77770000001" },
        { amount: 20, account: "77770000002" },
      ]);
    });
  }

  it("cash-out: amount raised above maxAmount right after the call (call made with 1)", async () => {
    const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), maxAmount: { value: 100, at: "/amount" } });
    const req = { amount: 1, account: "77770000001" };
    const p1 = c.requests.create(req);
    req.amount = 1e9;
    const r = await p1.catch((e: unknown) => e);
    expect(r).not.toBeInstanceOf(Error);
  });

  it("fiscal cash-in: 100 then 999 on one object", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), fetch: recFetch });
    await fiscal.shifts.open({ IdKkm: 101 }).catch(() => undefined);
    const before = sent.length;
    const p = { idKkm: 101, Amount: 100 };
    const a = fiscal.operations.cashIn(p);
    p.Amount = 999;
    const b = fiscal.operations.cashIn(p);
    expect((await Promise.allSettled([a, b])).map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/incomes"))
      .map((s) => s.body);
    expect(bodies).toEqual(['{"Amount":100}', '{"Amount":999}']);
  });

  it("fiscal sale: first call of the operation (validators load), positions changed after", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), fetch: recFetch });
    await fiscal.shifts.open({ IdKkm: 102 }).catch(() => undefined);
    await fiscal.operations.cashIn({ idKkm: 102, Amount: 1 });
    const before = sent.length;
    const receipt = { idKkm: 102, IdDomain: 1, Positions: [{ Name: "Tea", IdSection: 1, Price: 250, Qty: 2 }], Total: 500, Cash: 500 };
    const a = fiscal.operations.sale(receipt);
    receipt.Positions[0]!.Name = "Gold";
    await a;
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/sales"))
      .map((s) => s.body);
    expect(bodies.join("")).toContain('"Name":"Tea"');
  });

  it("ecommerce: customerData changed while the card is encrypted", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), fetch: recFetch });
    await shop.encryptCard({ pan: TestCards.success, month: 12, year: 2031, cvv: "123" }); // key loaded
    await shop.payments.create({ amount: 1 }); // validators loaded
    const customerData: Record<string, unknown> = { email: "a@b.kz", cardData: { pan: TestCards.success, month: 12, year: 2031, cvv: "123" } };
    const metadata: Record<string, unknown> = { order: "A" };
    const before = sent.length;
    const p = shop.payments.create({ amount: 1000, customerData, metadata } as never);
    customerData.email = "other@evil.kz";
    metadata.order = "B";
    await p;
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/payment/create"))
      .map((s) => s.body);
    expect(bodies.join("")).toContain('"order":"A"');
    expect(bodies.join("")).toContain('"email":"a@b.kz"');
  });

  it("ecommerce: misspelt card key added while the card is encrypted", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), fetch: recFetch });
    await shop.encryptCard({ pan: TestCards.success, month: 12, year: 2031, cvv: "123" });
    await shop.payments.create({ amount: 1 });
    const metadata: Record<string, unknown> = { order: "A" };
    const customerData: Record<string, unknown> = { cardData: { pan: TestCards.success, month: 12, year: 2031, cvv: "123" } };
    const before = sent.length;
    const p = shop.payments.create({ amount: 1000, customerData, metadata } as never);
    metadata.ref = TestCards.success;
    await p;
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/payment/create"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain(TestCards.success);
  });
});

const inJson = () => new Error().stack!.includes("JSON.stringify");

describe("fiscal sale: a getter that answers differently inside JSON.stringify", () => {
  it("Qty: checks see 2 (500 total), the wire gets 2000", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), fetch: recFetch });
    await fiscal.shifts.open({ IdKkm: 101 }).catch(() => undefined);
    const pos = {
      Name: "Tea",
      IdSection: 1,
      Price: 250,
      get Qty() {
        return inJson() ? 2000 : 2;
      },
    };
    Object.defineProperty(pos, "Qty", { enumerable: true });
    const before = sent.length;
    await fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions: [pos], Total: 500, Cash: 500 });
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/sales"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain('"Qty":2000');
  });

  it("Total via counted reads (no stack trick): the last read differs", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), fetch: recFetch });
    await fiscal.shifts.open({ IdKkm: 102 }).catch(() => undefined);
    // count reads with a constant getter first
    let n = 0;
    const mk = (limit: number) => {
      n = 0;
      const pos = { Name: "Tea", IdSection: 1, Price: 250, Qty: 0 };
      Object.defineProperty(pos, "Qty", { enumerable: true, get: () => (++n > limit ? 2000 : 2) });
      return pos;
    };
    await fiscal.operations.sale({ idKkm: 102, IdDomain: 1, Positions: [mk(1e9)], Total: 500, Cash: 500 });
    const reads = n;
    expect(reads).toBe(1);
    const before = sent.length;
    await fiscal.operations.sale({ idKkm: 102, IdDomain: 1, Positions: [mk(reads - 1)], Total: 500, Cash: 500 }).catch((e: unknown) => e);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/sales"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain('"Qty":2000');
  });
});

describe("cashout: nested / proxy", () => {
  it("Proxy params: amount 1 while checked, 1e9 on the wire (maxAmount 100)", async () => {
    const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), maxAmount: { value: 100, at: "/amount" }, fetch: recFetch });
    const target = { amount: 1, account: "77771112233" };
    const p = new Proxy(target, { get: (t, k, r) => (k === "amount" && inJson() ? 1e9 : Reflect.get(t, k, r)) });
    const before = sent.length;
    await c.requests.create(p as never);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("cash-out-request"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain("1000000000");
  });
  it("getter top-level amount with stack trick", async () => {
    const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore(), maxAmount: { value: 100, at: "/amount" }, fetch: recFetch });
    const params = { account: "77771112233" } as Record<string, unknown>;
    Object.defineProperty(params, "amount", { enumerable: true, get: () => (inJson() ? 1e9 : 1) });
    const before = sent.length;
    await c.requests.create(params as never);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("cash-out-request"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain("1000000000");
  });
  it("maxAmount at a nested pointer, nested getter", async () => {
    const c = createCashoutClient({
      baseUrl: sb.cashoutUrl,
      credentials: cashoutCredentials,
      store: new MemoryStore(),
      maxAmount: { value: 100, at: "/payment/amount" },
      fetch: recFetch,
    });
    const payment = {} as Record<string, unknown>;
    Object.defineProperty(payment, "amount", { enumerable: true, get: () => (inJson() ? 1e9 : 1) });
    const before = sent.length;
    await c.requests.create({ payment } as never);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("cash-out-request"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain("1000000000");
  });
});

describe("ecommerce: nested getters", () => {
  it("customerData getter card number in clear at stringify time (field email)", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), fetch: recFetch });
    const customerData = {} as Record<string, unknown>;
    Object.defineProperty(customerData, "email", { enumerable: true, get: () => (inJson() ? `${TestCards.success}@x.kz` : "a@b.kz") });
    const metadata = {} as Record<string, unknown>;
    Object.defineProperty(metadata, "note", { enumerable: true, get: () => (inJson() ? TestCards.success : "hello") });
    const before = sent.length;
    await shop.payments.create({ amount: 1000, customerData, metadata } as never);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/payment/create"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain(TestCards.success);
  });
  it("amount nested? metadata amount; top-level amount getter", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), fetch: recFetch });
    const params = {} as Record<string, unknown>;
    Object.defineProperty(params, "amount", { enumerable: true, get: () => (inJson() ? -5 : 1000) });
    const before = sent.length;
    await shop.payments.create(params as never);
    const bodies = sent
      .slice(before)
      .filter((s) => s.url.includes("/payment/create"))
      .map((s) => s.body);
    expect(bodies.join("")).not.toContain('"amount":-5');
  });
});

describe("one options object reused, its key changed between calls", () => {
  it("one options object, its idempotencyKey changed between two calls: each call journaled under its own key", async () => {
    const store = new MemoryStore();
    const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store });
    const before = sb.cashout.storedBodies().length;
    const opts = { idempotencyKey: "payout-order-1" };
    const p1 = c.requests.create({ amount: 10, account: "77770000001" }, opts);
    opts.idempotencyKey = "payout-order-2";
    const p2 = c.requests.create({ amount: 20, account: "77770000002" }, opts);
    expect((await Promise.allSettled([p1, p2])).map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    expect(await c.journal.get({ operation: "requests.create", key: "payout-order-1" })).toBeDefined();
    expect(await c.journal.get({ operation: "requests.create", key: "payout-order-2" })).toBeDefined();
    // Order 1 asked again under its own key, as a caller unsure of it would: it is not sent again.
    await c.requests.create({ amount: 10, account: "77770000001" }, { idempotencyKey: "payout-order-1" }).catch(() => undefined);
    // order 1 must have been paid out once
    expect(
      sb.cashout
        .storedBodies()
        .slice(before)
        .filter((b) => (b as { account: string }).account === "77770000001"),
    ).toHaveLength(1);
  });

  it("warm client, card payment, options object's idempotencyKey changed after the call", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "123" };
    await shop.payments.create({ amount: 1, customerData: { cardData: card } }); // key and validators loaded
    const opts = { idempotencyKey: "order-1" };
    const p1 = shop.payments.create({ amount: 100, orderId: "order-1", customerData: { cardData: card } }, opts);
    opts.idempotencyKey = "order-2";
    await p1;
    expect(await shop.journal.get({ operation: "payments.create", key: "order-1" })).toBeDefined();
    expect(await shop.journal.get({ operation: "payments.create", key: "order-2" })).toBeUndefined();
  });
});

describe("the journal's methods on a client not loaded yet", () => {
  it("take the OutcomeUnknownError itself as the reference (its toJSON has no key), read before the client loads", async () => {
    const store = new MemoryStore();
    const lost = createCashoutClient({
      baseUrl: sb.cashoutUrl,
      credentials: cashoutCredentials,
      store,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (String(url).endsWith("/cash-out-request")) throw new TypeError("fetch failed: socket hang up");
        return response;
      },
    });
    const error = (await lost.requests.create({ amount: 7 }, { idempotencyKey: "payout-lost-1" }).catch((e) => e)) as OutcomeUnknownError;
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    const fresh = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store });
    const ref = { operation: error.operation!, key: error.key! };
    const record = fresh.journal.get(ref);
    ref.key = "another-key";
    expect(await record).toMatchObject({ key: "payout-lost-1", state: "pending" });
    const again = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store });
    expect(await again.journal.get(error as { operation: string; key: string })).toMatchObject({ key: "payout-lost-1" });
  });

  it("a Headers object as the headers option is refused as before, not copied to nothing", async () => {
    const c = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() });
    await expect(c.requests.create({ amount: 1 }, { headers: new Headers({ "x-a": "1" }) as never })).rejects.toBeInstanceOf(RequestValidationError);
  });
});
