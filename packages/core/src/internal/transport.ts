// The transport: openapi-fetch's serializers build each request (path template, query string,
// JSON body), the attempts (attempt.ts) send it, and the answer is read here: a file, or JSON
// read with a size limit, decoded strictly, checked against the spec, or an HTTP error with the
// service's own code and message where the envelope says they are. openapi-fetch deliberately has
// no retries, timeouts, token refresh or error classes; they live in the attempts. The
// openapi-fetch client itself stays reachable as `raw`, over the same attempts.
import type { Client, ClientOptions } from "openapi-fetch";
import openapiFetch, { createQuerySerializer } from "openapi-fetch";
import { apiErrorClass } from "../api-error-class.js";
import type { CallOptions, FetchLike, Hooks, LogEvent } from "../call.js";
import {
  ConfigurationError,
  ConnectionError,
  type ErrorContext,
  PaysysError,
  RequestAbortedError,
  RequestValidationError,
  TimeoutError,
  UnexpectedResponseError,
} from "../errors.js";
import { BinaryFile } from "../file.js";
import { type AttemptContext, asPaysysError, attempts, type CallState, callState, type Prepared, retryWait, type SendWatch } from "./attempt.js";
import { isTimeout } from "./attempt-signal.js";
import { isServiceAnswer, serviceFields } from "./envelope.js";
import { fileResponse } from "./file-answer.js";
import { refuseStackHeaders } from "./header-check.js";
import type { HttpAnswer } from "./http.js";
import { harmless } from "./logger.js";
import { copyInto, put } from "./objects.js";
import { loadValidators, type OperationSpec, outcomeNote, rawOperation, validatorIssues } from "./operation.js";
import { markServiceAnswer } from "./outcome.js";
import { pathOf } from "./path-template.js";
import { httpFor } from "./platform.js";
import { parsePointer } from "./pointer.js";
import { ERROR_BODY_LIMIT, excerptOf, jsonOrUndefined, parseJson, type ReadBody, readBody, strictText } from "./read.js";
import { collectSecrets, credentialHeaderValues, redactUnnamed, redactValue, type SecretSet, scrub } from "./redact.js";
import { hiddenInText } from "./repeated-key.js";
import { isRetryableStatus, type RetryOptions, retryDefaults, retryDelay } from "./retry.js";
import { signInFirst } from "./sign-in-first.js";
import type { AttemptStep, SecurityScheme } from "./steps.js";
import type { CallRecord } from "./telemetry.js";

export type { Prepared, SendWatch } from "./attempt.js";

/**
 * openapi-fetch's default export is the function, but depending on how the importing module format
 * and its loader or bundler interoperate, a default import may give the module object instead
 * (found by `pnpm release:check`). Take the function from wherever it is. A default import, not
 * `import * as`: a namespace object needs the bundler's `__export` helper, which a page's bundler
 * then puts in a chunk the page loads before its first call (tools/initial-load.mjs).
 */
const createClient: <Paths extends {}>(options?: ClientOptions) => Client<Paths> = (() => {
  const d = openapiFetch as unknown;
  return (typeof d === "function" ? d : (d as { default: unknown }).default) as never;
})();

export interface TransportOptions {
  baseUrl: string;
  /** The `fetch` for every attempt, called as `fetch(url, init)`. Default: node:http(s) in Node, the runtime's own `fetch` elsewhere. */
  fetch?: FetchLike;
  /** For the default HTTP in Node: an `http.Agent`/`https.Agent` for every request (client certificates, a proxy agent). */
  agent?: unknown;
  /** Per-attempt timeout in ms (until the answer's headers, and for JSON until its body is read). Default 30000. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Check every answer against the spec (`true`), none (`false`), or by default those of operations that move money or change a register. */
  validateResponses?: boolean;
  logger?: (event: LogEvent) => void;
  hooks?: Hooks;
  headers?: Record<string, string>;
  /** The client's security schemes by the spec's scheme names. */
  schemes?: Readonly<Record<string, SecurityScheme>>;
  /** Property names whose values are secrets (from the spec's x-sensitive). */
  sensitiveKeys?: Iterable<string>;
  /** Secrets the client holds beyond one call (credentials, recent captcha texts and tokens). */
  secrets?: SecretSet;
  /** Largest JSON answer read, in bytes; a larger one is a ResponseTooLargeError. Files are streamed and not limited. Default 32 MiB. */
  maxResponseBytes?: number;
}

