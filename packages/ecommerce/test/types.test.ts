// Type tests of the generated facade: `tsc --noEmit` (part of the test script) fails if a line
// marked with a ts-expect-error directive compiles, or if an expectTypeOf does not hold.
import { describe, expectTypeOf, it } from "vitest";
import type { CallbacksPaymentEvent, CreatePaymentResponse, EcommerceClient, EcommerceMethods, ProcessingEndResponse, TransactionState } from "../src/index.js";

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

  it("requests are closed at every depth: a misspelt nested field does not compile (the card of the issue)", () => {
    // Never called: the compiler checks the calls.
    const calls = (shop: EcommerceClient) => {
      const card = { pan: "4111111111111111", month: 12, year: 2031, cvv: "123" };
      // @ts-expect-error: `carddata` is not a field of customerData (it is cardData)
      void shop.payments.create({ amount: 1, customerData: { carddata: card } });
      // @ts-expect-error: `card` is not a field of customerData
      void shop.payments.create({ amount: 1, customerData: { card } });
      // @ts-expect-error: `cardDATA` is not a field of customerData
      void shop.payments.create({ amount: 1, customerData: { cardDATA: card } });
      // @ts-expect-error: `phon` is not a field of customerData
      void shop.payments.create({ amount: 1, customerData: { phon: "77001234567" } });
      // What the spec leaves open stays open (metadata is the merchant's own), and the right name compiles.
      void shop.payments.create({ amount: 1, customerData: { cardData: card }, metadata: { cart: "1001" } });
    };
    expectTypeOf(calls).toBeFunction();
  });
});
