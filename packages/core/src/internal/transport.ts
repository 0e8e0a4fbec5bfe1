// The transport: openapi-fetch's serializers build each request (path template, query string,
// JSON body), and our attempt loop sends it. openapi-fetch deliberately has no retries, timeouts,
// token refresh or error classes; they live here, so a retry re-sends the same bytes, every attempt
// runs the security scheme and the chain, and every answer is read with a size limit.
//
// The openapi-fetch client itself stays reachable as `raw`, over the same attempt loop.

import type { Client, ClientOptions } from "openapi-fetch";
import * as openapiFetch from "openapi-fetch";
import type { CallOptions, FetchLike, Hooks, LogEvent } from "../call.js";
import {
  apiErrorClass,
  ConfigurationError,
  ConnectionError,
  type ErrorContext,
  PaysysError,
  RedirectError,
  RequestAbortedError,
  RequestValidationError,
  ResponseTooLargeError,
  TimeoutError,
  UnexpectedResponseError,
} from "../errors.js";
import { BinaryFile } from "../file.js";
import { serviceFields } from "./envelope.js";
import { nodeChunks, nodeHttpFetch, nodeHttpModules } from "./node-http.js";
import { type OperationSpec, outcomeNote, validatorIssues } from "./operation.js";
import { put } from "./pointer.js";
import { collectSecrets, redactHeaders, redactValue, type SecretSet, scrub } from "./redact.js";
import { backoffDelay, isRetryableStatus, parseRetryAfter, type RetryOptions, retryDefaults, sleep } from "./retry.js";
import type { AttemptStep, SecurityScheme } from "./steps.js";

/**
 * openapi-fetch's CommonJS build sets `exports.default` without the `__esModule` marker, so in
 * our CJS output the default import is the module object, not the function (found by
 * `pnpm release:check`). Take the function from wherever this module format put it.
 */
const createClient: <Paths extends {}>(options?: ClientOptions) => Client<Paths> = (() => {
  const d = (openapiFetch as unknown as { default: unknown }).default;
  return (typeof d === "function" ? d : (d as { default: unknown }).default) as never;
})();
const { createQuerySerializer, defaultPathSerializer } = openapiFetch;

export interface TransportOptions {
  baseUrl: string;
  /** The `fetch` used for every attempt, called as `fetch(url, init)`. Default: node:http(s) in Node, `globalThis.fetch` elsewhere. */
  fetch?: FetchLike;
  /** Per-attempt timeout in ms (until the answer's headers, and for JSON until its body is read). Default 30000. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Check every answer against the spec. Default false (costs CPU on large reports). */
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
}

interface CallFacts {
  status: number;
  headers: Headers;
  attempts: number;
  /** A short, secret-free excerpt of the body (never for an answer that carries secrets). */
  excerpt: () => string;
  /** Removes every secret the client knows from a text (for messages built from the answer). */
  scrub: (text: string) => string;
}

export type CallResult = ({ kind: "json"; body: unknown } | { kind: "file"; file: BinaryFile }) & CallFacts;

/** A request ready to send: what every attempt re-sends. */
export interface Prepared {
  url: string;
  method: string;
  /** Lower-case names; each attempt copies them into its own Headers. */
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
}

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
}

/** What a journaled call learns from the transport about its one request. */
export interface SendWatch {
  /** Called right before the request is handed to the HTTP layer; throwing stops it unsent. */
  beforeSend(): void;
  /** Set when the request was handed to the HTTP layer (it may have reached the service). */
  sent: boolean;
  /** Set when a step repaired what the answer refused (a renewed token) and would send it again. */
  repaired: boolean;
}

