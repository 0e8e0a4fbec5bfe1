// The call's input, before anything is sent: the call options checked like the parameters, values
// JSON cannot carry refused at their path, the parameters placed where the spec says (path, query,
// header, the body inside its envelope), and rows checked by the caller's schema after the answer.
// The invoker's "prepare" step is made of these.
import type { StandardSchemaV1 } from "../call.js";
import { RequestValidationError, RowValidationError, type ValidationIssue } from "../errors.js";
import { CARD_IN_HEADER, holdsCardNumber } from "./card-number.js";
import { wrapParams } from "./envelope.js";
import { HEADER_VALUE, headerIssues } from "./header-check.js";
import { copyInto, put } from "./objects.js";
import type { OperationSpec } from "./operation.js";
import { pointerOf } from "./pointer.js";
import { isPlainObject } from "./snapshot.js";
import type { CallResult, HttpInput } from "./transport.js";

export { isPlainObject };

/** In a `u` regular expression a surrogate range matches only the surrogates not in a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The input as JSON will write it, with the values JSON would not carry as they are refused at their
 * path. What the checks after this read is what is sent: an object with a `toJSON` (a Date, a value
 * object) is replaced by what its `toJSON` answers, a boxed primitive (`new String(…)`) by its value,
 * and their insides are walked like the rest. A card number a value object wrote passed the card
 * guard, which saw only the object. Nothing is copied unless something in it was replaced (this runs
 * on every call), and the path is built only for a value refused.
 *
 * Refused: NaN and ±Infinity (they pass a JSON Schema `number` and would be sent as `null`), an
 * invalid Date (`null`), a BigInt, a function or a symbol (they fail or silently vanish), an array
 * hole or `undefined` item (`null`), a Map, a Set or binary data (`{}`), a `toJSON` that throws, an
 * object that contains itself, and a string with a lone surrogate.
 */
export function asSent(value: unknown, prefix: string, issues: ValidationIssue[], keys: string[] = [], within: object[] = []): unknown {
  let written = false;
  if (value !== null && typeof value === "object") {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      written = true;
      if (value instanceof Date && Number.isNaN(value.getTime())) return refuse(issues, prefix, keys, "is an invalid Date: JSON would send null");
      try {
        value = toJSON.call(value, keys.length ? keys[keys.length - 1] : "");
      } catch {
        return refuse(issues, prefix, keys, "has a toJSON that failed: JSON cannot write it");
      }
    }
    if (value instanceof Number || value instanceof String || value instanceof Boolean) value = value.valueOf();
    else if (typeof BigInt === "function" && value instanceof BigInt) value = value.valueOf();
  }
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) refuse(issues, prefix, keys, `must be a finite number, not ${value}`);
      return value;
    case "string":
      // A lone surrogate: JSON writes it escaped, which the service may read as anything, and a path or query cannot carry it at all.
      if (LONE_SURROGATE.test(value)) refuse(issues, prefix, keys, "is not well-formed Unicode (it has a lone surrogate)");
      return value;
    case "bigint":
      return refuse(issues, prefix, keys, "must be a number or a decimal string, not a BigInt (JSON has no BigInt)");
    case "function":
    case "symbol":
      return refuse(issues, prefix, keys, `cannot be sent as JSON (a ${typeof value})`);
    case "object":
      return value === null ? value : sentObject(value, prefix, issues, keys, within, written);
    default:
      return value;
  }
}

/**
 * An object's or an array's insides as sent (asSent): the same object when nothing in it was
 * replaced, else a plain copy. What a `toJSON` answered is always copied: JSON does not ask it for a
 * `toJSON` of its own, and the request's `JSON.stringify` would (a value object answering another,
 * whose `toJSON` writes a card number: JSON writes `{}`, and the guard saw `{}`).
 */
