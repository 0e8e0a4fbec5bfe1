// A misspelt property whose name carries a card number with anything beside it (`card 4111…`,
// `4111…x`) is refused before sending, and the refusal's message, JSON and inspect show
// `[card number]` in its place (once only a name that was a card number whole was masked; found by
// a hostile probe).
import { inspect } from "node:util";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient, RequestValidationError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";

const PAN = "4111111111111111";
let sb: Sandbox;
const sent: string[] = [];
const fetch = async (url: string, init: RequestInit) => {
  if (!/\/auth$/.test(url)) sent.push(url);
  return globalThis.fetch(url, init);
};
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const shown = (e: unknown) => [String((e as Error).message), JSON.stringify(e), inspect(e, { depth: 10 })].join("\n");

describe("a card number inside a misspelt name is never shown", () => {
  for (const name of [`card ${PAN}`, `${PAN}x`, `pan:${PAN}`]) {
    it(`fiscal sale, Positions/0/${name}`, async () => {
      await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch, telemetry: false });
      sent.length = 0;
      const e = await fiscal.operations
        .sale({ idKkm: 101, IdDomain: 1, Positions: [{ Name: "x", IdSection: 1, Price: "100", Qty: 1, [name]: 1 } as never], Total: "100", Cash: "100" })
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RequestValidationError);
      expect(sent).toEqual([]);
      expect(shown(e)).not.toContain(PAN);
    });
  }
  it("e-commerce payments.create, customerData misspelt key carrying the number", async () => {
    const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, fetch, telemetry: false });
    sent.length = 0;
    const e = await shop.payments.create({ amount: 100, orderId: "probe-err-1", customerData: { [`cardNumber=${PAN}`]: "" } } as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect(sent).toEqual([]);
    expect(shown(e)).not.toContain(PAN);
  });
});
