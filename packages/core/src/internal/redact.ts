// Redaction: secrets never reach a log line or an error message. Two complementary ways:
// by key (a structured value: any property whose name the spec marks x-sensitive) and by value
// (free text such as a body excerpt: every secret the client holds is cut out, in the forms a
// server that echoes its input would write it back).
import { maskCardRuns } from "./card-number.js";
import { evaluatePointer } from "./pointer.js";

export const REDACTED = "[REDACTED]";

/** Header names that always carry credentials, whatever the scheme. */
const credentialHeaders = ["authorization", "cookie", "set-cookie", "proxy-authorization"];
/**
 * Header names a caller's own credential goes under (`X-Api-Key`, `X-Auth-Token`, `X-Session`,
 * `X-Merchant-Key`, `Private-Key`): a header the spec does not know is the caller's, and one named
 * so was logged as given. An idempotency key names a call, not a caller, and stays readable.
 */
const CREDENTIAL_NAME = /auth|token|secret|passw|api-?key|(^|-)key(-|$)|signature|session|credential|cookie/;
const isCredentialName = (lowerName: string) => {
  const name = lowerName.replace(/_/g, "-");
  return CREDENTIAL_NAME.test(name) && !name.includes("idempotency");
};

/** The values of the headers named as credentials, to cut out of texts (a server that echoes a request's headers into its error). */
export function* credentialHeaderValues(headers: Record<string, string>): Iterable<string> {
  for (const [name, value] of Object.entries(headers)) if (value && isCredentialName(name.toLowerCase())) yield value;
}

/**
 * Returns a deep copy with the values of sensitive keys replaced, and every card number inside a
 * text masked (one a caller wrote into a description or a note is logged as no card number). Keys
 * such as `__proto__` stay plain data.
 */
export function redactValue(value: unknown, sensitiveKeys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => redactValue(v, sensitiveKeys));
  if (typeof value === "string") return maskCards(value);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    Object.defineProperty(out, k, { value: sensitiveKeys.has(k) ? REDACTED : redactValue(v, sensitiveKeys), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * `value` (a redacted copy, changed in place) with every field of the object at `at` that is not in
 * `names` redacted: the fields of a body the spec marks `x-sensitive-extras`.
 */
export function redactUnnamed(value: unknown, at: readonly string[], names: readonly string[]): unknown {
  const target = evaluatePointer(value, at).value;
  if (target === null || typeof target !== "object" || Array.isArray(target)) return value;
  for (const k of Object.keys(target)) if (!names.includes(k)) (target as Record<string, unknown>)[k] = REDACTED;
  return value;
}

/** Returns the headers as a plain object with credential headers, and the `alsoSecret` ones (set by a security scheme), replaced. */
export function redactHeaders(headers: Headers, alsoSecret: Iterable<string> = []): Record<string, string> {
  const secret = new Set([...credentialHeaders, ...[...alsoSecret].map((h) => h.toLowerCase())]);
  const out: Record<string, string> = {};
  headers.forEach((v, k) => {
    const name = k.toLowerCase();
    out[k] = secret.has(name) || isCredentialName(name) ? REDACTED : v;
  });
  return out;
}

/** Collects the string values of sensitive keys anywhere in a value (to scrub them from text later). */
export function collectSecrets(value: unknown, sensitiveKeys: ReadonlySet<string>, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) collectSecrets(v, sensitiveKeys, into);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (sensitiveKeys.has(k) && (typeof v === "string" || typeof v === "number") && String(v).length > 0) into.add(String(v));
      else collectSecrets(v, sensitiveKeys, into);
    }
  }
  return into;
}

/**
 * The forms a secret takes when a server writes it back: as is, JSON-escaped, URL-encoded (as
 * `encodeURIComponent` and as a form does, which writes a space as `+` and escapes `!'()~`),
 * HTML-escaped, and with its spaces as `+` (a form's encoding, its `%xx` undone by `unescaped`).
 */
function forms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const html = secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  let url = secret;
  try {
    url = encodeURIComponent(secret);
  } catch {
    // a lone surrogate cannot be URL-encoded; the other forms still apply
  }
  const form = new URLSearchParams([["", secret]]).toString().slice(1);
  const all = [secret, json, url, url.replace(/%20/g, "+"), form, html, secret.replace(/ /g, "+")];
  // Base64 (a Basic header's credentials) as a server may write it back: unpadded, or Base64url.
  if (/^[A-Za-z0-9+/]{6,}={1,2}$/.test(secret)) all.push(secret.replace(/=+$/, ""), secret.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"));
  return [...new Set(all)].sort((a, b) => b.length - a.length);
}

