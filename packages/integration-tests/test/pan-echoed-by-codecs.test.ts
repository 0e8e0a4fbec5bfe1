// A card number a caller misplaces into an amount (fiscal Cash, Total, NonCash, a position's Price)
// or a portal date is refused before sending, and the refusal, which quotes what it was given, shows
// `[card number]` in its place: masked once for every check, codec and validator of a call's
// preparation (invoker.ts cardNumbersHidden; found by a hostile probe).
import { inspect } from "node:util";
import { createFiscalClient, RequestValidationError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";
import { portalClients } from "./portal-clients.js";

const PAN = "4111111111111111";
const SPACED = "4111 1111 1111 1111";
let sb: Sandbox;
const sent: string[] = [];
const fetch = async (url: string, init: RequestInit) => {
  if (!/\/(auth|token|captcha)/.test(url)) sent.push(url);
  return globalThis.fetch(url, init);
};
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const shows = (e: unknown) => [String((e as Error).message), JSON.stringify(e), inspect(e, { depth: 10 })].join("\n").replace(/\s/g, "").includes(PAN);
const pos = (x: Record<string, unknown> = {}) => ({ Name: "x", IdSection: 1, Price: "100", Qty: 1, ...x });

describe("fiscal sale: a card number in an amount field", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["Cash", { Cash: PAN }],
    ["Cash, spaced", { Cash: SPACED }],
    ["Total", { Total: PAN }],
    ["NonCash", { NonCash: PAN }],
    ["Positions/0/Price", { Positions: [pos({ Price: PAN })] }],
  ];
  for (const [name, fields] of cases) {
    it(`${name}: refused unsent, the number not shown`, async () => {
      await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch, telemetry: false });
      sent.length = 0;
      const e = await fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions: [pos()], Total: "100", Cash: "100", ...fields } as never).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RequestValidationError);
      expect(sent).toEqual([]);
      expect(shows(e)).toBe(false);
    });
  }
});

describe("portal reports.payments: a card number as a date", () => {
  const { client } = portalClients(() => sb, { fetch, telemetry: false });
  it("dateFrom: refused unsent, the number not shown", async () => {
    const portal = client("v2");
    sent.length = 0;
    const e = await portal.reports.payments({ dateFrom: PAN, dateTo: "2024-05-31" }).catch((x: unknown) => x);
    expect((e as Error).name).toBe("RequestValidationError");
    expect(sent).toEqual([]);
    expect(shows(e)).toBe(false);
  });
});
