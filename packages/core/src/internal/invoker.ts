// One invoker for every client: it takes a method's parameters, applies the codecs, checks them
// against the spec, splits them into path, query, header and body as the spec places them, wraps
// the body in the interface's envelope, sends the call (through the per-key chain when the
// operation has one), and unwraps the answer. Everything it does is read from the operation table.

import type { CallOptions, IdempotencyOptions, OpenParamsOptions, RowsOption, StandardSchemaV1 } from "../call.js";
import { ConfigurationError, RequestValidationError, RowValidationError, type ValidationIssue } from "../errors.js";
import type { BinaryFile } from "../file.js";
import type { ChainStore, Holder, JournalStore, LeaseStore } from "../stores.js";
import { cardDataIssues } from "./card-guard.js";
import { HeaderChain, type LeaseOptions } from "./chain.js";
import { type CodecContext, type CodecRegistry, checkPeriod, encodeInput, missingCodecs } from "./codecs.js";
import { checkFailure, unwrap, wrapParams } from "./envelope.js";
import { processHolder } from "./holder.js";
import { Journal } from "./journal.js";
import { type ChainDefinition, loadValidators, type Operation, type OperationSpec, validatorIssues } from "./operation.js";
import { pointerOf, put } from "./pointer.js";
import type { AttemptStep } from "./steps.js";
import type { CallResult, HttpInput, SendWatch, Transport } from "./transport.js";

/** A cross-field rule the spec names (`x-checks`) and a client brings: the problems it finds in the (encoded, valid) input. */
export type Check = (input: Record<string, unknown>, ctx: CodecContext) => ValidationIssue[];

/** Every per-call option a generated method may pass on. */
export type InvokeOptions = OpenParamsOptions & IdempotencyOptions & Partial<RowsOption<StandardSchemaV1>>;

/** Sends one operation: what a generated facade calls. */
export type Invoke = (op: OperationSpec, params: unknown, options?: InvokeOptions) => Promise<unknown>;

export interface InvokerOptions {
  /** Only its calls are used; the escape hatch `raw` stays the client's. */
  transport: Pick<Transport, "prepare" | "send" | "missingSchemes">;
  /** The operation table of the spec (all rows: the chain finds its `current` operation here). */
  operations: Readonly<Record<string, OperationSpec>>;
  codecs?: CodecRegistry;
  /** The cross-field rules the operations name (`x-checks`). */
  checks?: Readonly<Record<string, Check>>;
  /** The service's time zone, for date codecs. Default Asia/Almaty. */
  timeZone?: string;
  /** Check the input against the spec before sending. Default true. */
  validateRequests?: boolean;
  /** The spec's chain (`x-chain`), if it has one. */
  chain?: ChainDefinition;
  /**
   * Where the journal, the chain's links and its leases are kept, and who this client is in it.
   * Needed when the spec journals an operation (`x-outcome`) or has a chain.
   */
  journal?: {
    store: JournalStore & ChainStore & LeaseStore;
    /** The client's journal keys among every client of the store (interface, address, login): never a secret. */
    namespace: string;
    /** The chain's keys (registers) among every client of the store (interface, address): never a secret. Default: `namespace`. */
    chainNamespace?: string;
    /** This program as a holder of leases and intents. Default: unique to this client. */
    holder?: Holder;
    lease?: LeaseOptions;
    /** The client's per-attempt timeout in ms. */
    timeoutMs: number;
  };
  /** Paths for operations whose path is the SDK's default rather than a documented one. */
  paths?: Readonly<Record<string, string>>;
  /** Runs before every call; throws when the client may not be used any more. */
  guard?: () => void;
  /** Property names whose values are secrets (the spec's x-sensitive): the card guard's cryptogram fields among them. */
  sensitiveKeys?: readonly string[];
}

