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

/**
 * A deep copy of plain objects and arrays, each value read once, as JSON reads it: an object's own
 * enumerable string keys (a value the checks would see and JSON would drop is not copied), an
 * array's items (holes stay holes, for the checks to refuse), and in place of a value with a
 * `toJSON`, what it answers. A Date is cloned (a date codec reads it in the client's time zone).
 * Other objects (a class instance, a Map, a boxed string) are kept as they are: the checks read
 * them as before, and refuse what JSON cannot carry.
 */
export function snapshot(value: unknown, within: object[] = []): unknown {
  if (value === null || typeof value !== "object" || within.includes(value)) return value;
  if (value instanceof Date) return new Date(value.getTime());
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    try {
      return snapshot(toJSON.call(value, ""), within);
    } catch {
      return value; // the checks call it again, and refuse it at its path
    }
  }
  const array = Array.isArray(value);
  if (!array && !isPlain(value)) return value;
  within.push(value);
  const copy: Record<string, unknown> = array ? (new Array(value.length) as never) : {};
  for (const k in value) if (Object.hasOwn(value, k)) put(copy, k, snapshot((value as Record<string, unknown>)[k], within));
  within.pop();
  return copy;
}

/**
 * A call's parameters and options, as the call will read them: the parameters copied (snapshot),
 * the options' values read once, their headers and extra parameters copied too. The signal and a
 * row schema are the caller's objects, used as they are.
 */
export function snapshotCall(params: unknown, options: unknown): [unknown, unknown] {
  if (options === null || typeof options !== "object" || !isPlain(options)) return [snapshot(params), options];
  const o: Record<string, unknown> = {};
  for (const k in options) if (Object.hasOwn(options, k)) put(o, k, (options as Record<string, unknown>)[k]);
  for (const k of ["headers", "extraParams"]) if (Object.hasOwn(o, k)) o[k] = snapshot(o[k]);
  return [snapshot(params), o];
}
