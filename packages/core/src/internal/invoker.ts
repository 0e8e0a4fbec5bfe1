// One invoker for every client: it takes a method's parameters, applies the codecs, checks them
// against the spec, splits them into path, query, header and body as the spec places them, wraps
// the body in the interface's envelope, sends the call (through the per-key chain when the
// operation has one), and unwraps the answer. Everything it does is read from the operation table.

import type { CallOptions, IdempotencyOptions, OpenParamsOptions, RowsOption, StandardSchemaV1 } from "../call.js";
import { ConfigurationError, RequestValidationError, type ValidationIssue } from "../errors.js";
import type { BinaryFile } from "../file.js";
import type { ChainStore, Holder, JournalStore, LeaseStore } from "../stores.js";
import { asSent, checkCallOptions, checkExtraParams, checkedRows, checkRowSchema, isPlainObject, split } from "./call-input.js";
import { cardDataIssues } from "./card-guard.js";
import { maskCardRuns } from "./card-number.js";
import { HeaderChain, type LeaseOptions } from "./chain.js";
import { type CodecContext, type CodecRegistry, checkPeriod, encodeInput, missingCodecs } from "./codecs.js";
import { checkPathOverrides } from "./construction.js";
import { checkAnswerNames, checkFailure, notTheFile, unwrap } from "./envelope.js";
import { processHolder } from "./holder.js";
import { Journal } from "./journal.js";
import { type ChainDefinition, loadValidators, type Operation, type OperationSpec, validatorIssues } from "./operation.js";
import { snapshotCall } from "./snapshot.js";
import type { AttemptStep } from "./steps.js";
import type { CallRecord, Telemetry } from "./telemetry.js";
import type { CallResult, SendWatch, Transport } from "./transport.js";

/** A cross-field rule the spec names (`x-checks`) and a client brings: the problems it finds in the (encoded, valid) input. */
export type Check = (input: Record<string, unknown>, ctx: CodecContext) => ValidationIssue[];

/** Every per-call option a generated method may pass on. */
export type InvokeOptions = OpenParamsOptions & IdempotencyOptions & Partial<RowsOption<StandardSchemaV1>>;

/** Sends one operation: what a generated facade calls. */
export type Invoke = (op: OperationSpec, params: unknown, options?: InvokeOptions) => Promise<unknown>;

export interface InvokerOptions {
  /** Only its calls are used; the escape hatch `raw` stays the client's. */
  transport: Pick<Transport, "prepare" | "send" | "missingSchemes" | "signIn">;
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
    /** How long a request may still land after its call stopped waiting, in ms. Default `DEFAULT_LANDING_MS`. */
    landingMs?: number;
  };
  /** Paths for operations whose path is the SDK's default rather than a documented one. */
  paths?: Readonly<Record<string, string>>;
  /** Runs before every call; throws when the client may not be used any more. */
  guard?: () => void;
  /** Property names whose values are secrets (the spec's x-sensitive): the card guard's cryptogram fields among them. */
  sensitiveKeys?: readonly string[];
  /** Runs every call in its span (`telemetry.ts`); none when the client's telemetry is off. */
  telemetry?: Telemetry;
  /** The client's own account (the merchant id; never a secret): an answer naming another (`answerNames` `$account`) is refused. */
  account?: string;
}

export interface Invoker {
  invoke: Invoke;
  /** The chain, when the spec has one. */
  chain: HeaderChain | undefined;
  /** The journal, when the spec journals an operation. */
  journal: Journal | undefined;
}

/** A call ready to send: checked, encoded, placed, fixed. */
interface PreparedCall {
  encoded: Record<string, unknown>;
  request: ReturnType<Transport["prepare"]>;
  wantsFile: boolean;
  callOptions: InvokeOptions;
}

