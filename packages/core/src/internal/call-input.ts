// The call's input, before anything is sent: the call options checked like the parameters, values
// JSON cannot carry refused at their path, the parameters placed where the spec says (path, query,
// header, the body inside its envelope), and rows checked by the caller's schema after the answer.
// The invoker's "prepare" step is made of these.
import type { StandardSchemaV1 } from "../call.js";
import { RequestValidationError, RowValidationError, type ValidationIssue } from "../errors.js";
import { wrapParams } from "./envelope.js";
import { put } from "./objects.js";
import type { OperationSpec } from "./operation.js";
import { pointerOf } from "./pointer.js";
import type { CallResult, HttpInput } from "./transport.js";

export const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * Values JSON would not carry as they are, wherever they are (also inside objects the spec leaves
 * open, where the validator does not look): NaN and ±Infinity pass a JSON Schema `number` and
 * would be sent as `null`; a BigInt, a function or a symbol would fail or silently vanish; an array
 * hole or `undefined` item would become `null`; a Map, a Set or binary data would be sent as `{}`;
 * and an object that contains itself has no end. Each is refused at its path. Objects with their
 * own `toJSON` (a Date) go as their JSON says. The path is built only for a value found (this runs
 * on every call).
 */
export function unsendable(value: unknown, prefix: string, keys: string[] = [], issues: ValidationIssue[] = [], within: object[] = []): ValidationIssue[] {
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) refuse(issues, prefix, keys, `must be a finite number, not ${value}`);
      return issues;
    case "bigint":
      refuse(issues, prefix, keys, "must be a number or a decimal string, not a BigInt (JSON has no BigInt)");
      return issues;
    case "function":
    case "symbol":
      refuse(issues, prefix, keys, `cannot be sent as JSON (a ${typeof value})`);
      return issues;
    case "object":
      break;
    default:
      return issues;
  }
  if (value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") return issues;
  if (value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof WeakSet || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    refuse(issues, prefix, keys, "would be sent as {}: pass a plain object or an array");
    return issues;
  }
  if (within.includes(value)) {
    refuse(issues, prefix, keys, "contains itself: JSON cannot write it");
    return issues;
  }
  within.push(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      keys.push(String(i));
      if (value[i] === undefined) refuse(issues, prefix, keys, "is missing or undefined: JSON would send null");
      else unsendable(value[i], prefix, keys, issues, within);
      keys.pop();
    }
  } else {
    for (const k in value) {
      if (!Object.hasOwn(value, k)) continue;
      keys.push(k);
      unsendable((value as Record<string, unknown>)[k], prefix, keys, issues, within);
      keys.pop();
    }
  }
  within.pop();
  return issues;
}

/** Adds a problem at the path the walk is at. */
function refuse(issues: ValidationIssue[], prefix: string, keys: string[], message: string): void {
  issues.push({ path: prefix + pointerOf(keys), message });
}

/** The longest delay `setTimeout` keeps (about 24.8 days). */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/** A header name (an HTTP token), and a value without line breaks: what HTTP can carry at all. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

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
        else
          for (const [h, v] of Object.entries(value))
            if (!HEADER_NAME.test(h) || typeof v !== "string" || !HEADER_VALUE.test(v)) wrong(`${name}/${h}`, "must be a header name with a string value on one line");
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
      http[where][k] = where === "header" ? String(v) : v;
    } else put(body, k, v);
  }
  if (extra)
    for (const [k, v] of Object.entries(extra)) {
      if (Object.hasOwn(encoded, k)) {
        throw new RequestValidationError(op.id, [{ path: `(extraParams)/${k}`, message: "is a known parameter: pass it as a parameter, where it is checked" }]);
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
