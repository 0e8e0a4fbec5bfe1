// Type tests of the generated facade: `tsc --noEmit` (part of the test script) fails if a line
// marked with a ts-expect-error directive compiles, or if an expectTypeOf does not hold.
import { describe, expectTypeOf, it } from "vitest";
import type { CallbacksPaymentEvent, CreatePaymentResponse, EcommerceMethods, ProcessingEndResponse, TransactionState } from "../src/index.js";

type Resolved<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

describe("e-commerce facade types", () => {
  it("results are the spec's records, not unknown", () => {
    expectTypeOf<Resolved<EcommerceMethods["payments"]["create"]>>().toEqualTypeOf<CreatePaymentResponse>();
    expectTypeOf<Resolved<EcommerceMethods["payments"]["status"]>>().toEqualTypeOf<TransactionState>();
    expectTypeOf<Resolved<EcommerceMethods["payments"]["approve"]>>().toEqualTypeOf<ProcessingEndResponse>();
    expectTypeOf<CreatePaymentResponse["id"]>().toEqualTypeOf<string>();
  });

  it("the callback has a typed body, whose required fields are never undefined", () => {
    expectTypeOf<CallbacksPaymentEvent["amount"]>().toEqualTypeOf<number>();
    expectTypeOf<CallbacksPaymentEvent["status"]>().toEqualTypeOf<number>();
    expectTypeOf<CallbacksPaymentEvent["orderId"]>().toEqualTypeOf<string>();
    expectTypeOf<CallbacksPaymentEvent["errCode"]>().toEqualTypeOf<number | undefined>();
  });

  it("params: amounts are integers, query parameters by name", () => {
    type Create = Parameters<EcommerceMethods["payments"]["create"]>[0];
    expectTypeOf<Create["amount"]>().toEqualTypeOf<number>();
    type Status = Parameters<EcommerceMethods["payments"]["status"]>[0];
    expectTypeOf<Status["orderid"]>().toEqualTypeOf<string>();
  });
});