/** The HTTP parts of one call. */
export interface HttpInput {
  body?: unknown;
  query?: Record<string, unknown>;
  path?: Record<string, unknown>;
  header?: Record<string, string>;
  /** Parameters whose sensitive fields are the call's secrets though not sent as they are (a card before its cryptogram). */
  secretsOf?: unknown;
}

interface CallFacts {
  status: number;
  attempts: number;
  /** A short, secret-free excerpt of the body (never for an answer that carries secrets). */
  excerpt: () => string;
  /** Removes every secret the client knows from a text (for messages built from the answer). */
  scrub: (text: string) => string;
}

export type CallResult = ({ kind: "json"; body: unknown } | { kind: "file"; file: BinaryFile }) & CallFacts;

/**
 * A call's request, fixed when the call is made: every attempt sends these bytes, however long the
 * call waits before it is sent (for its register's turn in the chain, say) and whatever the caller
 * does meanwhile with the objects it passed.
 */
export interface ReadyRequest {
  readonly op: OperationSpec;
  /** The parameters as split; only their path, query and header parts are read again (for secrets). */
  readonly input: HttpInput;
  readonly prepared: Prepared;
}

/** What a call adds to its operation's security scheme: steps for every attempt (the chain), and whether it asks for a file. */
export interface SendExtras {
  steps?: AttemptStep[];
  wantsFile?: boolean;
  /**
   * A journaled call: one request at most. No retry, no redirect followed, and a re-send a step asks
   * for (a renewed token) is left to the caller, who first learns whether the first one took effect.
   */
  once?: SendWatch;
  /** The call's record for its span (telemetry): attempts and retries are added to it, however the send ends. */
  record?: CallRecord;
}

