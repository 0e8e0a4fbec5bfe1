// The card guard: card data never leaves in the clear. Requests are closed, so a name the spec does
// not know can only be inside an object the spec leaves open (`openAt`) or in `extraParams`; there
// the guard refuses a property named like card data (`pan`, `cvv`, `card`, `cardNumber`…) and any
// value that is or holds a card number (13 to 19 digits that pass the Luhn check). In the fields the spec
// declares as secrets (the cryptogram's `cardData`), a card number is refused too: only a cryptogram
// goes there. Fields the spec declares otherwise are left alone (a barcode may pass the Luhn check).
// The value is never shown: the error names the path only.
import type { ValidationIssue } from "../errors.js";
import { holdsCardNumber, looksLikeCardNumber, pathShown } from "./card-number.js";
import { pointerOf } from "./pointer.js";

export { looksLikeCardNumber } from "./card-number.js";

/**
 * Names that carry card data, as `nameForm` writes them: what a form (HTML's `cc-number`, `cc-exp`,
 * `cc-csc`), a gateway's field or a careless copy of one would send: the number, its expiry, its
 * security code, its holder, a PIN block. Not the bare words an open body may use for its own ends
 * (`exp`, `expiry`, `expiration`, `validUntil`, `pin`: a request's lifetime, a cash-out code).
 */
const CARD_NAME =
  /^(pan|cvv2?|cvc2?|cvn|cid|csc|card|cards|carddata|card(no|num|number|pan|data|cvv|cvc|csc|holder|holdername|exp|expiry|expdate)|cc|ccn|cc(num|number|cvv|csc|exp|expmonth|expyear|name)|creditcard(no|number)?|securitycode|primaryaccountnumber|(exp|expiry|expiration)(month|year|mm|yy|yyyy)|pinblock)$/;

/** Letters of other scripts drawn like the Latin ones of those names: a key `сvv` (Cyrillic с) reads as `cvv` to a person and to a careless server. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  а: "a",
  в: "b",
  с: "c",
  е: "e",
  н: "h",
  і: "i",
  ј: "j",
  к: "k",
  м: "m",
  о: "o",
  р: "p",
  ѕ: "s",
  т: "t",
  у: "y",
  х: "x",
  α: "a",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
};

const LOOK_ALIKE = new RegExp(`[${Object.keys(LOOK_ALIKES).join("")}]`, "g");

/** A property name as the guard compares it: compatibility forms folded (full-width letters), lower case, look-alikes as Latin, no spaces or separators (`Card_Number `, `card-number`). */
function nameForm(name: string): string {
  return name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, "")
    .replace(LOOK_ALIKE, (c) => LOOK_ALIKES[c]!);
}

/** True when a property name reads as one that carries card data. */
export const isCardName = (name: string): boolean => CARD_NAME.test(nameForm(name));

const NEVER = "card data is sent only as the gateway's cryptogram (customerData.cardData), never in the clear; the value is not shown";

/**
 * Searches an open part of a request, at any depth, for names and values of card data; the names the
 * open object itself declares (`declared`) are left to their schemas.
 */
function searchOpen(value: unknown, keys: string[], prefix: string, issues: ValidationIssue[], declared: readonly string[] = [], within: unknown[] = []): void {
  // A text is searched whole (`paid with 4111 1111 1111 1111`): nothing the spec declares is there to say it is not one.
  if (within.length > 0 && (typeof value === "string" ? holdsCardNumber(value) : looksLikeCardNumber(value))) {
    issues.push({ path: prefix + pathShown(pointerOf(keys)), message: `is or holds a card number: ${NEVER}` });
    return;
  }
  if (value === null || typeof value !== "object" || within.includes(value)) return;
  within.push(value);
  for (const [k, v] of Object.entries(value)) {
    if (within.length === 1 && declared.includes(k)) continue;
    keys.push(k);
    // A name that is itself a card number (an object keyed by card) is card data on the wire too.
    if (holdsCardNumber(k)) issues.push({ path: prefix + pathShown(pointerOf(keys)), message: `is a card number used as a name: ${NEVER}` });
    else if (isCardName(k)) issues.push({ path: prefix + pathShown(pointerOf(keys)), message: `is named like card data: ${NEVER}` });
    else searchOpen(v, keys, prefix, issues, [], within);
    keys.pop();
  }
  within.pop();
}

/** The values at a pointer with `*` for every array item (or every property of an open object). */
function at(value: unknown, keys: readonly string[], path: string[] = [], out: { keys: string[]; value: unknown }[] = []) {
  if (keys.length === 0) {
    out.push({ keys: path, value });
    return out;
  }
  if (value === null || typeof value !== "object") return out;
  const [key, ...rest] = keys as [string, ...string[]];
  const entries = key === "*" ? Object.entries(value) : Object.hasOwn(value, key) ? [[key, (value as Record<string, unknown>)[key]] as const] : [];
  for (const [k, v] of entries) at(v, rest, [...path, k], out);
  return out;
}

/** The sensitive names that are card fields, worked out once per client's set (this runs on every call). */
const cardFieldSets = new WeakMap<ReadonlySet<string>, ReadonlySet<string>>();
function cardFieldsOf(sensitive: ReadonlySet<string>): ReadonlySet<string> {
  let fields = cardFieldSets.get(sensitive);
  if (!fields) {
    fields = new Set([...sensitive].filter(isCardName));
    cardFieldSets.set(sensitive, fields);
  }
  return fields;
}

/**
 * Card data found where it must not be: in the input's open objects (`openAt`, JSON pointers), in
 * `extraParams`, and in the declared secret fields named like card data (of the spec's `sensitive`
 * names, `cardData`) other than as a cryptogram.
 */
export function cardDataIssues(
  input: Record<string, unknown>,
  openAt: Readonly<Record<string, readonly string[]>> | undefined,
  extra: Record<string, unknown> | undefined,
  sensitive: ReadonlySet<string>,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [pointer, declared] of Object.entries(openAt ?? {})) {
    const keys = pointer === "" ? [] : pointer.slice(1).split("/");
    for (const found of at(input, keys)) searchOpen(found.value, found.keys, "", issues, declared);
  }
  if (extra) searchOpen(extra, [], "(extraParams)", issues);
  const cardFields = cardFieldsOf(sensitive);
  if (cardFields.size > 0) searchSecrets(input, [], cardFields, issues);
  return dedupe(issues);
}

/** A declared secret field holding a card number in the clear (a cryptogram never looks like one). */
function searchSecrets(value: unknown, keys: string[], sensitive: ReadonlySet<string>, issues: ValidationIssue[]): void {
  if (value === null || typeof value !== "object") return;
  for (const [k, v] of Object.entries(value)) {
    keys.push(k);
    if (sensitive.has(k) && looksLikeCardNumber(v)) issues.push({ path: pathShown(pointerOf(keys)), message: `is a card number: ${NEVER}` });
    else if (typeof v === "object") searchSecrets(v, keys, sensitive, issues);
    keys.pop();
  }
}

/** An open object inside another open one is searched twice: each place is reported once. */
function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => !seen.has(i.path) && seen.add(i.path));
}
