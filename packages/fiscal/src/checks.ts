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

/** The totals of a receipt: positions to `Total`, `NonCash` within `Total`, no cash beside a full non-cash payment, a payment that covers the total. */
export const receiptTotals: Check = (input) => {
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