/**
 * The call path, in order. Each step is a function of its own; a newcomer reads them top to bottom:
 *
 * 1. prepare: check the parameters and options, encode (codecs), validate against the spec, refuse
 *    what JSON cannot carry and card data in the clear, run the spec's cross-field checks, place
 *    each parameter (path, query, header, body in its envelope), fix the request.
 * 2. chain/journal (journaled operations only): write the intent, take the register's lease, present
 *    the chain's link; after the answer, settle the outcome (`journal.ts`, `chain.ts`).
 * 3. send, authorize, retry (`transport.ts`, `attempt.ts`): one attempt after another within the
 *    retry budget, each authorized by the security scheme's step.
 * 4. read the envelope and decide (`envelope.ts`): the service's failure becomes a typed error,
 *    success is unwrapped; rows are checked by the caller's schema.
 */
export function createInvoker(options: InvokerOptions): Invoker {
  const { transport, operations, account } = options;
  checkWiring(options);
  const effective = pathOverrides(operations, options.paths);
  const { chain, journal } = journalParts(options, (op, params) => invoke(op, params));
  const prepare = preparer(options);

  const { telemetry } = options;
  // The call reads its own copy of what it was given, taken now, before its first await (snapshot.ts).
  // A getter that throws while it is copied, or a value nested too deep, rejects the call's promise with a RequestValidationError naming where.
  const invoke: Invoke = (op, given, givenOptions) => {
    let params: unknown;
    let options: InvokeOptions | undefined;
    try {
      [params, options] = snapshotCall(given, givenOptions, op.id) as [unknown, InvokeOptions | undefined];
    } catch (e) {
      return Promise.reject(e);
    }
    return telemetry ? telemetry.run(op, (record) => run(op, params, options, record)) : run(op, params, options, undefined);
  };

  async function run(op: OperationSpec, params: unknown, given: InvokeOptions | undefined, record: CallRecord | undefined): Promise<unknown> {
    let call: PreparedCall;
    try {
      const prepared = prepare(effective.get(op) ?? op, op, params, given);
      call = prepared instanceof Promise ? await prepared : prepared;
    } catch (e) {
      throw cardNumbersHidden(e);
    }
    const { request, callOptions, wantsFile } = call;
    if (op.outcome && journal) {
      // Sent, read, checked for the service's failure and unwrapped: an answer that arrived but
      // cannot be used leaves a journaled call's outcome to be learnt too.
      const send = async (steps: AttemptStep[], once: SendWatch) =>
        answerValue(op, await transport.send(request, callOptions, { steps, wantsFile, once, record }), record, call, account);
      const signIn = transport.signIn(request, callOptions);
      return journal.run({ op, idempotencyKey: callOptions.idempotencyKey, encoded: call.encoded, timeoutMs: callOptions.timeoutMs, send, signIn });
    }
    const result = await transport.send(request, callOptions, { wantsFile, record });
    const value = answerValue(op, result, record, call, account);
    return callOptions.rows && result.kind === "json" ? checkedRows(op, callOptions.rows, value as unknown[], result) : value;
  }

  return { invoke, chain, journal };
}

/** Every check, codec and scheme the operations name must have its handler: refused when the client is made, not at the first call. */
function checkWiring({ transport, operations, codecs = {}, checks = {} }: InvokerOptions): void {
  const ops = Object.values(operations);
  const problems = [
    ...missingCodecs(ops, codecs).map((c) => `no codec ${c}`),
    ...ops.flatMap((op) => (op.checks ?? []).filter((c) => !checks[c]).map((c) => `no check ${c} (${op.id})`)),
    ...transport.missingSchemes(ops).map((s) => `no security scheme ${s}`),
    ...ops.filter((op) => op.chain && !op.outcome).map((op) => `${op.id} runs on the chain, so it must be journaled (x-outcome)`),
  ];
  if (problems.length) throw new ConfigurationError(`the client is incomplete: ${problems.join("; ")}`);
}

