// The receipt rules as properties (fast-check, seeded): totals computed exactly, the checks
// accept every consistent receipt and name the field of every inconsistent one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { autonomousReceipt, exactReceiptTotals, receiptTotals, totalsHoldInTiyn } from "../src/checks.js";
import { receiptChange, receiptTotal } from "../src/index.js";

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

  it("refuses a total with more than two decimals (a weighed quantity) instead of rounding it", () => {
    expect(() => receiptTotal([{ Price: "10.25", Qty: 0.333 }])).toThrow(/3.41325 has more than 2 decimal places/);
    expect(receiptTotal([{ Price: "10.25", Qty: 0.4 }])).toBe("4.1");
  });

  it("the older autonomous rules want ReceiptDate with a non-zero AFP; the newer do not", () => {
    expect(autonomousReceipt("older")({ AFP: 3 }, ctx)).toEqual([expect.objectContaining({ path: "/ReceiptDate" })]);
    expect(autonomousReceipt("older")({ AFP: 0 }, ctx)).toEqual([]);
    expect(autonomousReceipt("newer")({ AFP: 3 }, ctx)).toEqual([]);
  });
});
