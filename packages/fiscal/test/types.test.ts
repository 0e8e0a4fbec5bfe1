// Type tests of the generated facade: `tsc --noEmit` (part of the test script) fails if a line
// marked with a ts-expect-error directive compiles, or if an expectTypeOf does not hold.

import { type Check, type ClientParts, type Codec, defineClient, type SecurityScheme } from "@paysys/core/internal";
import { describe, expectTypeOf, it } from "vitest";
import { spec } from "../src/generated/client.js";
import type { SpecNames } from "../src/generated/operations.js";
import type { Company, FiscalClient, FiscalMethods, Kkm, Shift, ZReport } from "../src/index.js";

type Resolved<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

describe("fiscal facade types", () => {
  it("results are the spec's records, not unknown", () => {
    expectTypeOf<Resolved<FiscalMethods["companies"]["list"]>>().toEqualTypeOf<Company[]>();
    expectTypeOf<Resolved<FiscalMethods["kkms"]["list"]>>().toEqualTypeOf<Kkm[]>();
    expectTypeOf<Resolved<FiscalMethods["kkms"]["get"]>>().toEqualTypeOf<Kkm>();
    expectTypeOf<Resolved<FiscalMethods["shifts"]["open"]>>().toEqualTypeOf<Shift>();
    expectTypeOf<Resolved<FiscalMethods["shifts"]["closeWithZReport"]>>().toEqualTypeOf<ZReport>();
    expectTypeOf<Resolved<FiscalMethods["uid"]["get"]>>().toEqualTypeOf<string>();
    expectTypeOf<Resolved<FiscalMethods["operations"]["sale"]>>().toHaveProperty("IdDocument");
    expectTypeOf<Kkm["Allowed"]>().toEqualTypeOf<boolean | undefined>();
  });

  it("params: path parameters beside body fields, amounts as numbers or decimal strings, no Uid (the chain presents it)", () => {
    type Sale = Parameters<FiscalMethods["operations"]["sale"]>[0];
    expectTypeOf<Sale["idKkm"]>().toEqualTypeOf<number>();
    expectTypeOf<Sale["Total"]>().toEqualTypeOf<number | string>();
    expectTypeOf<Sale>().not.toHaveProperty("Uid");
    type List = Parameters<FiscalMethods["kkms"]["list"]>[0];
    expectTypeOf<NonNullable<List>["companies"]>().toEqualTypeOf<readonly (number | string)[] | string | undefined>();
    // @ts-expect-error: a misspelt field is not a parameter
    expectTypeOf<Sale>().toMatchTypeOf<{ Totl: number }>();
  });

  it("positions are closed: Discont, MarkUp and storno do not compile (a lost discount, a cancelled line charged)", () => {
    // Never called: the compiler checks the calls.
    const calls = (till: FiscalClient) => {
      const line = { Name: "Bread", IdSection: 1, Price: 100, Qty: 1 };
      const sale = { idKkm: 1, IdDomain: 1, Total: 100, Cash: 100, NonCash: 0 };
      // @ts-expect-error: `Discont` is not a field of a position (it is Discount)
      void till.operations.sale({ ...sale, Positions: [{ ...line, Discont: 10 }] });
      // @ts-expect-error: `MarkUp` is not a field of a position (it is Markup)
      void till.operations.sale({ ...sale, Positions: [{ ...line, MarkUp: 10 }] });
      // @ts-expect-error: `storno` is not a field of a position (it is Storno)
      void till.operations.sale({ ...sale, Positions: [{ ...line, storno: true }] });
      void till.operations.sale({ ...sale, Positions: [{ ...line, Discount: 10, Markup: 5, Storno: false }] });
    };
    expectTypeOf(calls).toBeFunction();
  });
});

describe("the client's wiring is checked by the compiler", () => {
  it("a codec, check or security scheme the spec names and the client does not bring does not compile", () => {
    // Never called: the compiler checks the calls.
    const wirings = (parts: ClientParts<SpecNames>, check: Check, codec: Codec, scheme: SecurityScheme) => {
      const codecs = { tenge: codec, rfc3339: codec, "comma-list": codec };
      const checks = { "receipt-totals": check, "receipt-lines": check, "autonomous-receipt": check };
      void defineClient(spec, { ...parts, codecs, checks, schemes: { fiscalToken: scheme } });
      // @ts-expect-error: the spec's check "receipt-lines" has no handler
      void defineClient(spec, { ...parts, codecs, checks: { "receipt-totals": check, "autonomous-receipt": check }, schemes: { fiscalToken: scheme } });
      // @ts-expect-error: the spec's codec "tenge" has no handler
      void defineClient(spec, { ...parts, codecs: { rfc3339: codec, "comma-list": codec }, checks, schemes: { fiscalToken: scheme } });
      // @ts-expect-error: the spec's security scheme "fiscalToken" has no handler
      void defineClient(spec, { ...parts, codecs, checks, schemes: {} });
    };
    expectTypeOf(wirings).toBeFunction();
  });
});
