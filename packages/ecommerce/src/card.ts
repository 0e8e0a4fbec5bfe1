// @paysys/ecommerce/card: what a merchant's payment form needs to turn card data into the
// gateway's cryptogram in the buyer's browser, so the card number never reaches the merchant's
// server. Also used on servers (payouts to a card number). The key is imported with WebCrypto, so
// the same code runs in browsers and servers; where the runtime has node:crypto (Node, Bun, Deno)
// the encryption itself is node:crypto's, on the same key (WebCrypto hops to a worker thread and
// back for each card: 0.2 of publicEncrypt's speed). The recipe (spec `x-cryptogram`): a JSON of
// string values, encrypted with RSA-OAEP, SHA-256 for OAEP and MGF1, empty label, then standard Base64.
//
// No error message and no issue ever contains the card number or the CVV.
import { ConfigurationError, InvalidArgumentError, RequestValidationError, type ValidationIssue } from "@paysys/core/calls";

/** A card for a payment: what the buyer types. */
export interface PaymentCard {
  /** The card number; spaces and dashes are ignored. */
  pan: string;
  /** 1–12 (or "01"–"12"). */
  month: string | number;
  /** Four digits, or two ("27" is 2027). */
  year: string | number;
  cvv: string;
  cardholder?: string;
  /** The buyer's IP address, if you know it. */
  ip?: string;
}

/** A card to pay out to: its number only. */
export interface PayoutCard {
  pan: string;
}

/** What `customerData.cardData` takes: a cryptogram, or a card the SDK encrypts. */
export type CardDataInput = string | PaymentCard | PayoutCard;

/** The gateway's public key: PEM text, a JSON Web Key, or a key already imported. */
export type GatewayKey = string | JsonWebKey | CryptoKey;

/** A field as text: only strings and numbers are card data; anything else reads as empty (and is refused). */
const text = (s: unknown) => (typeof s === "string" || typeof s === "number" ? String(s) : "");
const digits = (s: unknown) => text(s).replace(/[\s-]/g, "");

/** The Luhn check of a card number: false for anything that is not digits (spaces and dashes aside). */
export function luhn(pan: string): boolean {
  if (typeof pan !== "string") throw new InvalidArgumentError("luhn", "the card number must be a string of digits");
  pan = digits(pan);
  return /^\d+$/.test(pan) && luhnOfDigits(pan);
}