/** A secret this long is also cut in any case (a server that upper-cases its echo) and by its start. */
const LOOSE_LENGTH = 8;
/** A secret's first characters that, echoed alone (a token shown as `eyJhbGciOiJI…`), are cut with whatever of the rest follows them. */
const PREFIX_LENGTH = 12;
const escapedForRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const headOf = (form: string) => (form.length >= PREFIX_LENGTH + 4 ? form.slice(0, PREFIX_LENGTH) : form);
/** How far from `at` the text reads as `form` in any case (0 when not even its head does). */
function reach(text: string, at: number, form: string): number {
  let i = 0;
  while (i < form.length && at + i < text.length && text[at + i]!.toLowerCase() === form[i]!.toLowerCase()) i++;
  return i >= headOf(form).length ? i : 0;
}

/**
 * `text` with a secret cut out regardless of case, and, for a long one, every run that begins as it
 * does (its first PREFIX_LENGTH characters, then as many more of it as follow) cut out too. All its
 * `forms` at once, each run as far as the form that reaches furthest: one form cut first (its
 * URL-encoding, which parts from the Base64 at a `/`) would leave the rest of another in the text.
 */
function cutLoose(text: string, forms: string[]): string {
  const loose = forms.filter((f) => f.length >= LOOSE_LENGTH);
  if (loose.length === 0) return text;
  const find = new RegExp([...new Set(loose.map(headOf))].map(escapedForRegExp).join("|"), "gi");
  let out = "";
  let from = 0;
  for (let m = find.exec(text); m; m = find.exec(text)) {
    const end = m.index + Math.max(m[0].length, ...loose.map((f) => reach(text, m!.index, f)));
    out += text.slice(from, m.index) + REDACTED;
    from = find.lastIndex = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * A text with the `user:password@` of every URL in it taken out (`redis://u:p@host` → `redis://host`):
 * a driver's message may quote its connection string. A user name alone (`postgres://till@host`) stays.
 */
export const withoutUrlCredentials = (text: string) => text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]*@/gi, "$1");

/**
 * An HTTP address as a log line, an error or a store's name shows it: without its user and password
 * (a gateway's basic auth in `baseUrl`), a lone user too (an API key may be one). An address that does
 * not parse loses whatever sits between `//` and an `@`.
 */
export function addressShown(address: string): string {
  try {
    const url = new URL(address);
    url.username = "";
    url.password = "";
    return url.href;
  } catch {
    return address.replace(/\/\/[^/?#\s]*@/g, "//");
  }
}

/** Error fields that describe a failed connection and never carry a request's content. */
const CAUSE_FIELDS = ["code", "errno", "syscall", "address", "port"] as const;

/**
 * What an error thrown under a request (by a `fetch`, an agent, a proxy) may keep as its `cause`:
 * a copy with its message and stack scrubbed, its connection fields (`code`, `syscall`…) and its own
 * cause likewise, and nothing else. The error as thrown may quote the request (a custom `fetch` that
 * echoes its headers, Node's `TypeError` whose `input` is the address with its password), and a
 * `cause` is printed whole by `console.error` and `util.inspect`.
 */
export function causeShown(e: unknown, secrets: Iterable<string>, depth = 0): Error | undefined {
  if (e === undefined || e === null || depth > 3) return undefined;
  const list = [...secrets];
  const given = e instanceof Error ? e : undefined;
  const copy = new Error(scrub(given ? given.message : String(e), list));
  copy.name = given ? given.name : "Error";
  copy.stack = given?.stack === undefined ? `${copy.name}: ${copy.message}` : scrub(given.stack, list);
  for (const field of CAUSE_FIELDS) {
    const value = (given as Record<string, unknown> | undefined)?.[field];
    if (typeof value === "string" || typeof value === "number") Object.assign(copy, { [field]: typeof value === "string" ? scrub(value, list) : value });
  }
  const cause = causeShown(given?.cause, list, depth + 1);
  if (cause) copy.cause = cause;
  return copy;
}

const JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const HTML_NAMES: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
const codePoint = (n: number, whole: string) => (n <= 0x10ffff ? String.fromCodePoint(n) : whole);

/**
 * A text with the escapes a server may write a secret in undone: JSON's in any style (PHP's `\/`,
 * `\u00e9` for every non-ASCII letter, as PHP, Python and .NET write by default), HTML's character
 * references (`&#47;`, `&#x2F;`) and percent-encoding in either case. A secret echoed that way was
 * in an error's body excerpt, where only the forms `JSON.stringify` writes were cut.
 */
function unescaped(text: string): string {
  return text
    .replace(/\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g, (_, hex: string | undefined, c: string | undefined) =>
      hex ? String.fromCharCode(Number.parseInt(hex, 16)) : JSON_ESCAPES[c!]!,
    )
    .replace(/&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g, (whole, dec: string | undefined, hex: string | undefined, name: string | undefined) =>
      name ? HTML_NAMES[name]! : codePoint(dec ? Number(dec) : Number.parseInt(hex!, 16), whole),
    )
    .replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run; // not UTF-8: left as it is
      }
    });
}

