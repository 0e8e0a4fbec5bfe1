// A call's input, copied when the call is made. Between a method call and its request there are
// awaits (the client's code and an operation's validators load at their first use; a card is
// encrypted): an object the caller changed meanwhile, or a getter that answers differently each
// time, would be checked as one thing and sent as another, or journaled under one key and sent
// under another (a payout to A changed to B: B paid twice, A never). So the call reads only this
// copy, taken before its first await. Small, with put.ts alone: a client's shell (lazy.ts) takes
// the same copy before it loads the client's code, and a page loads the shell first.
import { put } from "./put.js";

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
  within.push(value);
  const copy: Record<string, unknown> = Array.isArray(value) ? (new Array(value.length) as never) : {};
  for (const k of Object.keys(value)) put(copy, k, snapshot((value as Record<string, unknown>)[k], within));
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
  const p = isPlainObject(params) ? snapshot(params) : params;
  if (!isPlainObject(options)) return [p, options];
  const o: Record<string, unknown> = {};
  // Non-enumerable ones too: an `idempotencyKey` the caller hid is still the call's key (or, misspelt, refused).
  for (const k of Object.getOwnPropertyNames(options)) put(o, k, (options as Record<string, unknown>)[k]);
  for (const k of ["headers", "extraParams"]) if (Object.hasOwn(o, k)) o[k] = snapshot(o[k]);
  return [p, o];
}