/** The Luhn check of a string of digits only. */
function luhnOfDigits(pan: string): boolean {
  let sum = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

const PAYMENT_FIELDS = ["pan", "month", "year", "cvv", "cardholder", "ip"];
const isPayment = (card: PaymentCard | PayoutCard): card is PaymentCard => "cvv" in card || "month" in card || "year" in card;

/** What is wrong with a card, field by field; empty when nothing is. */
export function checkCard(card: PaymentCard | PayoutCard, now: Date = new Date()): ValidationIssue[] {
  if (!(now instanceof Date) || Number.isNaN(now.getTime())) throw new InvalidArgumentError("checkCard", "now must be a valid Date");
  if (card === null || typeof card !== "object" || Array.isArray(card)) return [{ path: "", message: "must be a card: { pan, month, year, cvv } or { pan }" }];
  const issues: ValidationIssue[] = [];
  // A misspelt field (`cardholdr`, `cvc`) would be left out of the cryptogram unseen, or make a payment card read as a payout's.
  const fields = isPayment(card) ? PAYMENT_FIELDS : ["pan"];
  for (const k of Object.keys(card)) if (!fields.includes(k)) issues.push({ path: `/${k}`, message: `is not a field of a card (${fields.join(", ")})` });
  for (const k of ["cardholder", "ip"] as const) {
    const v = (card as PaymentCard)[k];
    // null reads as none, as it always did (a form's empty field, a nullable column).
    if (v !== undefined && v !== null && (typeof v !== "string" || /\p{Cc}/u.test(v))) issues.push({ path: `/${k}`, message: "must be one line of text" });
  }
  const pan = digits(card.pan);
  if (!/^\d{12,19}$/.test(pan)) issues.push({ path: "/pan", message: "must be 12 to 19 digits" });
  else if (!luhnOfDigits(pan)) issues.push({ path: "/pan", message: "is not a valid card number (its check digit is wrong)" });
  if (!isPayment(card)) return issues;
  const month = Number(text(card.month) || Number.NaN);
  const yearDigits = digits(card.year);
  const year = Number(yearDigits.length === 2 ? `20${yearDigits}` : yearDigits || Number.NaN);
  if (!Number.isInteger(month) || month < 1 || month > 12) issues.push({ path: "/month", message: "must be a month from 1 to 12" });
  if (!Number.isInteger(year) || year < 2000 || year > 2100) issues.push({ path: "/year", message: "must be a year such as 2027" });
  else if (Number.isInteger(month) && year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) issues.push({ path: "/year", message: "the card has expired" });
  if (!/^\d{3,4}$/.test(text(card.cvv))) issues.push({ path: "/cvv", message: "must be 3 or 4 digits" });
  return issues;
}

/** The cryptogram's plaintext: a payment card's fields (all strings), or `{ pan }` for a payout. */
export function cardPlaintext(card: PaymentCard | PayoutCard): string {
  const pan = digits(card.pan);
  if (!isPayment(card)) return JSON.stringify({ pan });
  const month = String(Number(card.month)).padStart(2, "0");
  const yearDigits = digits(card.year);
  const year = yearDigits.length === 2 ? `20${yearDigits}` : yearDigits;
  return JSON.stringify({ cardholder: card.cardholder ?? "", month, pan, validity: `${month}/${year.slice(-2)}`, year, cvv: String(card.cvv), ip: card.ip ?? "" });
}

/** WebCrypto, which browsers give only to secure contexts (HTTPS pages, localhost). */
function subtle(): SubtleCrypto {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new ConfigurationError("card encryption needs WebCrypto (crypto.subtle), which a browser gives only to pages served over HTTPS", { operation: "card" });
  return s;
}

/** Imports the gateway's key for RSA-OAEP with SHA-256. */
export async function importGatewayKey(key: GatewayKey): Promise<CryptoKey> {
  if (isCryptoKey(key)) return key;
  try {
    return await importKeyText(key);
  } catch (e) {
    if (e instanceof ConfigurationError) throw e;
    // WebCrypto's own errors (DataError, a failed atob) name no field: this one says what was wrong.
    throw new ConfigurationError("card: the gateway's key is not an RSA public key (PEM text, a JSON Web Key or an imported CryptoKey)", { operation: "card" });
  }
}

const isCryptoKey = (key: GatewayKey): key is CryptoKey => typeof CryptoKey === "function" && key instanceof CryptoKey;

async function importKeyText(key: GatewayKey): Promise<CryptoKey> {
  if (key === null || (typeof key !== "string" && typeof key !== "object")) throw new TypeError("not a key");
  const algorithm = { name: "RSA-OAEP", hash: "SHA-256" };
  if (typeof key !== "string") {
    // The key's own `alg` may name another hash; the recipe is SHA-256, so it is set here.
    const { alg: _alg, key_ops: _ops, use: _use, ...jwk } = key as JsonWebKey;
    return subtle().importKey("jwk", { ...jwk, alg: "RSA-OAEP-256", ext: true }, algorithm, false, ["encrypt"]);
  }
  const body = key.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  return subtle().importKey("spki", der, algorithm, false, ["encrypt"]);
}

/**
 * Checks a card and encrypts it into the gateway's cryptogram (standard Base64), to put in
 * `customerData.cardData`. Never store the cryptogram.
 *
 * @example
 * const cryptogram = await encryptCard({ pan: "4400 4300 0000 0007", month: 10, year: 2027, cvv: "123" }, key);
 */
export async function encryptCard(card: PaymentCard | PayoutCard, key: GatewayKey | Promise<GatewayKey>): Promise<string> {
  // The card is read now, before anything awaits: the card given is the card encrypted. (A key still
  // coming is awaited below; should the card be refused first, its failure is not left unhandled.)
  if (key instanceof Promise) key.catch(() => {});
  // Each field read once: a getter cannot show the check one card and the cryptogram another.
  const read = card !== null && typeof card === "object" && Object.getPrototypeOf(card) === Object.prototype ? { ...card } : card;
  const issues = checkCard(read);
  if (issues.length) throw new RequestValidationError("card", issues);
  const plaintext = cardPlaintext(read);
  // A key already imported (the client's, every card after the first) is used without an await:
  // in Node, where the encryption itself is synchronous, each await is a measurable part of a card.
  const given = key instanceof Promise ? await key : key;
  const imported = isCryptoKey(given) ? given : await importGatewayKey(given);
  checkFits(read, plaintext, imported);
  const viaNode = nodeEncrypt(imported, plaintext);
  if (viaNode !== undefined) return viaNode;
  const cipher = await subtle().encrypt({ name: "RSA-OAEP" }, imported, new TextEncoder().encode(plaintext));
  // An RSA block is at most 512 bytes, well under `fromCharCode`'s argument limit. (Not core's
  // base64 helper: importing core's internals would bring the whole transport into the page.)
  return btoa(String.fromCharCode(...new Uint8Array(cipher)));
}

/**
 * RSA-OAEP encrypts one block: at most the key's size less 66 bytes with SHA-256 (RFC 8017 §7.1.1),
 * 190 bytes of JSON for a 2048-bit key. Longer, both crypto stacks throw a bare "data too large"
 * that names no field; the free-text fields (cardholder, ip) are what can make it so.
 */
function checkFits(card: PaymentCard | PayoutCard, plaintext: string, key: CryptoKey): void {
  const room = ((key.algorithm as RsaHashedKeyAlgorithm).modulusLength >> 3) - 66;
  const size = new TextEncoder().encode(plaintext).length;
  if (size <= room) return;
  const { cardholder, ip } = card as PaymentCard;
  const path = (ip?.length ?? 0) > (cardholder?.length ?? 0) ? "/ip" : "/cardholder";
  throw new RequestValidationError("card", [{ path, message: `is too long: the card's data is ${size} bytes, one RSA-OAEP block of the key holds ${room}` }]);
}

interface NodeCrypto {
  KeyObject: { from(key: CryptoKey): unknown };
  /** A string is encrypted as its UTF-8 bytes. */
  publicEncrypt(key: { key: unknown; padding: number; oaepHash: string }, data: string): { toString(encoding: "base64"): string };
  constants: { RSA_PKCS1_OAEP_PADDING: number };
}
/** node:crypto where the runtime has it, taken at run time so no browser bundler meets a `node:` import. */
let nodeCryptoModule: NodeCrypto | null | undefined;
/** Taken on the first card rather than at import (loading node:crypto costs a process ~5 ms); null where the runtime has none. */
const nodeCrypto = (): NodeCrypto | null =>
  (nodeCryptoModule ??=
    ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined) ?? null);
