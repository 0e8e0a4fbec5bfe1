// The receipt rules the service applies (server sample, fiscal_operations/sells.go), checked before
// a receipt is sent, in exact decimals, so a wrong receipt is refused here with the field that is
// wrong instead of by the service, after it cost a link of the chain. Some are the SDK's own (the
// spec marks them `by: sdk`): the payment covers the total, every quantity is above 0, no discount
// is above its line.
import type { ValidationIssue } from "@paysys/core/calls";
import { addDecimal, type Check, compareDecimal, type Decimal, decimalToString, roundedSumRange } from "@paysys/core/internal";
import { amount, lineValue, type PositionValues, positionIssues, ZERO } from "./positions.js";

/**
 * The totals the positions that are not storno allow: each line rounded to tiyn either way, since
 * the service's rounding of a weighed line is not public (a point when every line is whole tiyn).
 * Undefined when a value is not a plain decimal.
 */
export function totalRange(positions: readonly PositionValues[]): { low: Decimal; high: Decimal } | undefined {
  const lines: Decimal[] = [];
  for (const p of positions) {
    if (p.Storno === true) continue;
    const line = lineValue(p);
    if (!line) return undefined;
    lines.push(line);
  }
  return roundedSumRange(lines, 2);
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

/** The `Total` against what its lines allow; nothing when a line cannot be read (`receipt-lines` names it). */
function totalIssues(positions: readonly PositionValues[], total: Decimal): ValidationIssue[] {
  const range = totalRange(positions);
  if (!range || (compareDecimal(total, range.low) >= 0 && compareDecimal(total, range.high) <= 0)) return [];
  const sum = "Σ (Price + Markup − Discount) · Qty of the positions that are not storno";
  const got = `(got ${decimalToString(total)})`;
  if (compareDecimal(range.low, range.high) === 0) return [{ path: "/Total", message: `must equal ${sum}, ${decimalToString(range.low)} ${got}` }];
  return [
    {
      path: "/Total",
      message: `must be ${sum} with each line rounded to tiyn, between ${decimalToString(range.low)} and ${decimalToString(range.high)} ${got}; the service's rounding is not public: compute it with receiptTotal(Positions, { rounding })`,
    },
  ];
}

/** The same rules in exact decimals, with a message for each one broken. */
export const exactReceiptTotals: Check = (input) => {
  const positions = Array.isArray(input.Positions) ? (input.Positions as PositionValues[]) : [];
  const [total, cash, nonCash] = [amount(input.Total) ?? ZERO, amount(input.Cash) ?? ZERO, amount(input.NonCash) ?? ZERO];
  const issues = totalIssues(positions, total);
  if (compareDecimal(nonCash, total) > 0) issues.push({ path: "/NonCash", message: `must not exceed Total (${decimalToString(nonCash)} > ${decimalToString(total)})` });
  else if (compareDecimal(nonCash, total) === 0 && compareDecimal(cash, ZERO) > 0) issues.push({ path: "/Cash", message: "must be 0 when NonCash covers the Total" });
  const paid = addDecimal(cash, nonCash);
  if (compareDecimal(paid, total) < 0) {
    issues.push({
      path: "/Cash",
      message: `Cash + NonCash (${decimalToString(paid)}) must cover the Total (${decimalToString(total)}); the change cannot be negative (the SDK's own rule)`,
    });
  }
  return issues;
};

/** `receipt-lines`: every position's quantity above 0 and no discount above its line, with the position's path. */
export const receiptLines: Check = (input) =>
  Array.isArray(input.Positions) ? (input.Positions as PositionValues[]).flatMap((p, i) => (p && typeof p === "object" ? positionIssues(p, `/Positions/${i}`) : [])) : [];

/** Which version of the official autonomous-mode rules to apply (see `x-autonomous-mode` in the spec). */
export type AutonomousRules = "newer" | "older";

/** The older rules want `ReceiptDate` with a non-zero `AFP`; the newer ones fill both in. */
export function autonomousReceipt(rules: AutonomousRules): Check {
  return (input) =>
    rules === "older" && typeof input.AFP === "number" && input.AFP !== 0 && input.ReceiptDate === undefined
      ? [{ path: "/ReceiptDate", message: 'is required with a non-zero AFP (the older autonomous-mode rules, client option autonomousRules: "older")' }]
      : [];
}