function sentObject(value: object, prefix: string, issues: ValidationIssue[], keys: string[], within: object[], written: boolean): unknown {
  if (value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof WeakSet || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    return refuse(issues, prefix, keys, "would be sent as {}: pass a plain object or an array");
  }
  if (within.includes(value)) return refuse(issues, prefix, keys, "contains itself: JSON cannot write it");
  within.push(value);
  let copy: unknown[] | Record<string, unknown> | undefined;
  if (Array.isArray(value)) {
    let items: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      keys.push(String(i));
      const item: unknown = value[i];
      const sent = item === undefined ? refuse(issues, prefix, keys, "is missing or undefined: JSON would send null") : asSent(item, prefix, issues, keys, within);
      if (sent !== item || written) {
        items ??= Array.from(value);
        items[i] = sent;
      }
      keys.pop();
    }
    copy = items;
  } else {
    let fields: Record<string, unknown> | undefined;
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      keys.push(k);
      const v = (value as Record<string, unknown>)[k];
      const sent = asSent(v, prefix, issues, keys, within);
      if (sent !== v || written) {
        fields ??= copyInto({}, value);
        put(fields, k, sent);
      }
      keys.pop();
    }
    copy = fields;
  }
  within.pop();
  // An empty object or array a toJSON answered is copied too (it may have a toJSON of its own).
  if (written && copy === undefined) return Array.isArray(value) ? [] : {};
  return copy ?? value;
}

/** Adds a problem at the path the walk is at (and answers undefined: nothing of it is sent). */
function refuse(issues: ValidationIssue[], prefix: string, keys: string[], message: string): undefined {
  issues.push({ path: prefix + pointerOf(keys), message });
  return undefined;
}

/** The longest delay `setTimeout` keeps (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The call options, checked like the parameters: an object of the options the operation takes,
 * each of its type. A misspelt option (`timeout`, `idempotency_key`) is refused, never ignored.
 */
export function checkCallOptions(op: OperationSpec, options: unknown): void {
  if (!isPlainObject(options)) throw new RequestValidationError(op.id, [{ path: "(options)", message: "must be an object of call options (signal, timeoutMs, headers…)" }]);
  const issues: ValidationIssue[] = [];
  const wrong = (name: string, message: string) => issues.push({ path: `(options)/${name}`, message });
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    switch (name) {
      case "signal":
        if (typeof AbortSignal !== "undefined" && !(value instanceof AbortSignal)) wrong(name, "must be an AbortSignal");
        break;
      case "timeoutMs":
        // Above the longest timer JavaScript keeps, setTimeout fires at once: the call would time out unsent.
        if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > MAX_TIMEOUT_MS)
          wrong(name, `must be a number of milliseconds above 0, at most ${MAX_TIMEOUT_MS}`);
        break;
      case "headers":
        if (!isPlainObject(value)) wrong(name, "must be an object of header names and string values");
        else {
          for (const issue of headerIssues(value)) wrong(`${name}/${issue.name}`, issue.message);
          for (const [header, v] of Object.entries(value)) if (typeof v === "string" && holdsCardNumber(v)) wrong(`${name}/${header}`, CARD_IN_HEADER);
        }
        break;
      case "extraParams":
      case "rows":
      case "idempotencyKey":
        break; // checked where they are used, with what the operation allows
      default:
        wrong(name, "is not a call option (misspelt?): signal, timeoutMs, headers, and where the operation takes them extraParams, rows, idempotencyKey");
    }
  }
  if (issues.length) throw new RequestValidationError(op.id, issues);
}

export function checkRowSchema(op: OperationSpec, rows: unknown): void {
  if (rows === undefined) return;
  if (!op.unwrap.list) throw new RequestValidationError(op.id, [{ path: "(rows)", message: "this operation does not answer with a list of rows" }]);
  const standard = (rows as Partial<StandardSchemaV1> | null)?.["~standard"];
  if (typeof standard?.validate !== "function" || standard.version !== 1) {
    throw new RequestValidationError(op.id, [{ path: "(rows)", message: "must be a Standard Schema v1 (a zod, valibot or arktype schema, for example)" }]);
  }
}

/**
 * Each row through the caller's schema (which may be async); its output replaces the row. Any
 * refused row fails the whole call: a report with rows silently dropped would be wrong data.
 */
export async function checkedRows(op: OperationSpec, schema: StandardSchemaV1, rows: unknown[], result: CallResult): Promise<unknown[]> {
  const out: unknown[] = new Array(rows.length);
  const issues: ValidationIssue[] = [];
  for (let i = 0; i < rows.length; i++) {
    let checked = schema["~standard"].validate(rows[i]);
    if (checked instanceof Promise) checked = await checked;
    if (checked.issues) {
      for (const issue of checked.issues) issues.push({ path: `/${i}${issuePath(issue.path)}`, message: result.scrub(issue.message) });
    } else out[i] = checked.value;
  }
  if (issues.length) {
    throw new RowValidationError(op.id, issues, { status: result.status, attempts: result.attempts, bodyExcerpt: result.excerpt(), rows: rows.length });
  }
  return out;
}