export interface Invoker {
  invoke: Invoke;
  /** The chain, when the spec has one. */
  chain: HeaderChain | undefined;
  /** The journal, when the spec journals an operation. */
  journal: Journal | undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();

export function createInvoker(options: InvokerOptions): Invoker {
  const { transport, codecs = {}, checks = {}, operations } = options;
  const timeZone = options.timeZone ?? "Asia/Almaty";
  const sensitive = new Set(options.sensitiveKeys ?? []);
  const problems = [
    ...missingCodecs(Object.values(operations), codecs).map((c) => `no codec ${c}`),
    ...Object.values(operations).flatMap((op) => (op.checks ?? []).filter((c) => !checks[c]).map((c) => `no check ${c} (${op.id})`)),
    ...transport.missingSchemes(Object.values(operations)).map((s) => `no security scheme ${s}`),
    ...Object.values(operations)
      .filter((op) => op.chain && !op.outcome)
      .map((op) => `${op.id} runs on the chain, so it must be journaled (x-outcome)`),
  ];
  if (problems.length) throw new ConfigurationError(`the client is incomplete: ${problems.join("; ")}`);

  // Path overrides are allowed only where the spec says the path is not documented, with the same placeholders.
  const effective = new Map<OperationSpec, OperationSpec>();
  for (const [id, path] of Object.entries(options.paths ?? {})) {
    const op = operations[id];
    if (!op) throw new ConfigurationError(`paths: no operation ${id}`);
    if (!op.pathIsDefault) throw new ConfigurationError(`paths: the path of ${id} is documented (${op.path}); it cannot be changed`);
    if (placeholders(path).join() !== placeholders(op.path).join()) throw new ConfigurationError(`paths: ${id} must keep the placeholders of ${op.path}`);
    effective.set(op, { ...op, path });
  }

  const journaled = Object.values(operations).filter((op) => op.outcome || op.chain);
  const j = options.journal;
  if (journaled.length > 0 && !j) throw new ConfigurationError(`the client is incomplete: ${journaled[0]!.id} is journaled, and no store was given`);
  const holder = j?.holder ?? processHolder();
  let chain: HeaderChain | undefined;
  if (options.chain && j) {
    const definition = options.chain;
    const current = operations[definition.current.operation];
    if (!current) throw new ConfigurationError(`the chain reads its links with ${definition.current.operation}, which the spec does not have`);
    chain = new HeaderChain({
      header: definition.header,
      store: j.store,
      holder,
      namespace: j.chainNamespace ?? j.namespace,
      lease: j.lease,
      timeoutMs: j.timeoutMs,
      current: async (key) => String(await invoke(current, { [definition.current.param]: key })),
    });
  }
  const journal =
    j &&
    new Journal({
      store: j.store,
      namespace: j.namespace,
      holder,
      operations,
      chain,
      sensitiveKeys: sensitive,
      timeoutMs: j.timeoutMs,
      query: (op, params) => invoke(op, params),
    });

  async function invoke(op: OperationSpec, params: unknown, given?: InvokeOptions): Promise<unknown> {
    const callOptions = given ?? {};
    options.guard?.();
    const input = params === undefined ? {} : params;
    if (!isPlainObject(input)) throw new RequestValidationError(op.id, [{ path: "", message: "parameters must be a plain object" }]);
    checkCallOptions(op, callOptions);
    const { extraParams, rows, idempotencyKey } = callOptions;
    if (idempotencyKey !== undefined && !op.outcome) {
      throw new RequestValidationError(op.id, [
        { path: "(idempotencyKey)", message: "this operation is not journaled (it moves no money and changes no register): it takes no key" },
      ]);
    }
    checkExtraParams(op, extraParams);
    checkRowSchema(op, rows);
    const ctx = { operation: op.id, timeZone };
    let encoded = encodeInput(op, input, codecs, ctx);
    if (encoded instanceof Promise) encoded = await encoded;
    checkPeriod(op, encoded, codecs, ctx);
    if (op.validators) await loadValidators(op);
    if (options.validateRequests !== false && op.validateInput && !op.validateInput(encoded)) {
      throw new RequestValidationError(op.id, validatorIssues(op.validateInput));
    }
    const issues = unsendable(encoded, "");
    if (extraParams) unsendable(extraParams, "(extraParams)", [], issues);
    // Card data never in the clear, where the validator cannot see it (open objects, extraParams) or in a cryptogram's place.
    if (issues.length === 0) issues.push(...cardDataIssues(encoded, op.openAt, extraParams, sensitive));
    for (const name of op.checks ?? []) issues.push(...checks[name]!(encoded, ctx));
    if (issues.length) throw new RequestValidationError(op.id, issues);
    const http = split(op, encoded, extraParams);
    const wantsFile = op.binaryWhen !== undefined && Object.entries(op.binaryWhen).every(([k, v]) => encoded[k] === v);
    if (wantsFile && rows) throw new RequestValidationError(op.id, [{ path: "(rows)", message: "the parameters ask for a file, which has no rows to check" }]);
    // The request is fixed now, when it was checked: a call that waits for its key's turn in the
    // chain sends what was asked, whatever the caller does meanwhile with the objects it passed.
    // The transport reads only the CallOptions part of the options.
    const request = transport.prepare(effective.get(op) ?? op, http, callOptions);
    // Sent, read, checked for the service's failure and unwrapped: an answer that arrived but
    // cannot be used leaves a journaled call's outcome to be learnt too.
    const roundTrip = async (steps: AttemptStep[], once?: SendWatch): Promise<RoundTrip> => {
      const result = await transport.send(request, callOptions, { steps, wantsFile, once });
      if (result.kind === "file") return { result, value: result.file };
      checkFailure(op, result);
      return { result, value: unwrap(op, result) };
    };
    if (op.outcome && journal) {
      return journal.run({
        op,
        idempotencyKey,
        encoded,
        timeoutMs: callOptions.timeoutMs,
        send: async (steps, watch) => (await roundTrip(steps, watch)).value,
      });
    }
    const { result, value } = await roundTrip([]);
    return rows && result.kind === "json" ? checkedRows(op, rows, value as unknown[], result) : value;
  }

  return { invoke, chain, journal };
}

/** A call's answer, and the value it carries (a file, or the unwrapped payload). */
interface RoundTrip {
  result: CallResult;
  value: unknown;
}

/**
 * Values JSON would not carry as they are, wherever they are (also inside objects the spec leaves
 * open, where the validator does not look): NaN and ±Infinity pass a JSON Schema `number` and
 * would be sent as `null`; a BigInt, a function or a symbol would fail or silently vanish; an array
 * hole or `undefined` item would become `null`; a Map, a Set or binary data would be sent as `{}`;
 * and an object that contains itself has no end. Each is refused at its path. Objects with their
 * own `toJSON` (a Date) go as their JSON says. The path is built only for a value found (this runs
 * on every call).
 */
function unsendable(value: unknown, prefix: string, keys: string[] = [], issues: ValidationIssue[] = [], within: object[] = []): ValidationIssue[] {
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

/** A header name (an HTTP token), and a value without line breaks: what HTTP can carry at all. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

/**
 * The call options, checked like the parameters: an object of the options the operation takes,
 * each of its type. A misspelt option (`timeout`, `idempotency_key`) is refused, never ignored.
 */
function checkCallOptions(op: OperationSpec, options: unknown): void {
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
        if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) wrong(name, "must be a number of milliseconds above 0");
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

function checkRowSchema(op: OperationSpec, rows: unknown): void {
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
async function checkedRows(op: OperationSpec, schema: StandardSchemaV1, rows: unknown[], result: CallResult): Promise<unknown[]> {
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

function checkExtraParams(op: OperationSpec, extra: unknown): void {
  if (extra === undefined) return;
  if (!op.openParams) {
    throw new RequestValidationError(op.id, [
      { path: "(extraParams)", message: "every parameter of this operation is known: pass it as a parameter (extraParams is for open parameter lists only)" },
    ]);
  }
  if (!isPlainObject(extra)) throw new RequestValidationError(op.id, [{ path: "(extraParams)", message: "must be a plain object" }]);
}

/** Places each input parameter where the spec says: path, query, header, or the JSON body inside the envelope. */
function split(op: OperationSpec, encoded: Record<string, unknown>, extra: Record<string, unknown> | undefined): HttpInput {
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

/** A facade method: typed by the operation row, sent by `invoke`. */
export function method<P, R, O extends CallOptions>(invoke: Invoke, op: Operation<P, R, O>): (params?: P, options?: O) => Promise<R> {
  return bound(invoke, op) as (params?: P, options?: O) => Promise<R>;
}

/** The one runtime shape of every facade method; the method types only differ in what they let callers pass and what they promise. */
const bound = (invoke: Invoke, op: OperationSpec) => (params?: unknown, options?: InvokeOptions) => invoke(op, params, options);

/** A facade method that answers with a list: the rows as the spec types them, or as a row schema passed in `options.rows` types them. */
export interface ListMethod<P, R, O> {
  <Rows extends StandardSchemaV1>(params: P | undefined, options: O & RowsOption<Rows>): Promise<StandardSchemaV1.InferOutput<Rows>[]>;
  (params?: P, options?: O): Promise<R>;
}

export function listMethod<P, R, O extends CallOptions>(invoke: Invoke, op: Operation<P, R, O>): ListMethod<P, R, O> {
  return bound(invoke, op) as ListMethod<P, R, O>;
}

/** A facade method whose answer is a file when the parameters ask for one (`format: "xlsx"`). */
export interface FileMethod<P, R, O, F> {
  (params: P & F, options?: O): Promise<BinaryFile>;
  (params?: P & { [K in keyof F]?: undefined }, options?: O): Promise<R>;
}

export function fileMethod<P, R, O extends CallOptions, F>(invoke: Invoke, op: Operation<P, R, O, F>): FileMethod<P, R, O, F> {
  return bound(invoke, op) as FileMethod<P, R, O, F>;
}

/** A file method whose JSON answer is a list: rows can be checked by a row schema, unless the parameters ask for the file. */
export interface FileListMethod<P, R, O, F> extends FileMethod<P, R, O, F> {
  <Rows extends StandardSchemaV1>(params: (P & { [K in keyof F]?: undefined }) | undefined, options: O & RowsOption<Rows>): Promise<StandardSchemaV1.InferOutput<Rows>[]>;
}

export function fileListMethod<P, R, O extends CallOptions, F>(invoke: Invoke, op: Operation<P, R, O, F>): FileListMethod<P, R, O, F> {
  return bound(invoke, op) as FileListMethod<P, R, O, F>;
}