/** Each WebCrypto key as node:crypto's, made once (null: this runtime cannot convert it). */
const nodeKeys = new WeakMap<CryptoKey, unknown>();

/** RSA-OAEP with SHA-256 by node:crypto on the same key, in Base64; undefined where it cannot. */
function nodeEncrypt(key: CryptoKey, plaintext: string): string | undefined {
  const node = nodeCrypto();
  if (!node) return undefined;
  let converted = nodeKeys.get(key);
  if (converted === undefined) {
    try {
      converted = node.KeyObject.from(key);
    } catch {
      converted = null;
    }
    nodeKeys.set(key, converted);
  }
  if (converted === null) return undefined;
  return node.publicEncrypt({ key: converted, padding: node.constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, plaintext).toString("base64");
}

/** How long a fetched key may be used: the gateway says no longer than one day. */
export const KEY_MAX_AGE_MS = 86_400_000;

/**
 * For a payment form: fetches the gateway's key (JWK) once, keeps it at most a day, and encrypts
 * cards with it. Many cards at once share one fetch.
 *
 * @example
 * const cards = loadCardEncryption({ keyUrl: "https://ecommerce.pult24.kz/payment/getcert" });
 * const cryptogram = await cards.encrypt({ pan, month, year, cvv, cardholder });
 * await fetch("/pay", { method: "POST", body: JSON.stringify({ cryptogram }) }); // your server creates the payment
 */
export function loadCardEncryption(options: { keyUrl: string; fetch?: typeof fetch; now?: () => number }) {
  const now = options.now ?? Date.now;
  let cached: { key: Promise<CryptoKey>; at: number } | undefined;
  const key = () => {
    if (!cached || now() - cached.at >= KEY_MAX_AGE_MS) {
      const at = now();
      const pending = (options.fetch ?? fetch)(options.keyUrl)
        .then(async (r) => {
          if (!r.ok) throw new Error(`the gateway's key could not be fetched (HTTP ${r.status})`);
          const text = await r.text();
          return importGatewayKey(text.trim().startsWith("{") ? (JSON.parse(text) as JsonWebKey) : text);
        })
        .catch((e) => {
          if (cached?.at === at) cached = undefined; // a failed fetch is not kept: the next card tries again
          throw e;
        });
      cached = { key: pending, at };
    }
    return cached.key;
  };
  return {
    /** Checks the card and returns its cryptogram. */
    encrypt: async (card: PaymentCard | PayoutCard) => encryptCard(card, await key()),
  };
}