/** The state one call shares with its attempts. */
interface CallState {
  op: OperationSpec;
  steps: AttemptStep[];
  attempts: number;
  /** Retries spent, before the answer and while reading it: one budget per call. */
  retries: number;
  /** The call's parameters: their sensitive values are collected only if an error needs scrubbing. */
  input: HttpInput;
  /** The body as sent (the body's secrets are read from it, not from objects the caller may have changed). */
  body: Prepared["body"];
  timeoutMs: number;
  /** Clears the timer of the last attempt once its body has been read. */
  endAttempt: () => void;
  /** Set for a journaled call: at most one request. */
  once: SendWatch | undefined;
}

class TimeoutMarker extends Error {}

const noop = () => {};
const EXCERPT = 200;
const ERROR_BODY_LIMIT = 64 * 1024;
const MAX_REDIRECTS = 5;
const REDIRECTS = [301, 302, 303, 307, 308];
let platform: FetchLike | undefined;
/**
 * The default HTTP: node:http(s) in Node (see node-http.ts for why), the runtime's `fetch`
 * elsewhere, looked up at each call (a polyfill installed after the client was made still counts).
 */
const platformFetch = (): FetchLike =>
  (platform ??= (() => {
    const modules = nodeHttpModules();
    return modules ? nodeHttpFetch(modules) : (url: string, init: RequestInit) => globalThis.fetch(url, init);
  })());
