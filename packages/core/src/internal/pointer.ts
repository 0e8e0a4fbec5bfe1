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

/** An own property only: a key such as `__proto__` or `constructor` never reaches the prototype. */
const own = (o: Record<string, unknown>, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

/**
 * What a pointer reaches. Without `*`: the one value, or `found: false`. With `*`: every value it
 * reaches, flattened into one list (each `*` steps into the items of an array).
 */
export function evaluatePointer(doc: unknown, keys: readonly string[]): { found: boolean; value: unknown } {
  let cursors: unknown[] = [doc];
  let fanned = false;
  for (const key of keys) {
    const next: unknown[] = [];
    for (const c of cursors) {
      if (key === "*") {
        if (Array.isArray(c)) next.push(...c);
        else if (!fanned) return { found: false, value: undefined };
      } else if (isObject(c)) {
        const v = own(c, key);
        if (v !== undefined) next.push(v);
        else if (!fanned) return { found: false, value: undefined };
      } else if (Array.isArray(c) && /^\d+$/.test(key) && Number(key) < c.length) {
        next.push(c[Number(key)]);
      } else if (!fanned) {
        return { found: false, value: undefined };
      }
    }
    if (key === "*") fanned = true;
    cursors = next;
  }
  return fanned ? { found: true, value: cursors } : { found: true, value: cursors[0] };
}

/** Places `value` at `keys` inside a new object (`[]` → the value itself). */
export function placeAt(keys: readonly string[], value: unknown): unknown {
  let out = value;
  for (let i = keys.length - 1; i >= 0; i--) out = { [keys[i]!]: out };
  return out;
}

/** A JSON pointer (RFC 6901) from its keys: `["params", "a/b"]` → `/params/a~1b`. */
export const pointerOf = (keys: readonly PropertyKey[]): string => keys.map((k) => `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

/** Sets a property as data, also when its name is `__proto__` (which plain assignment would treat as the prototype). */
export function put(target: Record<PropertyKey, unknown>, k: PropertyKey, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  else target[k] = v;
}
