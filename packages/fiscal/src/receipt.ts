// Helpers for building receipts without float arithmetic: lines, totals and change come out exact,
// and what they cannot compute is a RequestValidationError naming the operation (the helper) and
// the field, never a bare RangeError.
import { RequestValidationError, type TengeInput, type ValidationIssue } from "@paysys/core/calls";
// The type from internal, as the API report has always named it.
import type { RoundingMode } from "@paysys/core/internal";
import { addDecimal, compareDecimal, type Decimal, decimalToString, hasAtMostDecimals, roundDecimal, subtractDecimal, toDecimal } from "@paysys/core/shell";
import type { PositionInput } from "./generated/schema.js";
import { lineValue, type PositionValues, positionIssues } from "./positions.js";

export type { RoundingMode };

/** How a line that is not a whole number of tiyn (weighed goods) is rounded. */
export interface RoundingOptions {
  /**
   * `half-up`, `half-even`, `down` or `up`, to tiyn. The service's own rounding rule is not public
   * (the spec's `x-rules` note): choose the one your receipts print. Without it, a line that is not
   * a whole number of tiyn is refused.
   */
  rounding?: RoundingMode;
}

type LineInput = Pick<PositionInput, "Price" | "Markup" | "Discount" | "Qty">;
type ReceiptLineInput = Pick<PositionInput, "Price" | "Markup" | "Discount" | "Qty" | "Storno">;

const ZERO: Decimal = { units: 0n, scale: 0 };

/** A tenge amount of a helper's input: a number or decimal string, at most two decimals, not negative. Absent is 0 unless required. */
function readTenge(value: unknown, path: string, issues: ValidationIssue[], required = false): Decimal {
  if (value === undefined && !required) return ZERO;
  if (typeof value !== "number" && typeof value !== "string") {
    issues.push({ path, message: 'must be an amount in tenge: a number or a decimal string such as "100.50"' });
    return ZERO;
  }
  if (!hasAtMostDecimals(value, 2)) {
    issues.push({
      path,
      message: `must be an amount in tenge with at most 2 decimal places (got ${JSON.stringify(String(value))}); compute amounts in tiyn or as decimal strings`,
    });
    return ZERO;
  }
  const d = toDecimal(value);
  if (d.units < 0n) issues.push({ path, message: `must not be negative (got ${String(value)})` });
  return d;
}

/** The exact line of a position, with every problem of its values (at `at`, e.g. `/Positions/2`). */
function readLine(p: LineInput, at: string, issues: ValidationIssue[]): Decimal | undefined {
  if (p === null || typeof p !== "object") {
    issues.push({ path: at, message: "must be a position: { Price, Qty, Markup?, Discount? }" });
    return undefined;
  }
  const before = issues.length;
  for (const [field, required] of [
    ["Price", true],
    ["Markup", false],
    ["Discount", false],
  ] as const) {
    readTenge(p[field], `${at}/${field}`, issues, required);
  }
  // The SDK's own line rules: a quantity above 0 always, no discount above its line once the amounts are read.
  issues.push(...positionIssues(issues.length === before ? (p as PositionValues) : { Qty: p.Qty }, at));
  return issues.length === before ? lineValue(p as PositionValues) : undefined;
}

/** A line to tiyn: as it is when it is whole tiyn, rounded when asked, refused otherwise. */
function toTiyn(line: Decimal, p: LineInput, at: string, options: RoundingOptions, issues: ValidationIssue[]): Decimal {
  const rounded = roundDecimal(line, 2, options.rounding ?? "down");
  if (options.rounding || compareDecimal(rounded, line) === 0) return rounded;
  issues.push({
    path: `${at}/Qty`,
    message: `makes the line ${decimalToString(line)} (${String(p.Price)} × ${String(p.Qty)}), more than 2 decimal places; pass { rounding: "half-up" | "half-even" | "down" | "up" } (the service's rounding is not public)`,
  });
  return line;
}

const fail = (operation: string, issues: ValidationIssue[]) => {
  if (issues.length) throw new RequestValidationError(operation, issues);
};

/**
 * One line of a receipt, (Price + Markup − Discount) · Qty, exactly, to tiyn, as a decimal string.
 * A line that is not a whole number of tiyn (weighed goods) needs a rounding mode: the service's own
 * rounding rule is not public, so the choice is yours and is never made silently. Refused, with a
 * `RequestValidationError` naming the field: amounts with more than two decimals or negative, a
 * quantity not above 0, a discount above the price and markup.
 *
 * @example
 * lineTotal({ Price: "625.25", Qty: 0.75 }, { rounding: "half-up" }); // "468.94" (exactly 468.9375)
 * lineTotal({ Price: "625.25", Qty: 0.75 }, { rounding: "down" }); // "468.93"
 */
export function lineTotal(position: LineInput, options: RoundingOptions = {}): string {
  const issues: ValidationIssue[] = [];
  const line = readLine(position, "", issues);
  const value = line && toTiyn(line, position, "", options, issues);
  fail("lineTotal", issues);
  return decimalToString(value!);
}

/**
 * The total of a receipt's positions, Σ of their lines over those that are not storno, as an exact
 * decimal string to pass as `Total`. Each line is taken as `lineTotal` takes it, with the same
 * `rounding`: a weighed line without one is refused. Every position is checked, storno ones too;
 * problems are named by their path in the receipt (`/Positions/2/Qty`).
 *
 * @example
 * const Positions = Array.from({ length: 1000 }, () => ({ Name: "Bolt", IdSection: 1, Price: "0.10", Qty: 1 }));
 * receiptTotal(Positions); // "100"
 * receiptTotal([{ Name: "Cheese", IdSection: 1, Price: "625.25", Qty: 0.75 }], { rounding: "half-up" }); // "468.94"
 */
export function receiptTotal(positions: readonly ReceiptLineInput[], options: RoundingOptions = {}): string {
  const issues: ValidationIssue[] = [];
  let total = ZERO;
  if (!Array.isArray(positions)) issues.push({ path: "/Positions", message: "must be an array of positions" });
  else {
    positions.forEach((p, i) => {
      const at = `/Positions/${i}`;
      const line = readLine(p, at, issues);
      if (line && p.Storno !== true) total = addDecimal(total, toTiyn(line, p, at, options, issues));
    });
  }
  fail("receiptTotal", issues);
  return decimalToString(total);
}

/**
 * The change of a payment, Cash + NonCash − Total, exactly. Negative means the payment does not
 * cover the total (which the client refuses to send). Each amount must have at most two decimals
 * and not be negative: `0.1 + 0.2` or a negative `Cash` is a `RequestValidationError` naming it.
 */
export function receiptChange(payment: { Cash?: TengeInput; NonCash?: TengeInput; Total: TengeInput }): string {
  const issues: ValidationIssue[] = [];
  const value = (field: "Cash" | "NonCash" | "Total") => readTenge(payment?.[field], `/${field}`, issues, field === "Total");
  const change = subtractDecimal(addDecimal(value("Cash"), value("NonCash")), value("Total"));
  fail("receiptChange", issues);
  return compareDecimal(change, ZERO) === 0 ? "0" : decimalToString(change);
}
