// JSON pointers (RFC 6901) as the specs use them to say where things sit in a request or an
// answer: `/result`, `/Data/Kkms`, and, with `*` for "every item of an array", `/QueryData/*/Rows/*`.

/** The keys of a pointer: `""` → `[]`, `/a/b~1c` → `["a", "b/c"]`. */
export function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`not a JSON pointer: ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const MISSING = Symbol("missing");

/** One step down: an own property of an object, or an item of an array by its index. */
function step(c: unknown, key: string): unknown {
  if (isObject(c)) return Object.hasOwn(c, key) && c[key] !== undefined ? c[key] : MISSING;
  if (Array.isArray(c) && /^\d+$/.test(key) && Number(key) < c.length) return c[Number(key)];
  return MISSING;
}

/**
 * What a pointer reaches. Without `*`: the one value, or `found: false`. With `*`: every value it
 * reaches, flattened into one list (each `*` steps into the items of an array). A branch that lacks
 * its key, or holds something else where `*` wants an array, is `found: false` too: a report item
 * without its `Rows` is not an empty report.
 */
export function evaluatePointer(doc: unknown, keys: readonly string[]): { found: boolean; value: unknown } {
  // Up to the first `*` (nearly every pointer has none), one value, stepped down key by key.
  let value = doc;
  let i = 0;
  for (; i < keys.length && keys[i] !== "*"; i++) {
    value = step(value, keys[i]!);
    if (value === MISSING) return { found: false, value: undefined };
  }
  if (i === keys.length) return { found: true, value };
  // From there on, every value reached, each branch whole.
  let cursors: unknown[] = [value];
  for (; i < keys.length; i++) {
    const key = keys[i]!;
    const next: unknown[] = [];
    for (const c of cursors) {
      const v = key === "*" ? c : step(c, key);
      if (key === "*" ? !Array.isArray(v) : v === MISSING) return { found: false, value: undefined };
      if (key === "*") next.push(...(v as unknown[]));
      else next.push(v);
    }
    cursors = next;
  }
  return { found: true, value: cursors };
}

/** Places `value` at `keys` inside a new object (`[]` → the value itself). */
export function placeAt(keys: readonly string[], value: unknown): unknown {
  let out = value;
  for (let i = keys.length - 1; i >= 0; i--) out = { [keys[i]!]: out };
  return out;
}

export { pointerOf } from "./pointer-of.js";
