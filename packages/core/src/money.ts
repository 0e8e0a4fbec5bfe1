// Money. E-commerce amounts are integer tiyn (1 tenge = 100 tiyn); cash-register amounts are
// tenge with at most two decimals. Conversions are exact (decimal arithmetic on BigInt, never a
// float product), and anything that is not a whole number of tiyn is refused, never rounded.
import { hasAtMostDecimals, toDecimal } from "./decimal.js";
import { InvalidArgumentError } from "./errors.js";
import { shownValue } from "./shown.js";

/**
 * Tiyn from an amount in tenge: `tiyn("100.50")` → 10050, `tiyn(19.99)` → 1999. Refuses negative
 * amounts and amounts with more than two decimals (an InvalidArgumentError), so nothing is silently rounded.
 */
export function tiyn(tengeAmount: number | string): number {
  if ((typeof tengeAmount !== "number" && typeof tengeAmount !== "string") || !hasAtMostDecimals(tengeAmount, 2))
    throw new InvalidArgumentError("tiyn", `not an amount in tenge with at most 2 decimal places: ${shownValue(tengeAmount)}`);
  const d = toDecimal(tengeAmount);
  if (d.units < 0n) throw new InvalidArgumentError("tiyn", `a negative amount: ${String(tengeAmount)}`);
  const units = d.units * 10n ** BigInt(2 - d.scale);
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) throw new InvalidArgumentError("tiyn", `too large to be exact in tiyn: ${String(tengeAmount)}`);
  return Number(units);
}

/** Tenge as a decimal string from tiyn: `tenge(10050)` → "100.50". Refuses what is not a whole, non-negative number of tiyn. */
export function tenge(tiynAmount: number): string {
  if (!Number.isSafeInteger(tiynAmount) || tiynAmount < 0) throw new InvalidArgumentError("tenge", `not a whole, non-negative number of tiyn: ${shownValue(tiynAmount)}`);
  const s = String(tiynAmount).padStart(3, "0");
  return `${s.slice(0, -2)}.${s.slice(-2)}`;
}
