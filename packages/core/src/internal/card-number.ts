// Telling a card number when one is written, apart from the card guard (card-guard.ts) so the
// places that only need to recognise one (redaction, the paths a validation error names) load no more.

/**
 * Digits in groups with one separator between them, the same throughout (`4111.1111.1111.1111`,
 * `4111/1111/1111/1111`, `4111_1111_1111_1111`, Amex's `3782.822463.10005`): a card number's groups,
 * not a decimal's, a date's or an IP address's (those fail the length or the Luhn check).
 */
const GROUPED = /^\d{4}([./_+,:|\\])\d{1,6}(?:\1\d{1,6})+$/;

/** Spaces of any kind, dashes of any kind and invisible format characters (a zero-width space copied with a number). */
const SPACING = /[\s\p{Pd}\p{Cf}]/gu;

/**
 * True when a value is written like a card number: 13 to 19 digits (spaces, dashes and invisible
 * characters aside, one separator between groups, full-width digits as digits) that pass the Luhn check.
 */
export function looksLikeCardNumber(value: unknown): boolean {
  if (typeof value !== "string" && typeof value !== "number") return false;
  const written = String(value).normalize("NFKC").replace(SPACING, "");
  const digits = GROUPED.test(written) ? written.replace(/\D/g, "") : written;
  if (!/^\d{13,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

/** What a path shows in place of a name that is a card number. */
export const CARD_NUMBER_SHOWN = "[card number]";

/**
 * A JSON pointer as an error shows it: a name in it that is a card number (an object keyed by one,
 * `{ "4111…": 1 }`) is shown as `[card number]`, as a value would never be shown.
 */
export function pathShown(path: string): string {
  if (!/\d{4}/.test(path)) return path;
  return path
    .split("/")
    .map((key) => (looksLikeCardNumber(key.replace(/~1/g, "/").replace(/~0/g, "~")) ? CARD_NUMBER_SHOWN : key))
    .join("/");
}

/**
 * A run of 13 to 19 digits, up to two spaces, tabs, dashes, pluses (a form's spaces), zero-width
 * characters or group separators (`.`, `/`, `_`…) between them: a card number when the card guard
 * reads it as one (separators only between groups: two IP addresses are no card), Luhn included.
 * Its first digit is 2 to 9 (8600 UzCard, 9860 Humo, 9112 Belkart, 9792 Troy as well as the
 * international networks), or 1 for 14 digits and more (UATP's 15): a millisecond timestamp's 13
 * digits begin with 1, and one in ten would pass the check.
 */
const SEPARATED_DIGIT = "[ \\t.+\\-/_,:|\\\\\\u200b-\\u200d\\u2060\\ufeff]{0,2}\\d";
const DIGIT_RUN = new RegExp(`(?<!\\d)(?:[2-9](?:${SEPARATED_DIGIT}){12,18}|1(?:${SEPARATED_DIGIT}){13,18})(?!\\d)`, "g");

/** A text with every card number written in it (DIGIT_RUN, Luhn included) shown as `shown`. */
export function maskCardRuns(text: string, shown: string = CARD_NUMBER_SHOWN): string {
  return text.replace(DIGIT_RUN, (run) => (looksLikeCardNumber(run.replace(/\+/g, " ")) ? shown : run));
}

/** True when a text is a card number, or one is written anywhere in it (`paid with 4111 1111 1111 1111`): what maskCardRuns would mask. */
export const holdsCardNumber = (text: string): boolean => looksLikeCardNumber(text) || maskCardRuns(text) !== text;

/** Why a header holding a card number is refused (its value never shown). */
export const CARD_IN_HEADER = "holds a card number: card data is never sent in the clear; the value is not shown";
