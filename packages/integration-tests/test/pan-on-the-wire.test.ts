// A card number a caller misplaces never reaches the service: in a call's or a client's header, or
// written inside free text in the parts of a request the card guard searches (e-commerce
// `metadata`, a cash-out body, `extraParams`). Once the guard refused a value only when the whole
// value was a card number, and headers were not searched (found by a hostile probe).
import { createCashoutClient } from "@paysys/cashout";
import { createEcommerceClient } from "@paysys/ecommerce";
import { ConfigurationError, createFiscalClient, RequestValidationError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";

const PAN = "4111111111111111";
let sb: Sandbox;
const wire: string[] = [];
const fetch = async (url: string, init: RequestInit) => {
  wire.push(`${url} ${JSON.stringify(init.headers ?? {})} ${String(init.body ?? "")}`);
  return globalThis.fetch(url, init);
};
beforeAll(async () => {
  sb = await startSandbox();
  await using opener = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, lease: { lingerMs: 0 } });
  await opener.shifts.open({ IdKkm: 101 });
});
afterAll(() => sb.close());

/** Runs the call; answers what of the card number reached the wire (nothing, when it was refused). */
async function onTheWire(call: () => Promise<unknown>): Promise<string[]> {
  wire.length = 0;
  await call().catch(() => undefined);
  return wire.filter((w) => w.replace(/[\s-]/g, "").includes(PAN));
}

const shop = () => createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, fetch, telemetry: false });
const cashout = () => createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, fetch, telemetry: false });
const sale = { idKkm: 101, IdDomain: 1, Positions: [{ Name: "x", IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" };

describe("a card number in a header", () => {
  it("e-commerce payments.create, a call header X-Card-Number", async () => {
    expect(await onTheWire(() => shop().payments.create({ amount: 100, orderId: "probe-h1" }, { headers: { "X-Card-Number": PAN } }))).toEqual([]);
  });
  it("cash-out requests.create, a call header", async () => {
    expect(await onTheWire(() => cashout().requests.create({ amount: 1 }, { headers: { "X-Pan": PAN } }))).toEqual([]);
  });
  it("fiscal sale, a client header", async () => {
    await using fiscal = createFiscalClient({
      baseUrl: sb.fiscalUrl,
      credentials: fiscalCredentials,
      fetch,
      telemetry: false,
      headers: { "X-Card": `${PAN.slice(0, 4)} ${PAN.slice(4, 8)} ${PAN.slice(8, 12)} ${PAN.slice(12)}` },
    });
    expect(await onTheWire(() => fiscal.operations.sale(sale))).toEqual([]);
  });
});

describe("a card number inside free text where the guard searches", () => {
  it("e-commerce metadata { note: 'paid with <PAN>' }", async () => {
    expect(await onTheWire(() => shop().payments.create({ amount: 100, orderId: "probe-t1", metadata: { note: `paid with ${PAN}` } }))).toEqual([]);
  });
  it("cash-out body { comment: 'card <PAN> cvv 123' }", async () => {
    expect(await onTheWire(() => cashout().requests.create({ amount: 1, comment: `card ${PAN} cvv 123` }))).toEqual([]);
  });
  it("fiscal sale extraParams { Comment: 'card <PAN>' }", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch, telemetry: false });
    expect(await onTheWire(() => fiscal.operations.sale(sale, { extraParams: { Comment: `card ${PAN}` } }))).toEqual([]);
  });
});

describe("the refusal names the place, never the number", () => {
  it("a call header, and a note in metadata: RequestValidationError at its path", async () => {
    for (const [call, path] of [
      [() => shop().payments.create({ amount: 100, orderId: "probe-n1" }, { headers: { "X-Card-Number": PAN } }), "(options)/headers/X-Card-Number"],
      [() => shop().payments.create({ amount: 100, orderId: "probe-n2", metadata: { note: `paid with ${PAN}` } }), "/metadata/note"],
    ] as const) {
      const e = await call().catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RequestValidationError);
      expect((e as RequestValidationError).issues.map((i) => i.path)).toEqual([path]);
      expect(JSON.stringify(e) + String(e)).not.toContain(PAN);
    }
  });
  it("a client header: ConfigurationError before anything is sent", async () => {
    const fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch, telemetry: false, headers: { "X-Card": PAN } });
    const e = await fiscal.operations.sale(sale).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigurationError);
    expect(String(e)).toMatch(/headers\/X-Card holds a card number/);
    expect(String(e)).not.toContain(PAN);
  });
});