/** The operations whose path the caller changed (checked as at the client's construction), with their path in place. */
function pathOverrides(operations: InvokerOptions["operations"], paths: InvokerOptions["paths"]): Map<OperationSpec, OperationSpec> {
  if (!paths) return new Map();
  // Checked on the routes as a shell has them (construction.ts), so the client and its shell say the same.
  const routes = Object.fromEntries(Object.entries(operations).map(([id, op]) => [id, op.pathIsDefault ? { defaultPath: op.path } : {}]));
  return new Map(
    checkPathOverrides(routes, paths).map(([id, path]) => {
      const op = operations[id]!;
      return [op, { ...op, path }];
    }),
  );
}

/** The chain and the journal over the client's store, when the spec has a chain or journals an operation. */
function journalParts(options: InvokerOptions, invoke: (op: OperationSpec, params: unknown) => Promise<unknown>): Pick<Invoker, "chain" | "journal"> {
  const { operations } = options;
  const journaled = Object.values(operations).filter((op) => op.outcome || op.chain);
  const j = options.journal;
  if (journaled.length > 0 && !j) throw new ConfigurationError(`the client is incomplete: ${journaled[0]!.id} is journaled, and no store was given`);
  if (!j) return { chain: undefined, journal: undefined };
  const holder = j.holder ?? processHolder();
  let chain: HeaderChain | undefined;
  if (options.chain) {
    const definition = options.chain;
    const current = operations[definition.current.operation];
    if (!current) throw new ConfigurationError(`the chain reads its links with ${definition.current.operation}, which the spec does not have`);
    chain = new HeaderChain({
      header: definition.header,
      linkPattern: definition.pattern === undefined ? undefined : new RegExp(definition.pattern),
      store: j.store,
      holder,
      namespace: j.chainNamespace ?? j.namespace,
      lease: j.lease,
      timeoutMs: j.timeoutMs,
      current: async (key) => String(await invoke(current, { [definition.current.param]: key })),
    });
  }
  const sensitiveKeys = new Set(options.sensitiveKeys ?? []);
  // Registers are the service's (chainNamespace), journal keys the account's (namespace, which begins with it).
  const registerPrefix = j.chainNamespace !== undefined && j.namespace.startsWith(`${j.chainNamespace} `) ? `${j.chainNamespace} ` : undefined;
  const journal = new Journal({
    store: j.store,
    namespace: j.namespace,
    registerPrefix,
    holder,
    operations,
    chain,
    sensitiveKeys,
    timeoutMs: j.timeoutMs,
    landingMs: j.landingMs,
    query: invoke,
  });
  return { chain, journal };
}

/**
 * A refusal of the caller's input with every card number written in it shown as `[card number]`:
 * a check, a codec or a validator quotes what it was given (an amount's field given a card number,
 * a misspelt name `card 4111…`), and whatever quoted it, no message, issue or stack carries one.
 * Done here, once for every step of `prepare`, rather than in the error class: the class is in every
 * page's first load, the card-number reader is not.
 */
function cardNumbersHidden(e: unknown): unknown {
  if (!(e instanceof RequestValidationError)) return e;
  Object.assign(e, { issues: e.issues.map((i) => ({ path: maskCardRuns(i.path), message: maskCardRuns(i.message) })) });
  e.message = maskCardRuns(e.message);
  if (e.stack) e.stack = maskCardRuns(e.stack);
  return e;
}

type Prepare = (target: OperationSpec, op: OperationSpec, params: unknown, given: InvokeOptions | undefined) => PreparedCall | Promise<PreparedCall>;

/**
 * Step 1: everything that happens before a call may be sent. Throws RequestValidationError with the
 * path of each problem; nothing is sent. A promise only where a codec answers one or the
 * operation's validators are not loaded yet: every other call is prepared without waiting.
 */
const preparer = (options: InvokerOptions): Prepare => {
  const sensitive = new Set(options.sensitiveKeys ?? []);
  return (target, op, params, given) => {
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
    const ctx = { operation: op.id, timeZone: options.timeZone ?? "Asia/Almaty" };
    const encoded = encodeInput(op, input, options.codecs ?? {}, ctx);
    const call: Checking = { options, sensitive, target, op, callOptions, ctx, raw: input };
    if (encoded instanceof Promise || op.validators) return preparedLater(call, encoded);
    checkPeriod(op, encoded, options.codecs ?? {}, ctx);
    return checked(call, encoded);
  };
};

