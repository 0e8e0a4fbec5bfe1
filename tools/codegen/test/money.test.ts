// Tenge with at most two decimals, one rule everywhere: the `x-decimals` keyword the generated
// validators compile and the codec the clients encode with accept every amount with up to two
// decimals and refuse every amount with three, over 100,000 values each (seeded, so a failure can
// be replayed). `multipleOf: 0.01` fails this: 19.99 % 0.01 is not 0 in binary floating point.
import { tengeCodec } from "@paysys/core/internal";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileValidators } from "../src/validators.js";

async function validator(schema: object) {
  const code = compileValidators({}, { v: schema });
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)).v as (d: unknown) => boolean;
}

const ctx = { operation: "t", timeZone: "UTC" };
const accepts = (value: number | string) => {
  try {
    tengeCodec.encode(value, ctx);
    return true;
  } catch {
    return false;
  }
};

/** A tenge amount written with exactly `places` decimals, the last one not 0. */
const amount = (places: 0 | 1 | 2 | 3) =>
  places === 0
    ? fc.integer({ min: 0, max: 999_999_999 }).map(String)
    : fc
        .tuple(fc.integer({ min: 0, max: 999_999_999 }), fc.integer({ min: 1, max: 10 ** places - 1 }))
        .map(([whole, frac]) => `${whole}.${String(frac).padStart(places, "0")}`)
        .filter((s) => !s.endsWith("0"));

describe("tenge: at most two decimals", () => {
  it("multipleOf: 0.01 refuses valid amounts (why the specs use x-decimals)", async () => {
    const multipleOf = await validator({ type: "number", multipleOf: 0.01 });
    expect([19.99, 4.35].some((n) => !multipleOf(n))).toBe(true);
  });

  // 100,000 runs take about a second alone; the timeout leaves room for a busy CI machine.
  it("accepts every amount with up to two decimals, as a number and as a string, in the validator and the codec", { timeout: 60_000 }, async () => {
    const v = await validator({ type: "number", "x-decimals": 2 });
    fc.assert(
      fc.property(fc.oneof(amount(0), amount(1), amount(2)), (text) => {
        const n = Number(text);
        return v(n) && accepts(n) && accepts(text) && tengeCodec.encode(text, ctx) === n;
      }),
      { numRuns: 100_000, seed: 20_261_122 },
    );
  });

  it("refuses every amount with three decimals, in the validator and the codec", { timeout: 60_000 }, async () => {
    const v = await validator({ type: "number", "x-decimals": 2 });
    fc.assert(
      fc.property(amount(3), (text) => !v(Number(text)) && !accepts(Number(text)) && !accepts(text)),
      { numRuns: 100_000, seed: 20_261_122 },
    );
  });

  it("refuses a float sum that drifted, and says why", async () => {
    const v = await validator({ type: "number", "x-decimals": 2 });
    expect(v(0.1 + 0.2)).toBe(false);
    expect(() => tengeCodec.encode(0.1 + 0.2, ctx)).toThrow(/at most 2 decimal places \(got "0.30000000000000004"\); compute totals in tiyn/);
  });
});
