// tiyn ⇄ tenge are exact both ways, refuse what is not a whole number of tiyn, and never round.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tenge, tiyn } from "../src/index.js";
import { addDecimal, compareDecimal, decimalToString, multiplyDecimal, toDecimal } from "../src/internal/index.js";

describe("tiyn and tenge", () => {
  it("convert exactly", () => {
    expect(tiyn("100.50")).toBe(10050);
    expect(tiyn(19.99)).toBe(1999);
    expect(tiyn("0.01")).toBe(1);
    expect(tiyn(7)).toBe(700);
    expect(tenge(10050)).toBe("100.50");
    expect(tenge(5)).toBe("0.05");
    expect(tenge(0)).toBe("0.00");
  });

  it("round-trip every whole number of tiyn", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (t) => tiyn(tenge(t)) === t),
      { numRuns: 20_000, seed: 7 },
    );
  });

  it("refuse fractions of a tiyn, negatives, drifted sums and non-numbers, never rounding", () => {
    for (const bad of ["100.505", 19.999, -1, "-0.01", 0.1 + 0.2, "1e3", "", "abc", Number.NaN, Number.POSITIVE_INFINITY]) expect(() => tiyn(bad)).toThrow(RangeError);
    for (const bad of [1.5, -1, Number.NaN, 2 ** 60]) expect(() => tenge(bad)).toThrow(RangeError);
  });
});

describe("exact decimals", () => {
  it("add and multiply without binary drift", () => {
    const sum = Array.from({ length: 1000 }, () => toDecimal(0.1)).reduce(addDecimal);
    expect(decimalToString(sum)).toBe("100");
    expect(decimalToString(multiplyDecimal(toDecimal("625.25"), toDecimal(2)))).toBe("1250.5");
    expect(compareDecimal(toDecimal("3.330"), toDecimal(3.33))).toBe(0);
    expect(() => toDecimal("1e5")).toThrow(RangeError);
  });
});
