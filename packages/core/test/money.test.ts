// tiyn ⇄ tenge are exact both ways, refuse what is not a whole number of tiyn, and never round.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError, tenge, tiyn } from "../src/index.js";
import {
  addDecimal,
  compareDecimal,
  decimalToString,
  multiplyDecimal,
  type RoundingMode,
  roundDecimal,
  roundedSumRange,
  subtractDecimal,
  toDecimal,
} from "../src/internal/index.js";

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
    for (const bad of ["100.505", 19.999, -1, "-0.01", 0.1 + 0.2, "1e3", "", "abc", Number.NaN, Number.POSITIVE_INFINITY]) expect(() => tiyn(bad)).toThrow(InvalidArgumentError);
    for (const bad of [1.5, -1, Number.NaN, 2 ** 60]) expect(() => tenge(bad)).toThrow(InvalidArgumentError);
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

describe("roundDecimal", () => {
  const round = (v: string, mode: RoundingMode) => decimalToString(roundDecimal(toDecimal(v), 2, mode));

  it("rounds a weighed line, ties and non-ties, in each mode", () => {
    // 625.25 × 0.75 = 468.9375; 0.125 and 0.135 are ties, 0.121 and 0.129 are not.
    const cases: [string, Record<RoundingMode, string>][] = [
      ["468.9375", { "half-up": "468.94", "half-even": "468.94", down: "468.93", up: "468.94" }],
      ["0.125", { "half-up": "0.13", "half-even": "0.12", down: "0.12", up: "0.13" }],
      ["0.135", { "half-up": "0.14", "half-even": "0.14", down: "0.13", up: "0.14" }],
      ["0.121", { "half-up": "0.12", "half-even": "0.12", down: "0.12", up: "0.13" }],
      ["0.129", { "half-up": "0.13", "half-even": "0.13", down: "0.12", up: "0.13" }],
      ["-0.125", { "half-up": "-0.13", "half-even": "-0.12", down: "-0.12", up: "-0.13" }],
      ["7.5", { "half-up": "7.5", "half-even": "7.5", down: "7.5", up: "7.5" }],
    ];
    for (const [value, modes] of cases) for (const [mode, expected] of Object.entries(modes)) expect(round(value, mode as RoundingMode), `${value} ${mode}`).toBe(expected);
  });

  it("lands on a neighbour within one unit of the last place, down never above and up never below", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.integer({ min: 0, max: 6 }), (units, scale) => {
        const d = { units, scale };
        const down = roundDecimal(d, 2, "down");
        const up = roundDecimal(d, 2, "up");
        expect(compareDecimal(down, d)).toBeLessThanOrEqual(0);
        expect(compareDecimal(up, d)).toBeGreaterThanOrEqual(0);
        expect(compareDecimal(subtractDecimal(up, down), toDecimal("0.01"))).toBeLessThanOrEqual(0);
        for (const mode of ["half-up", "half-even"] as const) {
          const r = roundDecimal(d, 2, mode);
          expect(compareDecimal(r, down) === 0 || compareDecimal(r, up) === 0).toBe(true);
        }
      }),
      { numRuns: 5_000, seed: 3 },
    );
  });
});

describe("roundedSumRange", () => {
  it("spans every way of rounding each value to tiyn: a whole-tiyn sum is one point", () => {
    const range = (...vs: string[]) => {
      const { low, high } = roundedSumRange(vs.map(toDecimal), 2);
      return [decimalToString(low), decimalToString(high)];
    };
    expect(range("468.9375", "1250.5")).toEqual(["1719.43", "1719.44"]);
    expect(range("0.005", "0.005")).toEqual(["0", "0.02"]);
    expect(range("100", "0.1")).toEqual(["100.1", "100.1"]);
    expect(range("-0.125", "1")).toEqual(["0.87", "0.88"]);
    expect(range()).toEqual(["0", "0"]);
  });
});
