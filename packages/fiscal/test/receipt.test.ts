// The receipt rules as properties (fast-check, seeded): totals computed exactly, the checks
// accept every consistent receipt and name the field of every inconsistent one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { autonomousReceipt, exactReceiptTotals, receiptLines, receiptTotals, totalsHoldInTiyn } from "../src/checks.js";
import { lineTotal, PaysysError, RequestValidationError, type RoundingMode, receiptChange, receiptTotal } from "../src/index.js";

const ctx = { operation: "operations.sale", timeZone: "Asia/Almaty" };
/** A tenge amount with at most two decimals, as the decimal string a till would hold. */
const tenge = fc.integer({ min: 0, max: 5_000_000 }).map((t) => `${Math.floor(t / 100)}.${String(t % 100).padStart(2, "0")}`);
const position = fc.record({ Name: fc.constant("x"), IdSection: fc.constant(1), Price: tenge, Qty: fc.integer({ min: 1, max: 50 }), Storno: fc.boolean() });

describe("receipt totals", () => {
  it("receiptTotal is the exact sum in tiyn, whatever the positions", () => {
    fc.assert(
      fc.property(fc.array(position, { minLength: 1, maxLength: 40 }), (positions) => {
        const tiyn = positions.filter((p) => !p.Storno).reduce((s, p) => s + Math.round(Number(p.Price) * 100) * p.Qty, 0);
        expect(Math.round(Number(receiptTotal(positions)) * 100)).toBe(tiyn);
      }),
      { numRuns: 5_000, seed: 42 },
    );
  });

  it("accepts every consistent receipt and names Total when it is off by a tiyn", () => {
    fc.assert(
      fc.property(fc.array(position, { minLength: 1, maxLength: 20 }), fc.integer({ min: 0, max: 100 }), (positions, percentCard) => {
        const Total = receiptTotal(positions);
        const NonCash = ((Number(Total) * percentCard) / 100).toFixed(2);
        const Cash = (Number(Total) - Number(NonCash)).toFixed(2);
        expect(receiptChange({ Cash, NonCash, Total })).toBe("0");
        const input = { Positions: positions, Total: Number(Total), NonCash: Number(NonCash), Cash: Number(Cash) };
        expect(receiptTotals(input, ctx)).toEqual([]);
        const off = receiptTotals({ ...input, Total: Number((Number(Total) + 0.01).toFixed(2)), Cash: Number((Number(Cash) + 0.01).toFixed(2)) }, ctx);
        expect(off.map((i) => i.path)).toEqual(["/Total"]);
      }),
      { numRuns: 3_000, seed: 7 },
    );
  });

  it("the tiyn shortcut agrees with the exact decimals on every receipt, and is taken for the common one", () => {
    // Wire-form receipts (after the tenge codec: numbers), often consistent, often not: amounts
    // with two or three decimals, whole and weighed quantities, huge values past the shortcut's bound.
    const amount = fc.oneof(
      fc.integer({ min: 0, max: 10_000_000 }).map((t) => t / 100),
      fc.integer({ min: 0, max: 10_000_000 }).map((t) => t / 1000),
      fc.constantFrom(0, 1e13, 9.5e13, 2 ** 53),
    );
    const wirePosition = fc.record(
      { Price: amount, Markup: amount, Discount: amount, Qty: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constantFrom(0.5, 0.333, 1e16)), Storno: fc.boolean() },
      { requiredKeys: ["Price", "Qty"] },
    );
    fc.assert(
      fc.property(
        fc.array(wirePosition, { maxLength: 8 }),
        amount,
        amount,
        fc.option(amount, { nil: undefined }),
        fc.boolean(),
        (Positions, cashPart, offBy, NonCash, consistent) => {
          const sum = Positions.filter((p) => !p.Storno).reduce((s, p) => s + Math.round(((p.Price ?? 0) + (p.Markup ?? 0) - (p.Discount ?? 0)) * 100) * p.Qty, 0) / 100;
          const Total = consistent ? sum : sum + offBy;
          const input = { Positions, Total, Cash: consistent ? Math.max(0, Total - (NonCash ?? 0)) : cashPart, NonCash };
          // What each answers, a refusal of an unreadable amount (1e+29) included.
          const outcome = (check: typeof receiptTotals) => {
            try {
              return check(input, ctx);
            } catch (e) {
              return String(e);
            }
          };
          expect(outcome(receiptTotals)).toEqual(outcome(exactReceiptTotals));
        },
      ),
      { numRuns: 5_000, seed: 11 },
    );
    const plain = {
      Positions: [
        { Price: 625.25, Qty: 2 },
        { Price: 19.99, Markup: 0.01, Discount: 5, Qty: 3, Storno: false },
      ],
      Total: 1295.5,
      Cash: 1000,
      NonCash: 295.5,
    };
    expect(totalsHoldInTiyn(plain)).toBe(true);
    expect(totalsHoldInTiyn({ ...plain, Total: 1295.51 })).toBe(false);
    expect(totalsHoldInTiyn({ ...plain, Positions: [{ Price: 10.25, Qty: 0.4 }], Total: 4.1, Cash: 4.1, NonCash: 0 })).toBe(false);
    expect(totalsHoldInTiyn({ ...plain, Positions: [{ Price: 1e13, Qty: 1 }], Total: 1e13, Cash: 1e13, NonCash: 0 })).toBe(false);
  });

  it("refuses a weighed line that is not whole tiyn unless told how to round it, naming the position", () => {
    const error = caught(() =>
      receiptTotal([
        { Price: "1", Qty: 1 },
        { Price: "10.25", Qty: 0.333 },
      ]),
    );
    expect(error).toMatchObject({ name: "RequestValidationError", operation: "receiptTotal", attempts: 0 });
    expect(error.issues).toEqual([{ path: "/Positions/1/Qty", message: expect.stringContaining("3.41325 (10.25 × 0.333), more than 2 decimal places") }]);
    expect(receiptTotal([{ Price: "10.25", Qty: 0.4 }])).toBe("4.1");
    expect(receiptTotal([{ Price: "10.25", Qty: 0.333 }], { rounding: "half-up" })).toBe("3.41");
    // Each line is rounded, then summed: two half-tiyn lines are two tiyn, not one.
    expect(
      receiptTotal(
        [
          { Price: "0.01", Qty: 0.5 },
          { Price: "0.01", Qty: 0.5 },
        ],
        { rounding: "half-up" },
      ),
    ).toBe("0.02");
    expect(
      receiptTotal(
        [
          { Price: "0.01", Qty: 0.5 },
          { Price: "0.01", Qty: 0.5, Storno: true },
        ],
        { rounding: "up" },
      ),
    ).toBe("0.01");
  });

  it("the exact path accepts a weighed Total each line of which is rounded either way, and names the range otherwise", () => {
    const Positions = [
      { Price: 625.25, Qty: 0.75 },
      { Price: 100, Qty: 1 },
    ];
    for (const Total of [568.93, 568.94]) expect(receiptTotals({ Positions, Total, Cash: Total }, ctx)).toEqual([]);
    expect(receiptTotals({ Positions, Total: 568.95, Cash: 568.95 }, ctx)).toEqual([
      { path: "/Total", message: expect.stringContaining("between 568.93 and 568.94 (got 568.95)") },
    ]);
  });

  it("the older autonomous rules want ReceiptDate with a non-zero AFP; the newer do not", () => {
    expect(autonomousReceipt("older")({ AFP: 3 }, ctx)).toEqual([expect.objectContaining({ path: "/ReceiptDate" })]);
    expect(autonomousReceipt("older")({ AFP: 0 }, ctx)).toEqual([]);
    expect(autonomousReceipt("newer")({ AFP: 3 }, ctx)).toEqual([]);
  });
});

