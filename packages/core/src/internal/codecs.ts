// Codecs turn what a caller passes into what the wire carries: a calendar date into the portal's
// digits, an amount into tenge with at most two decimals, a card into its cryptogram. The spec
// names a codec at the schema (`x-codec`), the generator writes where each one applies into the
// operation table (a JSON pointer into the input, `*` for array items), and a client brings a
// registry of the codecs its specs name. The registry is open and a codec may be async (the card
// cryptogram uses WebCrypto).
import { RequestValidationError, type ValidationIssue } from "../errors.js";
import type { OperationSpec } from "./operation.js";
import { parsePointer, pointerOf } from "./pointer.js";

/** What a codec may need to know besides the value. */
export interface CodecContext {
  /** The operation being called. */
  operation: string;
  /** The service's time zone (IANA name). */
  timeZone: string;
}

export interface Codec {
  /**
   * Turns a caller's value into the wire value. Values already in wire form pass through (the
   * spec's validator checks them next); anything unusable throws, and its message becomes a
   * RequestValidationError at the value's path.
   */
  encode(value: unknown, ctx: CodecContext): unknown;
  /**
   * The position of a wire value on a line, so the two ends of a period can be compared. `bound`
   * says which end it is (a day given without a time starts or ends at midnight).
   */
  order?(wire: unknown, bound: "start" | "end", ctx: CodecContext): number;
}

export type CodecRegistry = Readonly<Record<string, Codec>>;

/** Every codec name the operations use must be in the registry (checked once, when a client is made). */
export function missingCodecs(operations: Iterable<OperationSpec>, registry: CodecRegistry): string[] {
  const missing = new Set<string>();
  for (const op of operations) {
    for (const name of [...Object.values(op.codecs ?? {}), ...Object.values(op.patternCodecs ?? {})]) {
      if (!registry[name]) missing.add(`${name} (${op.id})`);
    }
  }
  return [...missing];
}

interface Site {
  path: (string | number)[];
  value: unknown;
  codec: Codec;
}

/** Compiled once per operation: encoding runs on every call. */
const compiled = new WeakMap<OperationSpec, { pointers: [string[], string][]; patterns: [RegExp, string][] }>();
function plan(op: OperationSpec) {
  let p = compiled.get(op);
  if (!p) {
    p = {
      pointers: Object.entries(op.codecs ?? {}).map(([pointer, name]) => [parsePointer(pointer), name]),
      patterns: Object.entries(op.patternCodecs ?? {}).map(([source, name]) => [new RegExp(source), name]),
    };
    compiled.set(op, p);
  }
  return p;
}

/** Finds every value a pointer (with `*` for array items) reaches in the input. */
function collect(value: unknown, keys: readonly string[], path: (string | number)[], out: (string | number)[][]): void {
  if (value === undefined) return;
  if (keys.length === 0) {
    out.push(path);
    return;
  }
  const [key, ...rest] = keys as [string, ...string[]];
  if (key === "*") {
    if (Array.isArray(value)) for (const [i, v] of value.entries()) collect(v, rest, [...path, i], out);
  } else if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, key)) {
    collect((value as Record<string, unknown>)[key], rest, [...path, key], out);
  }
}

/** A copy of `root` with the value at `path` replaced; containers on the path are copied, nothing else. */
function replaceAt(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [key, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(root)) {
    const copy = root.slice();
    copy[key as number] = replaceAt(root[key as number], rest, value);
    return copy;
  }
  const copy: Record<string, unknown> = { ...(root as Record<string, unknown>) };
  Object.defineProperty(copy, key, { value: replaceAt((root as Record<string, unknown>)[key as string], rest, value), enumerable: true, writable: true, configurable: true });
  return copy;
}

/**
 * Returns the input with every codec of the operation applied, and checks its period. The
 * caller's object is never changed. Every problem is reported at once, each at its path.
 */
export function encodeInput(
  op: OperationSpec,
  input: Record<string, unknown>,
  registry: CodecRegistry,
  ctx: CodecContext,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { pointers, patterns } = plan(op);
  if (pointers.length === 0 && patterns.length === 0) return input;
  const sites: Site[] = [];
  for (const [keys, name] of pointers) {
    const paths: (string | number)[][] = [];
    collect(input, keys, [], paths);
    for (const path of paths) sites.push({ path, value: valueAt(input, path), codec: registry[name]! });
  }
  if (patterns.length > 0)
    for (const key of Object.keys(input)) {
      const hit = patterns.find(([re]) => re.test(key));
      if (hit && !op.codecs?.[`/${key}`]) sites.push({ path: [key], value: input[key], codec: registry[hit[1]]! });
    }
  const issues: ValidationIssue[] = [];
  // A codec says a value is wrong with a RangeError or TypeError; anything else (a key that could
  // not be fetched, say) is not the caller's input and passes through as it is.
  const fail = (site: Site, e: unknown) => {
    if (e instanceof Error && !(e instanceof RangeError || e instanceof TypeError)) throw e;
    issues.push({ path: pointerOf(site.path), message: e instanceof Error ? e.message : String(e) });
    return undefined;
  };
  // Codecs are almost always synchronous: a promise (and a wait for it) only when one returns one.
  const encoded: unknown[] = sites.map((site) => {
    try {
      const out = site.codec.encode(site.value, ctx);
      return out instanceof Promise ? out.catch((e) => fail(site, e)) : out;
    } catch (e) {
      return fail(site, e);
    }
  });
  const finish = (values: unknown[]) => {
    if (issues.length) throw new RequestValidationError(op.id, issues);
    let out: unknown = input;
    for (const [i, site] of sites.entries()) {
      // A value already in wire form comes back as it went in: nothing to copy.
      if (values[i] !== site.value) out = replaceAt(out, site.path, values[i]);
    }
    return out as Record<string, unknown>;
  };
  return encoded.some((v) => v instanceof Promise) ? Promise.all(encoded).then(finish) : finish(encoded);
}

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let v = root;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return v;
}

/** Refuses a period whose start is after its end (after encoding, on wire values). */
export function checkPeriod(op: OperationSpec, encoded: Record<string, unknown>, registry: CodecRegistry, ctx: CodecContext): void {
  if (!op.period) return;
  const { from, to } = op.period;
  const a = encoded[from];
  const b = encoded[to];
  const codec = registry[op.codecs?.[`/${from}`] ?? ""];
  if (a === undefined || b === undefined || !codec?.order) return;
  let start: number;
  let end: number;
  try {
    start = codec.order(a, "start", ctx);
    end = codec.order(b, "end", ctx);
  } catch {
    return; // a malformed value: the spec's validator names it next
  }
  if (start > end) {
    throw new RequestValidationError(op.id, [{ path: `/${from}`, message: `must not be after ${to} (${String(a)} > ${String(b)}): the period is reversed` }]);
  }
}