/** `Paths` types the escape hatch `raw` by the interface's spec (openapi-typescript's `paths`). */
export class Transport<Paths extends {} = Record<string, never>> {
  readonly raw: Client<Paths>;
  readonly #options: TransportOptions;
  readonly #sensitive: ReadonlySet<string>;
  readonly #context: AttemptContext;
  readonly #maxBytes: number;
  readonly #querySerializer = createQuerySerializer();
  readonly #baseUrl: string;
  /** The client's own headers, with lower-case names: the start of every request's headers. */
  readonly #headers: Record<string, string> = {};

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#sensitive = new Set(options.sensitiveKeys ?? []);
    this.#maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    for (const [k, v] of Object.entries(options.headers ?? {})) put(this.#headers, k.toLowerCase(), v);
    this.#context = {
      http: httpFor(options),
      retry: { ...retryDefaults, ...options.retry },
      hooks: options.hooks,
      logger: options.logger && harmless(options.logger),
      redactBody: (body, op) => this.#redactBody(body, op),
    };
    // The escape hatch: openapi-fetch typed by the spec, over our attempts with the client's first scheme.
    const rawScheme = Object.keys(options.schemes ?? {}).slice(0, 1);
    const [rawRead, rawWrite] = [rawOperation(rawScheme, true), rawOperation(rawScheme, false)];
    this.raw = createClient({
      baseUrl: options.baseUrl,
      headers: options.headers,
      fetch: async (request: Request) => {
        const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
        const headers: Record<string, string> = {};
        request.headers.forEach((v, k) => {
          put(headers, k, v);
        });
        refuseStackHeaders(headers, (name, why) => new RequestValidationError("raw", [{ path: `(options)/headers/${name}`, message: why }]));
        const prepared = { url: request.url, method: request.method, headers, body };
        const reads = request.method === "GET" || request.method === "HEAD";
        const state = this.#state(reads ? rawRead : rawWrite, {}, prepared, undefined, [], undefined);
        try {
          return (await attempts(this.#context, prepared, state, request.signal)).response();
        } finally {
          state.endAttempt();
        }
      },
    });
  }

  /** The scheme names an operation table needs that this transport does not have. */
  missingSchemes(operations: Iterable<OperationSpec>): string[] {
    const unmet = [...operations].filter((op) => op.security.length > 0 && !op.security.some((s) => this.#options.schemes?.[s]));
    return [...new Set(unmet.map((op) => `${op.security.join(" or ")} (${op.id})`))];
  }

  /** The first of the operation's schemes the client has (a loop: this runs on every call). */
  schemeOf(op: OperationSpec): SecurityScheme | undefined {
    for (const name of op.security) {
      const scheme = this.#options.schemes?.[name];
      if (scheme) return scheme;
    }
    if (op.security.length === 0) return undefined;
    throw new ConfigurationError(`${op.id}: needs the security scheme ${op.security.join(" or ")}, which the client was not given`, { operation: op.id });
  }

  /** The sign-in a journaled call still needs before its intent (steps.ts `signIn`), run as its first attempt would run it; undefined when its credentials are in hand. */
  signIn({ op, input, prepared }: ReadyRequest, options: CallOptions): (() => Promise<void>) | undefined {
    const pending = this.schemeOf(op)?.signIn?.();
    const state = () => this.#state(op, input, prepared, options.timeoutMs, [], undefined);
    return pending && (() => signInFirst(pending, state(), options.signal).catch((e: PaysysError) => Promise.reject(this.#logged(op, e))));
  }

  #state(op: OperationSpec, input: HttpInput, prepared: Prepared, timeoutMs: number | undefined, extra: AttemptStep[], once: SendWatch | undefined): CallState {
    const scheme = this.schemeOf(op);
    const steps = scheme ? [scheme, ...extra] : extra;
    return callState(op, steps, timeoutMs ?? this.#options.timeoutMs ?? 30_000, once, () => this.#secrets(input, prepared, steps));
  }

  /** Every secret that may be in play for a call: what it sent, what its steps hold, what the client holds. Collected only when a text needs scrubbing. */
  *#secrets(input: HttpInput, { body, headers }: Prepared, steps: AttemptStep[]): Iterable<string> {
    yield* collectSecrets([input.path, input.query, input.header, input.secretsOf], this.#sensitive);
    yield* credentialHeaderValues(headers);
    if (typeof body === "string") yield* collectSecrets(JSON.parse(body), this.#sensitive);
    for (const step of steps) if (step.secrets) yield* step.secrets();
    if (this.#options.secrets) yield* this.#options.secrets;
  }

  #prepare(op: OperationSpec, input: HttpInput, options: CallOptions): Prepared {
    // openapi-fetch's serializers, applied to the operation's path only (the base URL is not a template).
    let url = this.#baseUrl + (input.path ? pathOf(op.path, input.path) : op.path);
    const search = input.query ? this.#querySerializer(input.query).replace(/^\?/, "") : "";
    if (search) url += `?${search}`;
    const headers: Record<string, string> = copyInto({}, this.#headers);
    if (input.body !== undefined) headers["content-type"] = "application/json";
    for (const source of [input.header, options.headers]) {
      if (source) for (const [k, v] of Object.entries(source)) put(headers, k.toLowerCase(), v);
    }
    return { url, method: op.method.toUpperCase(), headers, body: input.body === undefined ? undefined : json(op, input.body) };
  }

  /**
   * Sends one operation and reads its answer: JSON (parsed, optionally validated) or a file. HTTP
   * errors, timeouts and bodies that are not what the spec says become typed errors. `steps` join
   * the operation's security scheme on every attempt (the per-key chain is one).
   */
  async call(op: OperationSpec, input: HttpInput, options: CallOptions = {}, extra: SendExtras = {}): Promise<CallResult> {
    return this.send(this.prepare(op, input, options), options, extra);
  }

  /** Fixes a call's request now (URL, headers, body bytes), for `send` to send later. */
  prepare(op: OperationSpec, input: HttpInput, options: CallOptions = {}): ReadyRequest {
    return { op, input, prepared: this.#prepare(op, input, options) };
  }

  /** Sends a request `prepare` made; see `call`. */
  send(ready: ReadyRequest, options: CallOptions = {}, extra: SendExtras = {}): Promise<CallResult> {
    // Not async itself: a call's promise is #attempted's, with one more only for a span's record.
    // Whatever fails before it is a rejection all the same, never a throw.
    try {
      const { op, input, prepared } = ready;
      // The invoker loads an operation's validators before it checks the input; a call made here directly may be the first.
      if (op.validators && this.#checksAnswer(op)) return loadValidators(op).then(() => this.send(ready, options, extra));
      const state = this.#state(op, input, prepared, options.timeoutMs, extra.steps ?? [], extra.once);
      const sent = this.#attempted(op, prepared, state, options, extra);
      const { record } = extra;
      return record ? sent.finally(() => noteSend(record, state)) : sent;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** A file: its timer stops at its first bytes (a download is not cut off; the caller's signal still holds). */
  async #file(op: OperationSpec, answer: HttpAnswer, state: CallState, ctx: ErrorContext, signal: AbortSignal | undefined): Promise<CallResult> {
    const response = await fileResponse(answer, op, ctx, signal)
      .catch((e) => Promise.reject(this.#logged(op, this.#readFailure(e, op, ctx, signal))))
      .finally(() => state.endAttempt());
    return { kind: "file", file: new BinaryFile(response), ...this.#facts(answer, state, () => "[a file]") };
  }

  /** The attempts of `send` and the reading of the answer, until a result or a typed error. */
  async #attempted(op: OperationSpec, prepared: Prepared, state: CallState, options: CallOptions, extra: SendExtras): Promise<CallResult> {
    for (;;) {
      let answer: HttpAnswer;
      try {
        answer = await attempts(this.#context, prepared, state, options.signal);
      } catch (e) {
        state.endAttempt();
        throw this.#logged(op, asPaysysError(e, state));
      }
      const ctx: ErrorContext = { operation: op.id, status: answer.status, attempts: state.attempts };
      const ok = answer.status >= 200 && answer.status < 300;
      if (ok && extra.wantsFile && !/json/i.test(answer.header("content-type") ?? "")) return this.#file(op, answer, state, ctx, options.signal);
      let read: ReadBody;
      try {
        read = await readBody(answer, ok ? this.#maxBytes : ERROR_BODY_LIMIT, ok, op, ctx);
      } catch (e) {
        state.endAttempt();
        const failure = this.#readFailure(e, op, ctx, options.signal);
        // An answer cut off or too slow counts as one that never came: the same retry decision, the same budget.
        const delay =
          failure instanceof ConnectionError || failure instanceof TimeoutError ? retryDelay(op.idempotent, state.retries, { kind: "lost" }, this.#context.retry) : undefined;
        if (delay === undefined) throw this.#logged(op, failure);
        await retryWait(this.#context, state, failure.message, options.signal, delay);
        continue;
      }
      // Its signal may serve another attempt only when the exchange is over: a body cut at the limit
      // may still be read by a hook's or a fetch's clone, which a later abort would cut.
      state.endAttempt(!read.cut);
      try {
        return this.#answer(op, answer, read.bytes, ctx, state);
      } catch (e) {
        throw this.#logged(op, e as PaysysError);
      }
    }
  }

  /** Whether an operation's answers are checked against the spec: all of them unless the caller turned it off (an unchecked answer can be silent wrong data). */
  #checksAnswer(op: OperationSpec): boolean {
    return this.#options.validateResponses !== false || op.movesMoney || op.outcome !== undefined || op.decidesOutcome === true;
  }

  /** What went wrong while the body arrived, as the typed error a caller sees. */
  #readFailure(e: unknown, op: OperationSpec, ctx: ErrorContext, signal: AbortSignal | undefined): PaysysError {
    if (e instanceof PaysysError) return e;
    if (signal?.aborted)
      return new RequestAbortedError(`${op.id}: aborted by the caller while the answer arrived${outcomeNote(op)}`, {
        ...ctx,
        cause: signal.reason,
        outcomeUnknown: !op.idempotent,
      });
    if (isTimeout(e)) return new TimeoutError(`${op.id}: timed out reading the answer${outcomeNote(op)}`, { ...ctx, outcomeUnknown: !op.idempotent });
    return new ConnectionError(`${op.id}: the answer was cut off${outcomeNote(op)}`, { ...ctx, outcomeUnknown: !op.idempotent });
  }

  /** Turns a whole body into the call's result: typed errors for HTTP errors, bad UTF-8, bad JSON, or an answer the spec does not allow. */
  #answer(op: OperationSpec, answer: HttpAnswer, bytes: Uint8Array, ctx: ErrorContext, state: CallState): CallResult {
    const contentType = answer.header("content-type") ?? "";
    const excerpt = () => excerptOf(bytes, contentType, op.secretAnswer === true, [...state.secrets()], scrub);
    if (answer.status < 200 || answer.status >= 300) throw this.#httpError(op, answer.status, new TextDecoder().decode(bytes), contentType, excerpt, state);
    const text = strictText(bytes, op, ctx, excerpt);
    if (op.textAnswer) return { kind: "json", body: text, ...this.#facts(answer, state, excerpt) };
    const body = parseJson(text, contentType, op, ctx, excerpt);
    const checks = this.#checksAnswer(op);
    const hidden = checks && body !== null && typeof body === "object" ? hiddenInText(text, body, bytes) : undefined;
    if (hidden) {
      const what =
        hidden.key !== undefined
          ? `gives the key ${JSON.stringify(hidden.key.slice(0, 40))} twice in one object; which value the service meant is unknown`
          : `writes the number ${hidden.number!.slice(0, 40)}, which JSON cannot carry exactly (it would be read as ${Number(hidden.number)})`;
      throw new UnexpectedResponseError(`${op.id}: the answer ${what}${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() });
    }
    if (checks && op.validateResponse && !op.validateResponse(body)) {
      const issues = validatorIssues(op.validateResponse)
        .slice(0, 3)
        .map((i) => `${i.path || "(root)"} ${i.message}`)
        .join("; ");
      throw new UnexpectedResponseError(`${op.id}: the answer does not match the spec: ${issues}${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() });
    }
    return { kind: "json", body, ...this.#facts(answer, state, excerpt) };
  }

  #facts(answer: HttpAnswer, state: CallState, excerpt: () => string): CallFacts {
    return { status: answer.status, attempts: state.attempts, excerpt, scrub: (text) => scrub(text, state.secrets()) };
  }

  /** The typed error for an HTTP error status, with the service's code and message where the envelope says they are. */
  #httpError(op: OperationSpec, status: number, text: string, contentType: string, excerpt: () => string, state: CallState): PaysysError {
    const body = jsonOrUndefined(text);
    const { code, message } = serviceFields(op.envelope, body);
    const serviceMessage = message === undefined ? undefined : scrub(message, state.secrets());
    const shown = serviceMessage !== undefined ? `: ${serviceMessage}` : text.trim() ? `; body begins: ${JSON.stringify(excerpt())}` : "";
    const notRetried = !op.idempotent && isRetryableStatus(status) ? (op.movesMoney ? outcomeNote(op) : " (not retried: the operation is not idempotent)") : "";
    const ErrorClass = apiErrorClass(status);
    const error = new ErrorClass(`${op.id}: HTTP ${status}${shown}${notRetried}`, { operation: op.id, status, attempts: state.attempts, serviceCode: code, serviceMessage });
    if (isServiceAnswer(op.envelope, contentType, body, { code, message })) markServiceAnswer(error);
    return error;
  }

  #redactBody(body: Uint8Array | string, op: OperationSpec): unknown {
    try {
      const shown = redactValue(JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)), this.#sensitive);
      return op.secretExtras ? redactUnnamed(shown, parsePointer(op.envelope.params), op.names ?? []) : shown;
    } catch {
      return `[${typeof body === "string" ? body.length : body.byteLength} bytes]`;
    }
  }

  #logged<E extends PaysysError>(op: OperationSpec, error: E): E {
    this.#context.logger?.({ type: "error", operation: op.id, error: { name: error.name, message: error.message } });
    return error;
  }
}

/** What a send adds to its call's record: a journaled call's request was sent when its watch says so. */
function noteSend(record: CallRecord, state: CallState): void {
  record.attempts += state.attempts;
  record.retries += state.retries;
  record.sent ||= state.once ? state.once.sent : state.attempts > 0;
}

/**
 * The body as JSON. The invoker refuses what JSON cannot carry before this; a `toJSON` of the
 * caller's that throws is the one way left to fail here, and it is the caller's input too.
 */
function json(op: OperationSpec, body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (e) {
    // The error's name only: its message may come from the caller's own code and quote its data.
    throw new RequestValidationError(op.id, [{ path: "", message: `cannot be written as JSON (${e instanceof Error ? e.name : "an error"})` }]);
  }
}
