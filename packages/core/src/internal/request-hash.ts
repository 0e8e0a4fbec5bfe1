// The hash that recognises one request under one idempotency key: the operation and its
// parameters, with every secret replaced (a fresh cryptogram of the same card hashes the same) and
// keys in order.
/** SHA-256 (hex) of the operation and its parameters, with every secret replaced and keys in order. */
export async function hashOf(operation: string, params: Record<string, unknown>, sensitive: ReadonlySet<string>): Promise<string> {
  return sha256Hex(hashedText(operation, params, sensitive));
}

/** The text `hashOf` hashes: the operation's name and its parameters in canonical JSON. */
export function hashedText(operation: string, params: Record<string, unknown>, sensitive: ReadonlySet<string>): string {
  return `${JSON.stringify(operation)}:${canonical(params, sensitive)}`;
}

/**
 * JSON with object keys in order and the value of every sensitive key replaced, in one walk (this
 * runs on every journaled call). Values are what the checks let through: JSON's own, and objects
 * with a `toJSON` (a Date). Built by concatenation and the keys sorted in place: the arrays of a
 * join and of `Array.prototype.sort` were a tenth of what a fiscal receipt allocated in core.
 */
function canonical(value: unknown, sensitive: ReadonlySet<string>): string {
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") value = (value as { toJSON(): unknown }).toJSON();
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonical(value[i], sensitive);
    return `${out}]`;
  }
  let out = "{";
  for (const k of sortInPlace(Object.keys(value))) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    out += `${out === "{" ? "" : ","}${JSON.stringify(k)}:${sensitive.has(k) ? '"[REDACTED]"' : canonical(v, sensitive)}`;
  }
  return `${out}}`;
}

/** Sorts strings as `sort()` does (by UTF-16 code units), in place: an insertion sort for an object's few keys. */
function sortInPlace(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]!;
    let j = i - 1;
    for (; j >= 0 && keys[j]! > key; j--) keys[j + 1] = keys[j]!;
    keys[j + 1] = key;
  }
  return keys;
}

type NodeCrypto = {
  createHash(algorithm: string): { update(text: string): { digest(encoding: "hex"): string } };
  /** One-shot (Node 20.12+): no Hash stream object per call. */
  hash?(algorithm: string, data: string, encoding: "hex"): string;
};
/** node:crypto, taken on the first hash rather than at import (loading it costs a process ~5 ms); null where the runtime has none. */
let nodeCrypto: NodeCrypto | null | undefined;
const cryptoModule = (): NodeCrypto | null =>
  (nodeCrypto ??= ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined) ?? null);

/**
 * SHA-256 of a text, in hex: node:crypto where the runtime has it (2 µs a call; its one-shot `hash`
 * half that, and no stream object to collect), WebCrypto elsewhere (its digest hops to another thread
 * and back: 50 µs, most of what the journal cost a call).
 */
export function sha256Hex(text: string): string | Promise<string> {
  const node = cryptoModule();
  if (node?.hash) return node.hash("sha256", text, "hex");
  if (node) return node.createHash("sha256").update(text).digest("hex");
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then((d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, "0")).join(""));
}