const issuePath = (path: StandardSchemaV1.Issue["path"]) => pointerOf((path ?? []).map((p) => (typeof p === "object" ? p.key : p)));

export function checkExtraParams(op: OperationSpec, extra: unknown): void {
  if (extra === undefined) return;
  if (!op.openParams) {
    throw new RequestValidationError(op.id, [
      { path: "(extraParams)", message: "every parameter of this operation is known: pass it as a parameter (extraParams is for open parameter lists only)" },
    ]);
  }
  if (!isPlainObject(extra)) throw new RequestValidationError(op.id, [{ path: "(extraParams)", message: "must be a plain object" }]);
}

/**
 * Whether an open parameter is a known one, in its case or another (`total` for `Total`): one the
 * service may read as the known one (the fiscal service reads keys regardless of case, and the later
 * of two wins), past every check of it. Every parameter the spec names, as written; in another case,
 * the given parameters always, and every one the spec names where it says keys are read so.
 */
function isKnownParameter(op: OperationSpec, encoded: Record<string, unknown>, name: string): boolean {
  const folded = foldedKey(name);
  // As written: every name the spec declares, and every one its patterns match.
  if (op.names?.includes(name) || op.namePatterns?.some((p) => new RegExp(p).test(name))) return true;
  return op.namesIgnoreCase?.includes(folded) === true || Object.keys(encoded).some((k) => foldedKey(k) === folded);
}

/**
 * A key as a service that reads keys regardless of case compares it: lower case, as Go's
 * encoding/json folds (its `unicode.SimpleFold` also takes the long s `ſ` for `s`, and the Kelvin
 * sign for `k`, which `toLowerCase` already does): `Caſh` is read as `Cash`.
 */
export const foldedKey = (key: string): string => key.toLowerCase().replace(/ſ/g, "s");

/** A parameter sent as a header: text HTTP can carry (HEADER_VALUE), or refused at its path before anything is sent. */
function headerValue(op: OperationSpec, k: string, v: unknown): string {
  const text = String(v);
  if (!HEADER_VALUE.test(text))
    throw new RequestValidationError(op.id, [{ path: `/${k}`, message: "is sent as an HTTP header: it must be one line of Latin-1 text without control characters" }]);
  return text;
}

/** Places each input parameter where the spec says: path, query, header, or the JSON body inside the envelope. */
export function split(op: OperationSpec, encoded: Record<string, unknown>, extra: Record<string, unknown> | undefined): HttpInput {
  const at = op.in;
  const http: HttpInput = {};
  const body: Record<string, unknown> = {};
  for (const k in encoded) {
    const v = encoded[k];
    if (v === undefined || !Object.hasOwn(encoded, k)) continue;
    const where = at?.path?.includes(k) ? "path" : at?.query?.includes(k) ? "query" : at?.header?.includes(k) ? "header" : undefined;
    if (where) {
      http[where] ??= {};
      // Names from the spec's parameter lists: no name here is special.
      http[where][k] = where === "header" ? headerValue(op, k, v) : v;
    } else put(body, k, v);
  }
  if (extra)
    for (const [k, v] of Object.entries(extra)) {
      if (isKnownParameter(op, encoded, k)) {
        throw new RequestValidationError(op.id, [{ path: `(extraParams)/${k}`, message: "is a known parameter (whatever its case): pass it as a parameter, where it is checked" }]);
      }
      put(body, k, v);
    }
  if (op.headerDefaults)
    for (const [k, v] of Object.entries(op.headerDefaults)) {
      http.header ??= {};
      if (!Object.hasOwn(http.header, k)) put(http.header, k, v);
    }
  const strays = op.body ? [] : Object.keys(body);
  if (strays.length)
    throw new RequestValidationError(
      op.id,
      strays.map((k) => ({ path: `/${k}`, message: "is not a parameter of this operation" })),
    );
  if (op.body) http.body = wrapParams(op.envelope, body);
  return http;
}