/** Decoding without `stream` keeps no state between calls, so one strict decoder serves every answer. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** `Paths` types the escape hatch `raw` by the interface's spec (openapi-typescript's `paths`). */
export class Transport<Paths extends {} = Record<string, never>> {
  readonly raw: Client<Paths>;
  readonly #options: TransportOptions;
  readonly #retry: Required<RetryOptions>;
  readonly #sensitive: ReadonlySet<string>;
  readonly #fetch: FetchLike;
  readonly #maxBytes: number;
  readonly #querySerializer = createQuerySerializer();
  readonly #baseUrl: string;
  /** The client's own headers, with lower-case names: the start of every request's headers. */
  readonly #headers: Record<string, string> = {};

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#retry = { ...retryDefaults, ...options.retry };
    this.#sensitive = new Set(options.sensitiveKeys ?? []);
    this.#fetch = options.fetch ?? platformFetch();
    this.#maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    for (const [k, v] of Object.entries(options.headers ?? {})) put(this.#headers, k.toLowerCase(), v);
    // The escape hatch: openapi-fetch typed by the spec, over our attempts with the client's first scheme.
    const rawOp: OperationSpec = {
      id: "raw",
      method: "post",
      path: "",
      security: Object.keys(options.schemes ?? {}).slice(0, 1),
      idempotent: false,
      movesMoney: false,
      body: true,
      envelope: { params: "" },
      unwrap: { at: [""] },
    };
    this.raw = createClient({
      baseUrl: options.baseUrl,
      headers: options.headers,
      fetch: async (request: Request) => {
        const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
        const headers: Record<string, string> = {};
        request.headers.forEach((v, k) => {
          put(headers, k, v);
        });
        const prepared = { url: request.url, method: request.method, headers, body };
        const state = this.#state(rawOp, {}, prepared, undefined, [], undefined);
        const response = await this.#attempts(prepared, state, request.signal);
        state.endAttempt();
        return response;
      },
    });
  }

  /** The scheme names an operation table needs that this transport does not have. */
  missingSchemes(operations: Iterable<OperationSpec>): string[] {
    const missing = new Set<string>();
    for (const op of operations) {
      if (op.security.length > 0 && !op.security.some((s) => this.#options.schemes?.[s])) missing.add(`${op.security.join(" or ")} (${op.id})`);
    }
    return [...missing];
  }

  #state(op: OperationSpec, input: HttpInput, prepared: Prepared, timeoutMs: number | undefined, extra: AttemptStep[], once: SendWatch | undefined): CallState {
    // The first of the operation's schemes the client has (a loop: this runs on every call).
    let scheme: SecurityScheme | undefined;
    for (const name of op.security) {
      scheme = this.#options.schemes?.[name];
      if (scheme) break;
    }
    if (op.security.length > 0 && !scheme)
      throw new ConfigurationError(`${op.id}: needs the security scheme ${op.security.join(" or ")}, which the client was not given`, { operation: op.id });
    return {
      op,
      steps: scheme ? [scheme, ...extra] : extra,
      attempts: 0,
      retries: 0,
      input,
      body: prepared.body,
      timeoutMs: timeoutMs ?? this.#options.timeoutMs ?? 30_000,
      endAttempt: noop,
      once,
    };
  }

  /** Every secret that may be in play for this call: what it sent, what its steps hold, what the client holds. */
  *#secrets(state: CallState): Iterable<string> {
    const { path, query, header } = state.input;
    yield* collectSecrets([path, query, header], this.#sensitive);
    if (typeof state.body === "string") yield* collectSecrets(JSON.parse(state.body), this.#sensitive);
    for (const step of state.steps) if (step.secrets) yield* step.secrets();
    if (this.#options.secrets) yield* this.#options.secrets;
  }

  #prepare(op: OperationSpec, input: HttpInput, options: CallOptions): Prepared {
    // openapi-fetch's serializers, applied to the operation's path only (the base URL is not a template).
    let url = this.#baseUrl + (input.path ? pathOf(op.path, input.path) : op.path);
    const search = input.query ? this.#querySerializer(input.query).replace(/^\?/, "") : "";
    if (search) url += `?${search}`;
    const headers: Record<string, string> = { ...this.#headers };
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
  async send(ready: ReadyRequest, options: CallOptions = {}, extra: SendExtras = {}): Promise<CallResult> {
    const { op, input, prepared } = ready;
    const state = this.#state(op, input, prepared, options.timeoutMs, extra.steps ?? [], extra.once);
    for (;;) {
      let response: Response;
      try {
        response = await this.#attempts(prepared, state, options.signal);
      } catch (e) {
        state.endAttempt();
        throw this.#logged(op, e instanceof PaysysError ? e : new ConnectionError(`${op.id}: ${this.#scrubbed(e, state)}`, { operation: op.id, attempts: state.attempts }));
      }
      const ctx: ErrorContext = { operation: op.id, status: response.status, attempts: state.attempts };
      if (response.ok && extra.wantsFile && !/json/i.test(contentTypeOf(response))) {
        // The attempt timer stops at the headers for files, so a large download is not cut off;
        // the caller's signal still applies to the body.
        state.endAttempt();
        return { kind: "file", file: new BinaryFile(response), ...this.#facts(response, state, () => "[a file]") };
      }
      let bytes: Uint8Array;
      try {
        bytes = await this.#read(response, response.ok ? this.#maxBytes : ERROR_BODY_LIMIT, response.ok, op, ctx);
      } catch (e) {
        state.endAttempt();
        const failure = this.#readFailure(e, op, ctx, options.signal);
        // An answer cut off or too slow is retried like one that never started, for idempotent
        // operations only and within the same budget; a money operation's outcome stays unknown.
        if ((failure instanceof ConnectionError || failure instanceof TimeoutError) && this.#canRetry(state)) {
          await this.#retryWait(state, failure.message, options.signal);
          continue;
        }
        throw this.#logged(op, failure);
      }
      state.endAttempt();
      return this.#answer(op, response, bytes, ctx, state);
    }
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
    if (e instanceof TimeoutMarker) return new TimeoutError(`${op.id}: timed out reading the answer${outcomeNote(op)}`, { ...ctx, outcomeUnknown: !op.idempotent });
    return new ConnectionError(`${op.id}: the answer was cut off${outcomeNote(op)}`, { ...ctx, outcomeUnknown: !op.idempotent });
  }

  /** Turns a whole body into the call's result: typed errors for HTTP errors, bad UTF-8, bad JSON, or an answer the spec does not allow. */
  #answer(op: OperationSpec, response: Response, bytes: Uint8Array, ctx: ErrorContext, state: CallState): CallResult {
    // Decoded leniently only when an error needs an excerpt; a good answer is decoded once, strictly.
    const lenient = () => new TextDecoder().decode(bytes);
    const excerpt = () => this.#excerpt(lenient(), bytes, contentTypeOf(response), state);
    if (!response.ok) throw this.#logged(op, this.#httpError(op, response, lenient(), excerpt, state));
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      throw this.#logged(op, new UnexpectedResponseError(`${op.id}: the answer is not valid UTF-8${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() }));
    }
    if (op.textAnswer) return { kind: "json", body: text, ...this.#facts(response, state, excerpt) };
    let body: unknown;
    try {
      body = text.trim() === "" ? undefined : JSON.parse(text);
    } catch {
      throw this.#logged(
        op,
        new UnexpectedResponseError(`${op.id}: the answer is not JSON (content-type ${contentTypeOf(response) || "none"})${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() }),
      );
    }
    if (op.validateResponse && this.#options.validateResponses && !op.validateResponse(body)) {
      const issues = validatorIssues(op.validateResponse)
        .slice(0, 3)
        .map((i) => `${i.path || "(root)"} ${i.message}`)
        .join("; ");
      throw this.#logged(op, new UnexpectedResponseError(`${op.id}: the answer does not match the spec: ${issues}${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() }));
    }
    return { kind: "json", body, ...this.#facts(response, state, excerpt) };
  }

  #facts(response: Response, state: CallState, excerpt: () => string): CallFacts {
    return { status: response.status, headers: response.headers, attempts: state.attempts, excerpt, scrub: (text) => scrub(text, this.#secrets(state)) };
  }

  /** Reads a body up to `limit` bytes. Past the limit, the rest is dropped and, for answers that must be whole, it is an error. */
  async #read(response: Response, limit: number, mustBeWhole: boolean, op: OperationSpec, ctx: ErrorContext): Promise<Uint8Array> {
    const tooLarge = () =>
      new ResponseTooLargeError(`${op.id}: the answer is larger than maxResponseBytes (${limit} bytes); it was not read${outcomeNote(op)}`, { ...ctx, bodyExcerpt: "[not read]" });
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (mustBeWhole && declared > limit) {
      discard(response);
      throw tooLarge();
    }
    // Read chunk by chunk, also with a declared length: arrayBuffer() costs more per call over the
    // network. Stopping early (`break`) cancels the body either way.
    const source = nodeChunks(response) ?? (response.body && readerChunks(response.body));
    if (!source) return new Uint8Array();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const value of source) {
      size += value.byteLength;
      if (size > limit) {
        if (mustBeWhole) throw tooLarge();
        chunks.push(value.subarray(0, value.byteLength - (size - limit)));
        break;
      }
      chunks.push(value);
    }
    if (chunks.length === 1) return chunks[0]!;
    const out = new Uint8Array(Math.min(size, limit));
    let offset = 0;
    for (const c of chunks) {
      out.set(c, offset);
      offset += c.byteLength;
    }
    return out;
  }

  /** The typed error for an HTTP error status, with the service's code and message where the envelope says they are. */
  #httpError(op: OperationSpec, response: Response, text: string, excerpt: () => string, state: CallState): PaysysError {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const { code, message } = serviceFields(op.envelope, parsed);
    const serviceMessage = message === undefined ? undefined : scrub(message, this.#secrets(state));
    const shown = serviceMessage !== undefined ? `: ${serviceMessage}` : text.trim() ? `; body begins: ${JSON.stringify(excerpt())}` : "";
    const notRetried = !op.idempotent && isRetryableStatus(response.status) ? (op.movesMoney ? outcomeNote(op) : " (not retried: the operation is not idempotent)") : "";
    const ErrorClass = apiErrorClass(response.status);
    return new ErrorClass(`${op.id}: HTTP ${response.status}${shown}${notRetried}`, {
      operation: op.id,
      status: response.status,
      attempts: state.attempts,
      serviceCode: code,
      serviceMessage,
    });
  }

  /** Runs the attempts of one request: steps, per-attempt timeout, retries, one re-send per step after a repaired refusal. */
  async #attempts(prepared: Prepared, state: CallState, caller: AbortSignal | undefined): Promise<Response> {
    const { op } = state;
    const { hooks, logger } = this.#options;
    let resent: Set<AttemptStep> | undefined;
    let redirects = 0;
    let url = prepared.url;
    for (;;) {
      if (caller?.aborted) throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts: state.attempts, cause: caller.reason });
      state.attempts++;
      const attempt = state.attempts;
      // A plain record, not a Headers object: fetch validates it all the same, and a Headers per
      // attempt is measurable in the client's overhead. Names go in with `put`, so none is special.
      const headers: Record<string, string> = { ...prepared.headers };
      const sink = {
        set: (name: string, value: string) => put(headers, name.toLowerCase(), value),
      };
      const presented: unknown[] = [];
      for (const step of state.steps) {
        const shown = step.present(sink);
        presented.push(shown instanceof Promise ? await shown : shown);
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new TimeoutMarker()), state.timeoutMs);
      const onCallerAbort = () => controller.abort(caller?.reason);
      caller?.addEventListener("abort", onCallerAbort, { once: true });
      state.endAttempt = () => {
        clearTimeout(timer);
        caller?.removeEventListener("abort", onCallerAbort);
      };
      let request: Request | undefined;
      let init: RequestInit = { method: prepared.method, headers, body: prepared.body, signal: controller.signal, redirect: "manual" };
      if (hooks?.beforeRequest || hooks?.afterResponse) {
        request = new Request(url, init);
        const replaced = await hooks.beforeRequest?.({ operation: op.id, attempt, request: request.clone() });
        if (replaced) {
          request = replaced;
          url = replaced.url;
          init = {
            method: replaced.method,
            headers: replaced.headers,
            body: replaced.body ? new Uint8Array(await replaced.clone().arrayBuffer()) : undefined,
            signal: controller.signal,
            redirect: "manual",
          };
        }
      }
      // An optional call evaluates its argument only when there is a logger: no event (and no
      // redaction) is built for a client that does not log.
      logger?.({
        type: "request",
        operation: op.id,
        method: init.method ?? "GET",
        url,
        attempt,
        headers: redactHeaders(
          new Headers(init.headers),
          state.steps.flatMap((s) => s.headerNames),
        ),
        body: prepared.body && this.#redactBody(prepared.body),
      });
      const started = logger ? performance.now() : 0;
      if (state.once) {
        try {
          state.once.beforeSend();
        } catch (e) {
          state.endAttempt();
          throw e;
        }
        state.once.sent = true;
      }
      let response: Response;
      try {
        response = await this.#fetch(url, init);
      } catch (e) {
        state.endAttempt();
        // The request may have left before the signal fired: for an operation that is not idempotent, its outcome is unknown.
        if (caller?.aborted)
          throw new RequestAbortedError(`${op.id}: aborted by the caller while the request was under way${outcomeNote(op)}`, {
            operation: op.id,
            attempts: attempt,
            cause: caller.reason,
            outcomeUnknown: !op.idempotent,
          });
        const timedOut = controller.signal.reason instanceof TimeoutMarker;
        const what = timedOut ? `timed out after ${state.timeoutMs} ms` : `connection failed: ${this.#scrubbed(e, state)}`;
        if (this.#canRetry(state)) {
          await this.#retryWait(state, what, caller);
          continue;
        }
        const ErrorClass = timedOut ? TimeoutError : ConnectionError;
        throw new ErrorClass(`${op.id}: ${what}${outcomeNote(op)}`, {
          operation: op.id,
          attempts: attempt,
          outcomeUnknown: !op.idempotent,
          cause: timedOut ? undefined : e,
        });
      }
      // An answer the transport stops at (a redirect it refuses, a failing hook or step) has its
      // body dropped: left unread, it would hold its connection, and the process with it.
      try {
        logger?.({ type: "response", operation: op.id, status: response.status, attempt, durationMs: Math.round(performance.now() - started) });
        if (request) await hooks?.afterResponse?.({ operation: op.id, attempt, request, response });
        const redirect = this.#redirectTarget(op, response, url, init.method ?? "GET", state);
        if (redirect) {
          state.endAttempt();
          discard(response);
          if (++redirects > MAX_REDIRECTS)
            throw new RedirectError(`${op.id}: more than ${MAX_REDIRECTS} redirects; the last to ${this.#scrubbed(redirect, state)}`, {
              operation: op.id,
              status: response.status,
              attempts: attempt,
              location: redirect,
            });
          url = redirect;
          continue;
        }
        // Every step reads every answer (the chain takes its next link from it); a step may ask for
        // one re-send per call.
        let again = false;
        for (let i = 0; i < state.steps.length; i++) {
          const step = state.steps[i]!;
          if (!step.answered) continue;
          // Awaited only when it is a promise: an await costs a turn of the microtask queue even for a plain value.
          let asks = step.answered(response, presented[i]);
          if (asks instanceof Promise) asks = await asks;
          if (asks && !resent?.has(step) && !again) {
            resent ??= new Set();
            resent.add(step);
            again = true;
          }
        }
        if (again && state.once) {
          // A journaled call is sent once: whoever sent it decides, knowing whether the first took effect.
          state.once.repaired = true;
        } else if (again) {
          state.endAttempt();
          discard(response);
          continue;
        }
        if (isRetryableStatus(response.status) && this.#canRetry(state)) {
          const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
          if (retryAfter === undefined || retryAfter <= this.#retry.retryAfterCapMs) {
            state.endAttempt();
            discard(response);
            await this.#retryWait(state, `HTTP ${response.status}`, caller, retryAfter);
            continue;
          }
        }
        return response;
      } catch (e) {
        discard(response);
        throw e;
      }
    }
  }

  /**
   * Where a redirect may be followed: on the same origin only, and only when the method survives it
   * (307/308, or any redirect of a GET). Credentials never follow to another origin.
   */
  #redirectTarget(op: OperationSpec, response: Response, url: string, method: string, state: CallState): string | undefined {
    // A 2xx is neither a redirect nor an opaque one (whose status is 0): the common answer reads no more.
    if (response.status >= 200 && response.status < 300) return undefined;
    const opaque = response.type === "opaqueredirect";
    if (!opaque && !REDIRECTS.includes(response.status)) return undefined;
    const ctx = { operation: op.id, status: response.status, attempts: state.attempts };
    if (opaque) throw new RedirectError(`${op.id}: the service redirected the request (the browser hides where); not followed`, ctx);
    const location = response.headers.get("location");
    if (!location) return undefined;
    const shown = this.#scrubbed(location.slice(0, 200), state);
    const refuse = (why: string) =>
      new RedirectError(`${op.id}: the service answered ${response.status} with Location ${JSON.stringify(shown)}; ${why}`, { ...ctx, location: shown });
    if (state.once || op.movesMoney) throw refuse("not followed: a request that moves money or changes a register is sent once, never again elsewhere");
    let target: URL;
    try {
      target = new URL(location, url);
    } catch {
      throw refuse("an unreadable address; not followed");
    }
    if (target.origin !== new URL(url).origin) throw refuse(`another origin (${target.origin}); not followed, so no credential leaves ${new URL(url).origin}`);
    if (response.status !== 307 && response.status !== 308 && method !== "GET") throw refuse(`it would turn the ${method} into a GET; not followed`);
    return target.href;
  }

  /** Whether a call may be sent again: idempotent operations only, within the call's one retry budget. */
  #canRetry(state: CallState): boolean {
    return state.op.idempotent && state.retries < this.#retry.maxRetries;
  }

  /** Spends one retry of the call's budget: waits `delayMs` (the backoff of this retry by default), unless the caller aborts. */
  async #retryWait(state: CallState, reason: string, caller: AbortSignal | undefined, delayMs = backoffDelay(state.retries + 1, this.#retry)): Promise<void> {
    const { op, attempts } = state;
    state.retries++;
    this.#options.logger?.({ type: "retry", operation: op.id, attempt: attempts, delayMs, reason });
    try {
      await sleep(delayMs, caller);
    } catch (e) {
      throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts, cause: e });
    }
  }

  #redactBody(body: Uint8Array | string): unknown {
    try {
      return redactValue(JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)), this.#sensitive);
    } catch {
      return `[${typeof body === "string" ? body.length : body.byteLength} bytes]`;
    }
  }

  /** A short excerpt of a body for an error: text with secrets cut out, or a description of binary content. */
  #excerpt(text: string, bytes: Uint8Array, contentType: string, state: CallState): string {
    if (state.op.secretAnswer) return "[REDACTED: this answer carries secrets]";
    if (looksBinary(text)) return `[binary content, ${bytes.byteLength} bytes, content-type ${contentType || "none"}]`;
    // Scrub a window wide enough that no secret can straddle the end of the excerpt.
    const secrets = [...this.#secrets(state)];
    const window = EXCERPT + 10 * Math.max(0, ...secrets.map((s) => s.length));
    return scrub(text.slice(0, window), secrets).slice(0, EXCERPT);
  }

  #scrubbed(e: unknown, state: CallState): string {
    return scrub(e instanceof Error ? e.message : String(e), this.#secrets(state));
  }

  #logged<E extends PaysysError>(op: OperationSpec, error: E): E {
    this.#options.logger?.({ type: "error", operation: op.id, error: { name: error.name, message: error.message } });
    return error;
  }
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

