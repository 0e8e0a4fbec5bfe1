// Type tests of the generated facade: `tsc --noEmit` (part of the test script) fails if a line
// marked with a ts-expect-error directive compiles, or if an expectTypeOf does not hold.
import { describe, expectTypeOf, it } from "vitest";
import type { CashOutRequestRecord, CashoutMethods } from "../src/index.js";

type Resolved<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

describe("cash-out facade types", () => {
  it("results are the spec's records, not unknown", () => {
    expectTypeOf<Resolved<CashoutMethods["requests"]["create"]>>().toEqualTypeOf<CashOutRequestRecord>();
    // No field of the stored request is shown, so none is typed: the record is open.
    expectTypeOf<CashOutRequestRecord>().toEqualTypeOf<{ [key: string]: unknown }>();
    expectTypeOf<Resolved<CashoutMethods["auth"]["authorize"]>>().toBeObject();
  });

  it("params: the JSON Accept header has a default, the authorization type is a number", () => {
    type Authorize = Parameters<CashoutMethods["auth"]["authorize"]>[0];
    expectTypeOf<Authorize["authType"]>().toEqualTypeOf<number>();
    expectTypeOf<Authorize>().toHaveProperty("Accept");
  });
});
