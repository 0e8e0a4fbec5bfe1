// A call's input, copied when the call is made. Between a method call and its request there are
// awaits (the client's code and an operation's validators load at their first use; a card is
// encrypted): an object the caller changed meanwhile, or a getter that answers differently each
// time, would be checked as one thing and sent as another, or journaled under one key and sent
// under another (a payout to A changed to B: B paid twice, A never). So the call reads only this
// copy, taken before its first await. Small, with put.ts alone: a client's shell (lazy.ts) takes
// the same copy before it loads the client's code, and a page loads the shell first.
import { RequestValidationError } from "../errors.js";
import { pointerOf } from "./pointer-of.js";
import { put } from "./put.js";

/** How deep an input may nest: far past any request of the four interfaces, and well inside the stack (20,000 levels overflowed it). */
const MAX_DEPTH = 100;

/** A value that could not be copied, and where (keys from the input's root), until snapshotCall names its call. */
class Unreadable {
  constructor(
    readonly keys: string[],
    readonly message: string,
  ) {}
}

/** A plain object: one made by a literal, `JSON.parse` or `Object.create(null)`. */
export const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Objects kept as they are: what answers for itself (a `toJSON`: a value object, read by a codec or
 * written by the checks as JSON writes it), and what copying would empty (no own fields: a Map,
 * a boxed number, a card whose fields are getters, read by name by the card codec; a boxed string's
 * or binary data's fields are its characters or bytes): the checks read them as they always did.
 */
const kept = (v: object) =>
  typeof (v as { toJSON?: unknown }).toJSON === "function" ||
  (!Array.isArray(v) && !isPlainObject(v) && (Object.keys(v).length === 0 || v instanceof String || ArrayBuffer.isView(v)));

/**
 * A deep copy of the input's plain objects, arrays and class instances with fields, each value read
 * once, as JSON reads them: an object's own enumerable string keys (a value the checks would see and
 * JSON would drop is not copied), an array's items (holes stay holes, for the checks to refuse). A
 * Date is cloned, of its own class (a date codec reads it in the client's time zone); what `kept`
 * names, and a circle (which the checks refuse), are not copied.
 */
export function snapshot(value: unknown, within: object[] = []): unknown {
  if (value === null || typeof value !== "object" || within.includes(value)) return value;
  if (value instanceof Date) return Object.setPrototypeOf(new Date(value.getTime()), Object.getPrototypeOf(value));
  if (kept(value)) return value;
  if (within.length === MAX_DEPTH) throw new Unreadable([], `nests deeper than ${MAX_DEPTH} levels`);
  within.push(value);
  const copy: Record<string, unknown> = Array.isArray(value) ? (new Array(value.length) as never) : {};
  for (const k of Object.keys(value)) {
    let v: unknown;
    try {
      v = snapshot((value as Record<string, unknown>)[k], within);
    } catch (e) {
      // Where it was, built on the way out: a getter that threw, or a value nested too deep.
      if (e instanceof Unreadable) e.keys.unshift(k);
      throw e instanceof Unreadable ? e : new Unreadable([k], `could not be read (its getter threw ${e instanceof Error ? e.name : "a value"})`);
    }
    put(copy, k, v);
  }
  within.pop();
  return copy;
}

/**
 * A call's parameters and options, as the call will read them: the parameters copied (snapshot),
 * the options' values read once, their headers and extra parameters copied too. The signal and a
 * row schema are the caller's objects, used as they are. Parameters or options that are not a
 * plain object are left for the checks to refuse.
 */
export function snapshotCall(params: unknown, options: unknown, operation: string): [unknown, unknown] {
  let at = "";
  try {
    const p = isPlainObject(params) ? snapshot(params) : params;
    if (!isPlainObject(options)) return [p, options];
    at = "(options)";
    const o: Record<string, unknown> = {};
    // Non-enumerable ones too: an `idempotencyKey` the caller hid is still the call's key (or, misspelt, refused).
    for (const k of Object.getOwnPropertyNames(options)) put(o, k, (options as Record<string, unknown>)[k]);
    for (const k of ["headers", "extraParams"]) if (Object.hasOwn(o, k)) o[k] = snapshot(o[k]);
    return [p, o];
  } catch (e) {
    // A value the call cannot read is bad input like any other: refused by path, nothing sent.
    throw e instanceof Unreadable ? new RequestValidationError(operation, [{ path: at + pointerOf(e.keys), message: e.message }]) : e;
  }
}