/** Cuts every known secret, in each of its `forms`, out of a text. */
function cut(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) {
    if (!s) continue;
    const all = forms(s);
    for (const f of all) if (out.includes(f)) out = out.split(f).join(REDACTED);
    out = cutLoose(out, all);
  }
  return out;
}

const maskRuns = (text: string) => maskCardRuns(text, REDACTED);

/**
 * Card numbers masked as written and under escaping (URL-encoded, JSON- or HTML-escaped, a few times
 * over): where escapes hid one, the text is shown with them undone, the number masked.
 */
function maskCards(text: string): string {
  let out = maskRuns(text);
  let plain = out;
  for (let round = 0; round < 3; round++) {
    const next = unescaped(plain);
    if (next === plain) break;
    plain = maskRuns(next);
    if (plain !== next) out = plain;
  }
  return out;
}

/**
 * Cuts every known secret out of a text, in each of its echoed forms and under any escaping, once or
 * a few times over (the text is shown with its escapes undone, cut as written before each undoing:
 * a secret that itself looks escaped goes too).
 * Short values are cut too: a captcha is short. Card numbers go whether known or not: a service
 * that quotes one (another card's, the one inside a cryptogram) puts it in no message of ours.
 */
export function scrub(given: string, secrets: Iterable<string>): string {
  const text = maskCards(withoutUrlCredentials(given));
  // Whatever a step or a store gives as a secret, only text is cut (a number as its digits).
  const list = [...secrets].map(secretText).filter((v): v is string => Boolean(v));
  if (list.length === 0) return text;
  // Escaped more than once (a proxy's JSON error quoting the service's JSON): undone again, a few times.
  let out = cut(text, list);
  for (let round = 0; round < 3; round++) {
    const next = cut(unescaped(out), list);
    if (next === out) break;
    out = next;
  }
  return out;
}

/**
 * A secret as the text it is sent as: a password or a captcha answer given as a number is still one
 * (kept as a number, every later scrub failed: `secret.replace is not a function`); anything else is none.
 */
const secretText = (value: unknown): string | undefined => (typeof value === "string" ? value : typeof value === "number" ? String(value) : undefined);

/**
 * The secrets a client holds besides those of one call: credentials, and values it saw recently
 * (captcha texts, tokens). Recent values are kept in a bounded ring so a long-running client does
 * not grow without end; pinned values (credentials) stay until the client drops them.
 */
export class SecretSet implements Iterable<string> {
  readonly #pinned = new Set<string>();
  readonly #recent: string[] = [];
  readonly #limit: number;

  constructor(limit = 64) {
    this.#limit = limit;
  }

  pin(value: unknown): void {
    const text = secretText(value);
    if (text) this.#pinned.add(text);
  }

  /** Pins every text and number in a value, at any depth (a credential whose fields no source shows). */
  pinEvery(value: unknown): void {
    if (value !== null && typeof value === "object") for (const v of Object.values(value)) this.pinEvery(v);
    else this.pin(value);
  }

  remember(value: unknown): void {
    const text = secretText(value);
    if (!text || this.#pinned.has(text) || this.#recent.includes(text)) return;
    this.#recent.push(text);
    if (this.#recent.length > this.#limit) this.#recent.shift();
  }

  *[Symbol.iterator](): Iterator<string> {
    yield* this.#pinned;
    yield* this.#recent;
  }
}