/** What a function throws (the test fails if it returns). */
function caught(f: () => unknown): RequestValidationError {
  try {
    f();
  } catch (e) {
    return e as RequestValidationError;
  }
  throw new Error("expected a throw");
}

describe("receipt helpers", () => {
  it("lineTotal: weighed goods in each rounding mode; whole-tiyn lines need none", () => {
    const cheese = { Price: "625.25", Qty: 0.75 };
    const expected: Record<RoundingMode, string> = { "half-up": "468.94", "half-even": "468.94", down: "468.93", up: "468.94" };
    for (const [rounding, line] of Object.entries(expected)) expect(lineTotal(cheese, { rounding: rounding as RoundingMode })).toBe(line);
    expect(lineTotal({ Price: "0.25", Qty: 0.5 }, { rounding: "half-even" })).toBe("0.12");
    expect(lineTotal({ Price: "0.25", Qty: 0.5 }, { rounding: "half-up" })).toBe("0.13");
    expect(lineTotal({ Price: "625.25", Markup: "10", Discount: "35.25", Qty: 2 })).toBe("1200");
    expect(caught(() => lineTotal(cheese)).issues).toEqual([{ path: "/Qty", message: expect.stringContaining("468.9375") }]);
  });

  it("every helper refuses float remainders, negatives, quantities not above 0 and discounts above the line, typed, naming the field", () => {
    const cases: [() => unknown, string, string][] = [
      [() => receiptChange({ Cash: 0.1 + 0.2, Total: "0.3" }), "receiptChange", "/Cash"],
      [() => receiptChange({ Cash: "-5", Total: "10" }), "receiptChange", "/Cash"],
      [() => receiptChange({ Cash: "5", NonCash: "1.001", Total: "10" }), "receiptChange", "/NonCash"],
      [() => receiptChange({ Cash: "5" } as never), "receiptChange", "/Total"],
      [() => lineTotal({ Price: "1", Qty: 0 }), "lineTotal", "/Qty"],
      [() => lineTotal({ Price: "1", Qty: -2 }), "lineTotal", "/Qty"],
      [() => lineTotal({ Price: "1", Qty: Number.NaN }), "lineTotal", "/Qty"],
      [() => lineTotal({ Price: "10", Discount: "10.01", Qty: 1 }), "lineTotal", "/Discount"],
      [() => lineTotal({ Price: 0.1 + 0.2, Qty: 1 }), "lineTotal", "/Price"],
      [
        () =>
          receiptTotal([
            { Price: "1", Qty: 1 },
            { Price: "-1", Qty: 1 },
          ]),
        "receiptTotal",
        "/Positions/1/Price",
      ],
      [() => receiptTotal([{ Price: "5", Qty: 0, Storno: true }]), "receiptTotal", "/Positions/0/Qty"],
      [() => receiptTotal([{ Price: "5", Discount: "6", Qty: 1 }]), "receiptTotal", "/Positions/0/Discount"],
      [() => receiptTotal("nope" as never), "receiptTotal", "/Positions"],
    ];
    for (const [f, operation, path] of cases) {
      const error = caught(f);
      expect(error, `${operation} ${path}`).toBeInstanceOf(RequestValidationError);
      expect(error).toBeInstanceOf(PaysysError);
      expect(error.operation).toBe(operation);
      expect(error.issues.map((i) => i.path)).toContain(path);
    }
    expect(receiptChange({ Cash: "150", NonCash: "0.10", Total: "100.00" })).toBe("50.1");
    expect(receiptChange({ Cash: "90", Total: "100" })).toBe("-10");
  });

  it("receipt-lines names every position whose quantity is not above 0 or whose discount is above its line", () => {
    const input = {
      Positions: [
        { Price: 10, Qty: 1 },
        { Price: 10, Qty: 0 },
        { Price: 10, Markup: 1, Discount: 11.01, Qty: 1 },
        { Price: 10, Markup: 1, Discount: 11, Qty: 0.5 },
        { Price: 10, Qty: 1e21 },
      ],
    };
    expect(receiptLines(input, ctx).map((i) => i.path)).toEqual(["/Positions/1/Qty", "/Positions/2/Discount", "/Positions/4/Qty"]);
  });
});
