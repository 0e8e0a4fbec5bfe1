// The receipt rules the service applies (server sample, fiscal_operations/sells.go), checked before
// a receipt is sent, in exact decimals, so a wrong receipt is refused here with the field that is
// wrong instead of by the service, after it cost a link of the chain. One more is the SDK's own:
// the payment must cover the total (a negative change is refused).
import type { ValidationIssue } from "@paysys/core";
import { addDecimal, type Check, compareDecimal, type Decimal, decimalToString, multiplyDecimal, subtractDecimal, toDecimal } from "@paysys/core/internal";

const ZERO: Decimal = { units: 0n, scale: 0 };
const amount = (v: unknown): Decimal => (typeof v === "number" || typeof v === "string" ? toDecimal(v) : ZERO);

interface PositionValues {
  Price?: unknown;
  Markup?: unknown;
  Discount?: unknown;
  Qty?: unknown;
  Storno?: unknown;
}

/** Σ (Price + Markup − Discount) · Qty over the positions that are not storno, exactly. */
export function exactTotal(positions: readonly PositionValues[]): Decimal {
  let total = ZERO;
  for (const p of positions) {
    if (p.Storno !== true) total = addDecimal(total, multiplyDecimal(subtractDecimal(addDecimal(amount(p.Price), amount(p.Markup)), amount(p.Discount)), amount(p.Qty)));
  }
  return total;
}

/**
 * An amount in integer tiyn when it is a number with at most two decimals well inside the safe
 * integers (below 10^13 tenge, where every such decimal is one double and back), NaN otherwise.
 * Absent is 0, as in the exact path. Unlike core's `tiyn`, it never throws and uses no decimals:
 * it only has to prove the common receipt right, and leaves every doubt to the exact path.
 */
function tiynOrNaN(v: unknown): number {
  if (v === undefined) return 0;
  if (typeof v !== "number") return Number.NaN;
  const t = Math.round(v * 100);
  return Math.abs(t) < 1e15 && t / 100 === v ? t : Number.NaN;
}

/**
 * True when the totals rules provably hold, computed in integer tiyn with plain numbers: every
 * amount a number with at most two decimals, every quantity a whole number, every product and sum
 * a safe integer. This is the common receipt, and it costs a fraction of the BigInt decimals. Any
 * value outside that, or any rule broken, answers false, and the exact path decides and explains.
 */
export function totalsHoldInTiyn(input: Record<string, unknown>): boolean {
  if (!Array.isArray(input.Positions)) return false;
  let expected = 0;
  for (const p of input.Positions as PositionValues[]) {
    if (p === null || typeof p !== "object") return false;
    if (p.Storno === true) continue;
    const qty = p.Qty;
    if (typeof qty !== "number" || !Number.isSafeInteger(qty)) return false;
    expected += (tiynOrNaN(p.Price) + tiynOrNaN(p.Markup) - tiynOrNaN(p.Discount)) * qty;
  }
  const total = tiynOrNaN(input.Total);
  const cash = tiynOrNaN(input.Cash);
  const nonCash = tiynOrNaN(input.NonCash);
  // NaN anywhere fails every comparison below, so it falls to the exact path.
  return Number.isSafeInteger(expected) && expected === total && nonCash <= total && !(nonCash === total && cash > 0) && cash + nonCash - total >= 0;
}

/**
 * The totals of a receipt: positions to `Total`, `NonCash` within `Total`, no cash beside a full
 * non-cash payment, a payment that covers the total. Answered in tiyn when that proves them, in
 * exact decimals otherwise.
 */
export const receiptTotals: Check = (input, ctx) => (totalsHoldInTiyn(input) ? [] : exactReceiptTotals(input, ctx));

/** The same rules in exact decimals, with a message for each one broken. */
export const exactReceiptTotals: Check = (input) => {
  const issues: ValidationIssue[] = [];
  const positions = Array.isArray(input.Positions) ? (input.Positions as PositionValues[]) : [];
  const total = amount(input.Total);
  const cash = amount(input.Cash);
  const nonCash = amount(input.NonCash);
  const expected = exactTotal(positions);
  if (compareDecimal(expected, total) !== 0) {
    issues.push({
      path: "/Total",
      message: `must equal Σ (Price + Markup − Discount) · Qty of the positions that are not storno, ${decimalToString(expected)} (got ${decimalToString(total)})`,
    });
  }
  if (compareDecimal(nonCash, total) > 0) issues.push({ path: "/NonCash", message: `must not exceed Total (${decimalToString(nonCash)} > ${decimalToString(total)})` });
  else if (compareDecimal(nonCash, total) === 0 && compareDecimal(cash, ZERO) > 0) issues.push({ path: "/Cash", message: "must be 0 when NonCash covers the Total" });
  const change = subtractDecimal(addDecimal(cash, nonCash), total);
  if (compareDecimal(change, ZERO) < 0) {
    issues.push({
      path: "/Cash",
      message: `Cash + NonCash (${decimalToString(addDecimal(cash, nonCash))}) must cover the Total (${decimalToString(total)}); the change cannot be negative`,
    });
  }
  return issues;
};

/** Which version of the official autonomous-mode rules to apply (see `x-autonomous-mode` in the spec). */
export type AutonomousRules = "newer" | "older";

/** The older rules want `ReceiptDate` with a non-zero `AFP`; the newer ones fill both in. */
export function autonomousReceipt(rules: AutonomousRules): Check {
  return (input) =>
    rules === "older" && typeof input.AFP === "number" && input.AFP !== 0 && input.ReceiptDate === undefined
      ? [{ path: "/ReceiptDate", message: 'is required with a non-zero AFP (the older autonomous-mode rules, client option autonomousRules: "older")' }]
      : [];
}
