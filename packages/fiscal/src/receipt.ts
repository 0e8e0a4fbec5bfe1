// Helpers for building receipts without float arithmetic: the total and the change come out exact.
import type { TengeInput } from "@paysys/core";
import { addDecimal, compareDecimal, decimalToString, subtractDecimal, toDecimal } from "@paysys/core/internal";
import { exactTotal } from "./checks.js";
import type { PositionInput } from "./generated/schema.js";

/**
 * The total of a receipt's positions as the service computes it, Σ (Price + Markup − Discount) · Qty
 * over those that are not storno, as an exact decimal string to pass as `Total`. A total with more
 * than two decimals (a weighed quantity times a price) cannot be a receipt's total: it is refused.
 *
 * @example
 * const Positions = Array.from({ length: 1000 }, () => ({ Name: "Bolt", IdSection: 1, Price: "0.10", Qty: 1 }));
 * receiptTotal(Positions); // "100"
 */
export function receiptTotal(positions: readonly Pick<PositionInput, "Price" | "Markup" | "Discount" | "Qty" | "Storno">[]): string {
  const total = exactTotal(positions);
  const text = decimalToString(total);
  if ((text.split(".")[1] ?? "").length > 2) throw new RangeError(`the exact total ${text} has more than 2 decimal places; adjust a price or a quantity`);
  return text;
}

/** The change of a payment, Cash + NonCash − Total, exactly. Negative means the payment does not cover the total. */
export function receiptChange(payment: { Cash?: TengeInput; NonCash?: TengeInput; Total: TengeInput }): string {
  const zero = toDecimal(0);
  const value = (v: TengeInput | undefined) => (v === undefined ? zero : toDecimal(v));
  const change = subtractDecimal(addDecimal(value(payment.Cash), value(payment.NonCash)), value(payment.Total));
  return compareDecimal(change, zero) === 0 ? "0" : decimalToString(change);
}