/** Replacement characters or control characters (other than tabs and line breaks) near the start mean binary content: describe it, never print it. */
function looksBinary(text: string): boolean {
  for (let i = 0; i < Math.min(text.length, 512); i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || c < 0x09 || (c > 0x0d && c < 0x20)) return true;
  }
  return false;
}

/**
 * Each path template split once at its placeholders (`/kkms/{idKkm}/sales` → ["/kkms/", "idKkm",
 * "/sales"]); `simple` when every placeholder is a plain name (no `.`, `;` or `*` style).
 */
const templates = new Map<string, { parts: string[]; simple: boolean }>();

/**
 * A path with its parameters in place. Plain `{name}` placeholders with a string or number take the
 * value URI-encoded, as openapi-fetch's serializer does, without running a regular expression on
 * every call; any other style or value goes through openapi-fetch's serializer itself.
 */
export function pathOf(template: string, params: Record<string, unknown>): string {
  let t = templates.get(template);
  if (!t) {
    const parts = template.split(/\{([^{}]+)\}/);
    t = { parts, simple: parts.every((p, i) => i % 2 === 0 || /^[\w-]+$/.test(p)) };
    templates.set(template, t);
  }
  const { parts } = t;
  let path = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = params[parts[i]!];
    if (!t.simple || (typeof value !== "string" && typeof value !== "number")) return defaultPathSerializer(template, params);
    path += encodeURIComponent(value) + parts[i + 1];
  }
  return path;
}

/** Read only where needed: a JSON answer that is fine never asks. */
const contentTypeOf = (response: Response) => response.headers.get("content-type") ?? "";

/** A web body's chunks; stopping early cancels the stream (a reader loop, as not every browser iterates streams). */
async function* readerChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) reader.cancel().catch(() => {});
  }
}

/** Drops an answer's body without waiting: cancelling a teed stream settles only when both branches do. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}
