// A receipt position's values read as exact decimals, and the SDK's own rules for one position:
// what the receipt checks (checks.ts, at the first call) and the receipt helpers (receipt.ts, in
// the package's entry) share, apart from the checks so the entry does not load them.
import type { ValidationIssue } from "@paysys/core/calls";
import { addDecimal, compareDecimal, type Decimal, decimalToString, multiplyDecimal, subtractDecimal, toDecimal } from "@paysys/core/shell";

export const ZERO: Decimal = { units: 0n, scale: 0 };
/** A plain decimal written the way JSON and people write it (a float drift or 1e+21 is not one). */
const PLAIN = /^-?\d+(\.\d+)?$/;

/** An amount as a decimal; absent is 0; undefined when it is not a plain decimal (the caller reports it). */
export function amount(v: unknown): Decimal | undefined {
  if (v === undefined) return ZERO;
  if (typeof v !== "number" && typeof v !== "string") return undefined;
  return PLAIN.test(typeof v === "number" ? String(v) : v.trim()) ? toDecimal(v) : undefined;
}

export interface PositionValues {
  Price?: unknown;
  Markup?: unknown;
  Discount?: unknown;
  Qty?: unknown;
  Storno?: unknown;
}

/** (Price + Markup − Discount) · Qty exactly, or undefined when a value is not a plain decimal. */
export function lineValue(p: PositionValues): Decimal | undefined {
  const [price, markup, discount, qty] = [amount(p.Price), amount(p.Markup), amount(p.Discount), amount(p.Qty)];
  if (!price || !markup || !discount || !qty) return undefined;
  return multiplyDecimal(subtractDecimal(addDecimal(price, markup), discount), qty);
}

/** Problems of one position: a quantity that is not a plain decimal above 0, a discount above its price and markup (the SDK's own rules). */
export function positionIssues(p: PositionValues, at: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const qty = p.Qty === undefined ? undefined : amount(p.Qty);
  if (!qty || compareDecimal(qty, ZERO) <= 0)
    issues.push({ path: `${at}/Qty`, message: `must be a plain decimal number above 0 (got ${JSON.stringify(typeof p.Qty === "number" ? String(p.Qty) : p.Qty)})` });
  const [price, markup, discount] = [amount(p.Price), amount(p.Markup), amount(p.Discount)];
  if (price && markup && discount && compareDecimal(discount, addDecimal(price, markup)) > 0) {
    issues.push({ path: `${at}/Discount`, message: `must not be above the line's Price + Markup (${decimalToString(discount)} > ${decimalToString(addDecimal(price, markup))})` });
  }
  return issues;
}
