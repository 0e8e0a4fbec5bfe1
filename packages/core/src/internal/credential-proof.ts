// The proof kept beside a shared token that it was obtained with a given secret, so that only a
// holder of that secret takes it from the store: PBKDF2-HMAC-SHA-256 of the account's name and the
// credential, under a random salt of its own. A fast hash (one SHA-256 per guess, the account's name
// as its only salt) let anyone who can read the store test a dictionary of passwords in a fraction of
// a second; this costs them the iterations per guess and per row. WebCrypto derives it off the main
// thread (Node's thread pool), once per process and row: the results are kept in memory, which holds
// the secret anyway.
import { hashOf, sha256Hex } from "./request-hash.js";

/**
 * OWASP's Password Storage Cheat Sheet (2023) asks 600,000 iterations of PBKDF2-HMAC-SHA-256.
 * Cloudflare Workers refuse more than 100,000 in one call (local workerd and Node do not), so the
 * proof chains rounds of 100,000, each taking the last one's bits as its password: as sequential as
 * one derivation of them all, and the same proof on every runtime that shares a store.
 */
const ROUNDS = 6;
const ITERATIONS = 100_000;
/** A stored proof asking for more rounds would stall every client that checks it: it is no proof. */
const MAX_ROUNDS = 20;
const SHAPE = /^pbkdf2-sha256\$([1-9][0-9]?)x100000\$([0-9a-f]{32})\$([0-9a-f]{64})$/;

/** Derivations this process made or checked, keyed by a fast hash of the secret (in memory only). */
const made = new Map<string, Promise<string>>();
const checked = new Map<string, Promise<boolean>>();
const REMEMBERED = 256;

/** The proof this process writes for `secret` (the account's name and its credential in canonical text): made once, with a fresh salt. */
export function proofFor(secret: string): Promise<string> {
  return remembered(made, fastHash(secret), async () => {
    const salt = hex(crypto.getRandomValues(new Uint8Array(16)));
    return `pbkdf2-sha256$${ROUNDS}x${ITERATIONS}$${salt}$${await derive(secret, salt, ROUNDS)}`;
  });
}

/**
 * Whether a stored proof was made from `secret`: one of ours, or the bare SHA-256 earlier versions
 * wrote (`legacy`: taken, so a fleet being upgraded does not sign its hosts in against each other,
 * but never written again). Anything else is not.
 */
export async function proves(proof: unknown, secret: string): Promise<{ legacy: boolean } | undefined> {
  if (typeof proof === "string" && /^[0-9a-f]{64}$/.test(proof)) return equal(await sha256Hex(secret), proof) ? { legacy: true } : undefined;
  const m = typeof proof === "string" ? SHAPE.exec(proof) : null;
  const rounds = Number(m?.[1]);
  if (!m || rounds < ROUNDS || rounds > MAX_ROUNDS) return undefined;
  const ok = await remembered(
    checked,
    fastHash(secret).then((h) => `${proof}$${h}`),
    async () => equal(await derive(secret, m[2]!, rounds), m[3]!),
  );
  return ok ? { legacy: false } : undefined;
}

/** `rounds` chained PBKDF2-HMAC-SHA-256 derivations of 100,000 iterations, in hex. */
async function derive(secret: string, salt: string, rounds: number): Promise<string> {
  const encoder = new TextEncoder();
  let bits: BufferSource = encoder.encode(secret);
  for (let round = 0; round < rounds; round++) {
    const key = await crypto.subtle.importKey("raw", bits, "PBKDF2", false, ["deriveBits"]);
    bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: encoder.encode(salt), iterations: ITERATIONS }, key, 256);
  }
  return hex(new Uint8Array(bits as ArrayBuffer));
}

/** Compares two hex digests in time that does not depend on where they differ. */
function equal(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** The promise remembered under `key`, made by `make` on first use; a failed one is forgotten, and the oldest beyond a few hundred. */
function remembered<T>(cache: Map<string, Promise<T>>, key: Promise<string>, make: () => Promise<T>): Promise<T> {
  return key.then((k) => {
    let value = cache.get(k);
    if (value) return value;
    value = make();
    cache.set(k, value);
    if (cache.size > REMEMBERED) cache.delete(cache.keys().next().value as string);
    value.catch(() => cache.delete(k));
    return value;
  });
}

const fastHash = (secret: string) => hashOf("credential-proof", { secret }, new Set());
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
