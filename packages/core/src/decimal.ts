// Exact decimals for money. A JavaScript number is binary, so 19.99 is stored as the double
// nearest to 19.99 and `19.99 % 0.01` is not 0; JSON Schema's `multipleOf: 0.01` therefore
// refuses valid amounts. The rule used everywhere instead (the specs' `x-decimals` keyword, the
// generated validators, the money codecs) reads a number the way JSON and people write it: its
// shortest round-trip decimal form (`String(n)`), and counts the digits after the point. A float
// sum that drifted (0.1 + 0.2 → 0.30000000000000004) has 17 of them and is refused.
//
// This module has no imports: the code generator and the spec tools load it from source, so the
// validators they compile apply literally the same pattern.

/** The source of a regular expression that accepts a plain decimal with at most `places` fraction digits. */
export function decimalPattern(places: number): string {
  return places === 0 ? "^-?\\d+$" : `^-?\\d+(\\.\\d{1,${places}})?$`;
}

const patterns = new Map<number, RegExp>();

/** True when `value` is a finite number or a decimal string with at most `places` digits after the point. */
export function hasAtMostDecimals(value: number | string, places: number): boolean {
  let re = patterns.get(places);
  if (!re) {
    re = new RegExp(decimalPattern(places));
    patterns.set(places, re);
  }
  if (typeof value === "number" && !Number.isFinite(value)) return false;
  // String(1e21) is "1e+21" and String(1e-7) is "1e-7": both are refused, as they should be for money.
  return re.test(typeof value === "number" ? String(value) : value);
}

/** An exact decimal: `units / 10^scale`, with `units` a BigInt. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/** Reads a number (by its shortest round-trip form) or a decimal string exactly. Throws a RangeError for anything else. */
export function toDecimal(value: number | string): Decimal {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`not a plain decimal number: ${JSON.stringify(typeof value === "number" ? String(value) : value)}`);
  const fraction = m[3] ?? "";
  const units = BigInt(`${m[2]}${fraction}`);
  return { units: m[1] ? -units : units, scale: fraction.length };
}

/** Powers of ten by exponent, computed once each: receipts rescale amounts on every call. */
const powers: bigint[] = [];
const rescale = (d: Decimal, scale: number): bigint => {
  const k = scale - d.scale;
  if (k === 0) return d.units;
  powers[k] ??= 10n ** BigInt(k);
  return d.units * powers[k];
};

export function addDecimal(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function subtractDecimal(a: Decimal, b: Decimal): Decimal {
  return addDecimal(a, { units: -b.units, scale: b.scale });
}

export function multiplyDecimal(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** -1, 0 or 1. */
export function compareDecimal(a: Decimal, b: Decimal): number {
  const scale = Math.max(a.scale, b.scale);
  const x = rescale(a, scale);
  const y = rescale(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * How a decimal is rounded to fewer places: `half-up` (a tie away from zero), `half-even` (a tie to
 * the even neighbour, banker's rounding), `down` (toward zero) or `up` (away from zero).
 */
export type RoundingMode = "half-up" | "half-even" | "down" | "up";

/** `d` with at most `places` digits after the point, rounded as `mode` says (exact: BigInt throughout). */
export function roundDecimal(d: Decimal, places: number, mode: RoundingMode): Decimal {
  if (d.scale <= places) return d;
  const divisor = 10n ** BigInt(d.scale - places);
  const negative = d.units < 0n;
  const magnitude = negative ? -d.units : d.units;
  let kept = magnitude / divisor;
  const twice = (magnitude % divisor) * 2n;
  const away =
    twice !== 0n && (mode === "up" || (mode === "half-up" && twice >= divisor) || (mode === "half-even" && (twice > divisor || (twice === divisor && kept % 2n === 1n))));
  if (away) kept += 1n;
  return { units: negative ? -kept : kept, scale: places };
}

/**
 * The sums `values` can come to when each is rounded to `places` in some way: from Σ rounded down
 * to Σ rounded up (a receipt whose lines are weighed goods, when the rounding rule is not known).
 */
export function roundedSumRange(values: readonly Decimal[], places: number): { low: Decimal; high: Decimal } {
  let low: Decimal = { units: 0n, scale: places };
  let high: Decimal = low;
  for (const v of values) {
    // Toward zero is the lower neighbour of a positive value and the higher of a negative one.
    const [below, above] = v.units < 0n ? (["up", "down"] as const) : (["down", "up"] as const);
    low = addDecimal(low, roundDecimal(v, places, below));
    high = addDecimal(high, roundDecimal(v, places, above));
  }
  return { low, high };
}

/** The plain decimal text of `d`, without trailing zeros after the point. */
export function decimalToString(d: Decimal): string {
  const negative = d.units < 0n;
  const digits = (negative ? -d.units : d.units).toString().padStart(d.scale + 1, "0");
  const whole = digits.slice(0, digits.length - d.scale);
  const fraction = digits.slice(digits.length - d.scale).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** The number nearest to `d` (exact whenever `d` has a short decimal form, as money does). */
export function decimalToNumber(d: Decimal): number {
  return Number(decimalToString(d));
}