/** A call between its encoding and its request: what the checks on the encoded input read. */
interface Checking {
  options: InvokerOptions;
  sensitive: ReadonlySet<string>;
  target: OperationSpec;
  op: OperationSpec;
  callOptions: InvokeOptions;
  ctx: CodecContext;
  /** The parameters as the caller gave them, before the codecs (a card a cryptogram now carries). */
  raw: Record<string, unknown>;
}

/** `checked`, once a codec's promise answered and, on the operation's first call, its validators are loaded (after the period check, as the period needs no validator). */
async function preparedLater(call: Checking, encoded: Record<string, unknown> | Promise<Record<string, unknown>>): Promise<PreparedCall> {
  const value = await encoded;
  checkPeriod(call.op, value, call.options.codecs ?? {}, call.ctx);
  if (call.op.validators) await loadValidators(call.op);
  return checked(call, value);
}

/** The checks on the encoded input (the options before encoding, the period just after it), then its place in the request, fixed. */
function checked({ options, sensitive, target, op, callOptions, ctx, raw }: Checking, given: Record<string, unknown>): PreparedCall {
  const { checks = {} } = options;
  const { rows } = callOptions;
  const validate = options.validateRequests !== false ? op.validateInput : undefined;
  if (validate && !validate(given)) throw new RequestValidationError(op.id, validatorIssues(validate));
  // From here on every check reads what is sent (asSent): the JSON that values with a toJSON write.
  const issues: ValidationIssue[] = [];
  const encoded = asSent(given, "", issues) as Record<string, unknown>;
  const extraParams = callOptions.extraParams && (asSent(callOptions.extraParams, "(extraParams)", issues) as Record<string, unknown>);
  if (issues.length === 0) {
    // A value's toJSON changed what is sent: the spec's schema is checked on that too.
    if (validate && encoded !== given && !validate(encoded)) throw new RequestValidationError(op.id, validatorIssues(validate));
    // Card data never in the clear, where the validator cannot see it (open objects, extraParams) or in a cryptogram's place.
    issues.push(...cardDataIssues(encoded, op.openAt, extraParams, sensitive));
  }
  // The named checks read the input as given where some of it cannot be sent (as they always did).
  const input = issues.length ? given : encoded;
  for (const name of op.checks ?? []) issues.push(...checks[name]!(input, ctx));
  if (issues.length) throw new RequestValidationError(op.id, issues);
  const http = split(op, encoded, extraParams);
  // What a codec hid from the wire (a card number in a cryptogram) the service may still write back: its secrets too.
  if (op.codecs && raw !== encoded) http.secretsOf = raw;
  const wantsFile = op.binaryWhen !== undefined && Object.entries(op.binaryWhen).every(([k, v]) => encoded[k] === v);
  if (wantsFile && rows) throw new RequestValidationError(op.id, [{ path: "(rows)", message: "the parameters ask for a file, which has no rows to check" }]);
  // The request is fixed now, when it was checked: a call that waits for its key's turn in the
  // chain sends what was asked, whatever the caller does meanwhile with the objects it passed.
  // The transport reads only the CallOptions part of the options.
  return { encoded, request: options.transport.prepare(target, http, callOptions), wantsFile, callOptions };
}

/** Step 4: the value an answer carries (a file, or the unwrapped payload); the service's failure is a typed error. */
function answerValue(op: OperationSpec, result: CallResult, record: CallRecord | undefined, call: PreparedCall, account: string | undefined): unknown {
  if (record) record.status = result.status;
  if (result.kind === "file") return result.file;
  checkFailure(op, result);
  if (call.wantsFile) throw notTheFile(op, result);
  const value = unwrap(op, result);
  if (op.answerNames) checkAnswerNames(op, result, value, call.encoded, account);
  return value;
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
