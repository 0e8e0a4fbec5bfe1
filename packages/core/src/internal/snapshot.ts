// A call's input, copied when the call is made. Between a method call and its request there are
// awaits (the client's code and an operation's validators load at their first use; a card is
// encrypted): an object the caller changed meanwhile, or a getter that answers differently each
// time, would be checked as one thing and sent as another, or journaled under one key and sent
// under another (a payout to A changed to B: B paid twice, A never). So the call reads only this
// copy, taken before its first await. Small, with put.ts alone: a client's shell (lazy.ts) takes
// the same copy before it loads the client's code, and a page loads the shell first.
import { put } from "./put.js";

/** A plain object (call-input.ts's isPlainObject, which the shell does not load). */
const isPlain = (v: object) => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** Objects the checks refuse (JSON would write `{}`; `Headers` for the `headers` option) or unwrap (a boxed value): kept for them as they are. */
const KEPT = [Map, Set, WeakMap, WeakSet, ArrayBuffer, Number, String, Boolean, BigInt, Headers];
const kept = (v: object) => !Array.isArray(v) && !isPlain(v) && (ArrayBuffer.isView(v) || KEPT.some((type) => v instanceof type));

/**
 * A deep copy of the input as JSON reads it, each value read once: in place of a value with a
 * `toJSON`, what it answers (asked once, with its key, as JSON asks); then an object's own
 * enumerable string keys (a value the checks would see and JSON would drop is not copied), an
 * array's items (holes stay holes, for the checks to refuse); a class instance's fields as a plain
 * object. A Date stays a Date (a date codec reads it in the client's time zone). What JSON cannot carry (a Map, binary data, a circle, a
 * `toJSON` that throws) is kept as it is, and the checks refuse it at its path.
 */
export function snapshot(value: unknown, within: object[] = [], key = ""): unknown {
  if (value === null || typeof value !== "object" || within.includes(value)) return value;
  if (value instanceof Date && value.toJSON === Date.prototype.toJSON) return new Date(value.getTime());
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON !== "function") return copied(value, within);
  let written: unknown;
  try {
    written = toJSON.call(value, key);
  } catch {
    return value; // the checks ask it again, and refuse it at its path
  }
  // JSON does not ask what a toJSON answered for a toJSON of its own: its fields are written as they are.
  return written !== null && typeof written === "object" && !within.includes(written) ? copied(written, within) : written;
}

/** An object's or an array's insides, copied (snapshot); what the checks refuse or unwrap, kept. */
function copied(value: object, within: object[]): unknown {
  if (kept(value)) return value;
  within.push(value);
  const array = Array.isArray(value);
  const copy: Record<string, unknown> = array ? (new Array(value.length) as never) : {};
  for (const k of Object.keys(value)) put(copy, k, snapshot((value as Record<string, unknown>)[k], within, k));
  within.pop();
  return copy;
}

/**
 * A call's parameters and options, as the call will read them: the parameters copied (snapshot),
 * the options' values read once, their headers and extra parameters copied too. The signal and a
 * row schema are the caller's objects, used as they are. Parameters or options that are not a
 * plain object are left for the checks to refuse.
 */
export function snapshotCall(params: unknown, options: unknown): [unknown, unknown] {
  const p = params !== null && typeof params === "object" && !isPlain(params) ? params : snapshot(params);
  if (options === null || typeof options !== "object" || !isPlain(options)) return [p, options];
  const o: Record<string, unknown> = {};
  // Non-enumerable ones too: an `idempotencyKey` the caller hid is still the call's key (or, misspelt, refused).
  for (const k of Object.getOwnPropertyNames(options)) put(o, k, (options as Record<string, unknown>)[k]);
  for (const k of ["headers", "extraParams"]) if (Object.hasOwn(o, k)) o[k] = snapshot(o[k]);
  return [p, o];
}
