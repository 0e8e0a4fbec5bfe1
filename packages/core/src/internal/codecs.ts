// Codecs turn what a caller passes into what the wire carries: a calendar date into the portal's
// digits, an amount into tenge with at most two decimals, a card into its cryptogram. The spec
// names a codec at the schema (`x-codec`), the generator writes where each one applies into the
// operation table (a JSON pointer into the input, `*` for array items), and a client brings a
// registry of the codecs its specs name. The registry is open and a codec may be async (the card
// cryptogram uses WebCrypto).
import { RequestValidationError, type ValidationIssue } from "../errors.js";
import { put } from "./objects.js";
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

/**
 * Where an operation's codecs apply, as a tree of keys compiled once per operation (encoding runs
 * on every call): `items` steps into array items (`*`), `patterns` name top-level keys by prefix.
 * A value a codec applies to is not walked further.
 */
interface Node {
  codec?: string;
  keys: Map<string, Node>;
  items?: Node;
  patterns?: [RegExp, string][];
}

const node = (): Node => ({ keys: new Map() });
const compiled = new WeakMap<OperationSpec, Node | null>();
function plan(op: OperationSpec): Node | null {
  let root = compiled.get(op);
  if (root === undefined) {
    root = node();
    for (const [pointer, name] of Object.entries(op.codecs ?? {})) {
      let at = root;
      for (const key of parsePointer(pointer)) {
        if (key === "*") at = at.items ??= node();
        else {
          if (!at.keys.has(key)) at.keys.set(key, node());
          at = at.keys.get(key)!;
        }
      }
      at.codec = name;
    }
    const patterns = Object.entries(op.patternCodecs ?? {}).map(([source, name]): [RegExp, string] => [new RegExp(source), name]);
    if (patterns.length) root.patterns = patterns;
    if (!root.keys.size && !root.items && !patterns.length) root = null;
    compiled.set(op, root);
  }
  return root;
}

/** One encoding: what the codecs gave, in the order the walk met their values. */
interface Job {
  registry: CodecRegistry;
  ctx: CodecContext;
  /** The path of the value being walked. */
  keys: (string | number)[];
  issues: ValidationIssue[];
  /** Results in walk order; after an async codec, a second walk replays them settled. */
  results: unknown[];
  replay?: boolean;
  async?: boolean;
}

function apply(job: Job, name: string, value: unknown): unknown {
  if (job.replay) return job.results.shift();
  let out: unknown;
  try {
    out = job.registry[name]!.encode(value, job.ctx);
    if (out instanceof Promise) {
      const path = pointerOf(job.keys);
      out = out.catch((e) => fail(job, path, e));
      job.async = true;
    }
  } catch (e) {
    out = fail(job, pointerOf(job.keys), e);
  }
  job.results.push(out);
  return out;
}

/**
 * A codec says a value is wrong with a RequestValidationError (whose issues are placed under the
 * value's own path: the public helpers codecs share throw these), a RangeError or a TypeError;
 * anything else (a key that could not be fetched, say) is not the caller's input and passes through.
 */
function fail(job: Job, path: string, e: unknown): undefined {
  if (e instanceof RequestValidationError) {
    for (const issue of e.issues) job.issues.push({ path: `${path}${issue.path}`, message: issue.message });
    return undefined;
  }
  if (e instanceof Error && !(e instanceof RangeError || e instanceof TypeError)) throw e;
  job.issues.push({ path, message: e instanceof Error ? e.message : String(e) });
  return undefined;
}

/** The value with every codec below `at` applied: the same value when nothing changed, copies of the containers on changed paths otherwise. */
function walk(job: Job, at: Node, value: unknown): unknown {
  if (value === undefined) return value;
  if (at.codec !== undefined) return apply(job, at.codec, value);
  let copy: Record<PropertyKey, unknown> | undefined;
  const visit = (k: string | number, child: Node, v: unknown) => {
    job.keys.push(k);
    const out = walk(job, child, v);
    job.keys.pop();
    if (out === v) return;
    copy ??= Array.isArray(value) ? (value.slice() as unknown as Record<PropertyKey, unknown>) : { ...(value as object) };
    put(copy, k, out);
  };
  if (Array.isArray(value)) {
    if (at.items) for (let i = 0; i < value.length; i++) visit(i, at.items, value[i]);
  } else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const [k, child] of at.keys) if (Object.hasOwn(o, k)) visit(k, child, o[k]);
    if (at.patterns)
      for (const k of Object.keys(o)) {
        const hit = at.keys.has(k) ? undefined : at.patterns.find(([re]) => re.test(k));
        if (hit) visit(k, { codec: hit[1], keys: at.keys }, o[k]);
      }
  }
  return copy ?? value;
}

/**
 * Returns the input with every codec of the operation applied. The caller's object is never
 * changed. Every problem is reported at once, each at its path, in the operation table's order.
 */
export function encodeInput(
  op: OperationSpec,
  input: Record<string, unknown>,
  registry: CodecRegistry,
  ctx: CodecContext,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const root = plan(op);
  if (!root) return input;
  const job: Job = { registry, ctx, keys: [], issues: [], results: [] };
  const done = (out: unknown) => {
    if (job.issues.length) throw new RequestValidationError(op.id, job.issues);
    return out as Record<string, unknown>;
  };
  const out = walk(job, root, input);
  // Codecs are almost always synchronous: a promise (and a wait for it) only when one returns one.
  if (!job.async) return done(out);
  return Promise.all(job.results).then((settled) => {
    job.results = settled;
    job.replay = true;
    return done(walk(job, root, input));
  });
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
