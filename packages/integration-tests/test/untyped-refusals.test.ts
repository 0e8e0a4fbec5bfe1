// Inputs that cannot be read are refused like any other bad input: a RequestValidationError naming
// the path, nothing sent. A value nested 20,000 deep once overflowed the stack in the call's copy
// (snapshot.ts: a bare RangeError), and a getter that threw rejected the call with its own error and
// no path (found by a hostile probe). Now the copy stops at 100 levels, and names where.
import { createCashoutClient } from "@paysys/cashout";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient, RequestValidationError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
const sent: string[] = [];
const fetch = async (url: string, init: RequestInit) => {
  if (!/\/(auth|authorize)$/.test(url)) sent.push(url);
  return globalThis.fetch(url, init);
};
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const nested = (depth: number) => {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = { d: v };
  return v;
};

describe("a value nested 20,000 deep", () => {
  it("fiscal sale, a misspelt position field holding it: a RequestValidationError, nothing sent", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch, telemetry: false });
    sent.length = 0;
    const e = await fiscal.operations
      .sale({ idKkm: 101, IdDomain: 1, Positions: [{ Name: "x", IdSection: 1, Price: "100", Qty: 1, Extra: nested(20_000) } as never], Total: "100", Cash: "100" })
      .catch((x: unknown) => x);
    expect(sent).toEqual([]);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect((e as RequestValidationError).issues.map((i) => i.path)).toEqual([expect.stringMatching(/^\/Positions\/0\/Extra(\/d)+$/)]);
    expect(String(e)).toMatch(/nests deeper than 100 levels/);
  });
  it("e-commerce metadata (open): a RequestValidationError, nothing sent", async () => {
    const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, fetch, telemetry: false });
    sent.length = 0;
    const e = await shop.payments.create({ amount: 100, orderId: "probe-deep-1", metadata: { x: nested(20_000) } } as never).catch((x: unknown) => x);
    expect(sent).toEqual([]);
    expect(e).toBeInstanceOf(RequestValidationError);
  });
  it("cash-out body (open): a RequestValidationError, nothing sent", async () => {
    const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, fetch, telemetry: false });
    sent.length = 0;
    const e = await cashout.requests.create({ amount: 1, x: nested(20_000) }).catch((x: unknown) => x);
    expect(sent).toEqual([]);
    expect(e).toBeInstanceOf(RequestValidationError);
  });
});

describe("a property whose getter throws", () => {
  it("fiscal sale, a position's Qty: a RequestValidationError at its path, nothing sent", async () => {
    await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch, telemetry: false });
    const position = Object.defineProperty({ Name: "x", IdSection: 1, Price: "100" }, "Qty", {
      enumerable: true,
      get() {
        throw new TypeError("not ready");
      },
    });
    sent.length = 0;
    const e = await fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions: [position as never], Total: "100", Cash: "100" }).catch((x: unknown) => x);
    expect(sent).toEqual([]);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect((e as RequestValidationError).issues).toEqual([{ path: "/Positions/0/Qty", message: "could not be read (its getter threw TypeError)" }]);
  });
});
