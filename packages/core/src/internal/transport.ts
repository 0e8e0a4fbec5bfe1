// The transport: openapi-fetch builds each request (URL, query, headers, JSON body, middleware),
// and our own `fetch` underneath it runs the attempts. openapi-fetch deliberately has no retries,
// timeouts, token refresh or error classes; they live here, below its middleware, so a retry
// re-sends the same bytes (a Request body can be read only once, so it is rebuilt per attempt).

import type { Client, ClientOptions, Middleware } from "openapi-fetch";
import * as openapiFetch from "openapi-fetch";
import { apiErrorClass, ConnectionError, PaysysError, RequestAbortedError, RequestValidationError, TimeoutError, UnexpectedResponseError } from "./errors.js";
import { BinaryFile } from "./file.js";
import { type OperationSpec, validatorIssues } from "./operation.js";
import { collectSecrets, redactHeaders, redactValue, scrub } from "./redact.js";
import { backoffDelay, isRetryableStatus, parseRetryAfter, type RetryOptions, retryDefaults, sleep } from "./retry.js";
import type { TokenManager } from "./tokens.js";

/**
 * openapi-fetch's CommonJS build sets `exports.default` without the `__esModule` marker, so in
 * our CJS output the default import is the module object, not the function (found by
 * `pnpm release:check`). Take the function from wherever this module format put it.
 */
const createClient: <Paths extends {}>(options?: ClientOptions) => Client<Paths> = (() => {
  const d = (openapiFetch as unknown as { default: unknown }).default;
  return (typeof d === "function" ? d : (d as { default: unknown }).default) as never;
})();

/** The part of the `fetch` signature the transport uses. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * A stand-in for `Request` that openapi-fetch builds when no user hook needs a real one. An
 * undici Request allocates a body stream and an AbortSignal; the attempts below need only the
 * URL, method, headers and body, and make one real request each through `fetch(url, init)`.
 * (openapi-fetch documents its `Request` option for exactly this kind of replacement.)
 */
class PlainRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly redirect: RequestRedirect;
  readonly signal: AbortSignal | undefined;
  readonly bodyInit: BodyInit | null | undefined;
  constructor(url: string, init: RequestInit) {
    this.url = url;
    this.method = init.method ?? "GET";
    this.headers = init.headers instanceof Headers ? init.headers : new Headers(init.headers);
    this.redirect = init.redirect ?? "follow";
    this.signal = init.signal ?? undefined;
    this.bodyInit = init.body;
  }
}

/** What the logger hook receives. Everything in it is already redacted. */
export type LogEvent =
  | { type: "request"; operation: string; method: string; url: string; attempt: number; headers: Record<string, string>; body?: unknown }
  | { type: "response"; operation: string; status: number; attempt: number; durationMs: number }
  | { type: "retry"; operation: string; attempt: number; delayMs: number; reason: string }
  | { type: "error"; operation: string; error: { name: string; message: string } };

/** User hooks around each call (run once per call, before the attempts and after the last one). */
export interface Hooks {
  /** May return a replacement Request. */
  beforeRequest?(ctx: { operation: string; request: Request }): Request | undefined | Promise<Request | undefined>;
  afterResponse?(ctx: { operation: string; request: Request; response: Response }): unknown;
}

export interface TransportAuth {
  tokens: TokenManager;
  /** Headers that present a token. */
  authorize: (token: string) => Record<string, string>;
}

export interface TransportOptions {
  baseUrl: string;
  /** The `fetch` used for every attempt, called as `fetch(url, init)`. Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** Per-attempt timeout in ms (until the answer's headers, and for JSON until its body is read). Default 30000. */
  timeoutMs?: number;
  retry?: RetryOptions;
  /** Check every request against the spec before sending. Default true. */
  validateRequests?: boolean;
  /** Check every answer against the spec. Default false (costs CPU on large reports). */
  validateResponses?: boolean;
  logger?: (event: LogEvent) => void;
  hooks?: Hooks;
  headers?: Record<string, string>;
  auth?: TransportAuth;
  /** Property names whose values are secrets (from the spec's x-sensitive). */
  sensitiveKeys?: Iterable<string>;
}

/** Per-call options every SDK method accepts as its last argument. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** The HTTP parts of one call, as openapi-fetch takes them. */
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
  /** Removes every secret known to this call from a text (for messages built from the answer). */
  scrub: (text: string) => string;
}

export type CallResult = ({ kind: "json"; body: unknown; excerpt: () => string } | { kind: "file"; file: BinaryFile }) & CallFacts;

/** The state one call shares with its attempts. */
interface CallState {
  op: OperationSpec;
  attempts: number;
  secrets: Set<string>;
  timeoutMs: number;
  /** Clears the timer of the last attempt once its body has been read. */
  endAttempt: () => void;
}

class TimeoutMarker extends Error {}

const EXCERPT = 200;

export class Transport {
  readonly raw: Client<Record<string, never>>;
  readonly #options: TransportOptions;
  readonly #retry: Required<RetryOptions>;
  readonly #sensitive: ReadonlySet<string>;
  readonly #fetch: FetchLike;
  /** No user hook sees the Request, so openapi-fetch may build a PlainRequest. */
  readonly #plain: boolean;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#retry = { ...retryDefaults, ...options.retry };
    this.#sensitive = new Set(options.sensitiveKeys ?? []);
    // Bound late so tests and users can swap globalThis.fetch after creating a client.
    this.#fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
    // The escape hatch: a plain openapi-fetch client over the same attempts (auth, timeout) but
    // no retries, since the transport cannot know whether an arbitrary request is idempotent.
    const rawOp: OperationSpec = { id: "raw", method: "post", path: "", auth: options.auth !== undefined, idempotent: false, movesMoney: false, unwrap: "none", codecs: {} };
    this.raw = createClient({ baseUrl: options.baseUrl, headers: options.headers, fetch: (r) => this.#attempts(r, this.#state(rawOp, {}, undefined)) });
    this.#plain = !options.hooks?.beforeRequest && !options.hooks?.afterResponse;
  }

  #state(op: OperationSpec, input: HttpInput, timeoutMs: number | undefined): CallState {
    const secrets = collectSecrets(input, this.#sensitive);
    const token = this.#options.auth?.tokens.tokens;
    if (token?.accessToken) secrets.add(token.accessToken);
    if (token?.refreshToken) secrets.add(token.refreshToken);
    return { op, attempts: 0, secrets, timeoutMs: timeoutMs ?? this.#options.timeoutMs ?? 30_000, endAttempt: () => {} };
  }

  /**
   * Validates and sends one operation and reads its answer: JSON (parsed, optionally validated)
   * or a file. HTTP errors, timeouts and bodies that are not what the spec says become typed errors.
   */
  async call(op: OperationSpec, input: HttpInput, options: CallOptions = {}, wantsFile = false): Promise<CallResult> {
    if (op.validateRequest && this.#options.validateRequests !== false && input.body !== undefined && !op.validateRequest(input.body)) {
      throw new RequestValidationError(op.id, validatorIssues(op.validateRequest));
    }
    const state = this.#state(op, input, options.timeoutMs);
    let response: Response;
    let errorBody: unknown;
    try {
      const result = await this.raw.request(
        op.method,
        op.path as never,
        {
          body: input.body,
          params: { query: input.query, path: input.path, header: input.header },
          headers: options.headers,
          signal: options.signal,
          parseAs: "stream",
          fetch: (r: Request) => this.#attempts(r, state),
          middleware: this.#hookMiddleware(op.id),
          ...(this.#plain ? { Request: PlainRequest } : {}),
        } as never,
      );
      // openapi-fetch reads an error answer's body itself and hands it over parsed (or as text).
      ({ response, error: errorBody } = result as { response: Response; error?: unknown });
    } catch (e) {
      state.endAttempt();
      throw this.#logged(op, e instanceof PaysysError ? e : new ConnectionError(`${op.id}: ${this.#scrubbed(e, state)}`, { operation: op.id, attempts: state.attempts, cause: e }));
    }
    const ctx = { operation: op.id, status: response.status, attempts: state.attempts };
    const contentType = response.headers.get("content-type") ?? "";
    if (response.ok && wantsFile && !/json/i.test(contentType)) {
      // The attempt timer stops at the headers for files, so a large download is not cut off;
      // the caller's signal still applies to the body.
      state.endAttempt();
      return { kind: "file", file: new BinaryFile(response), ...this.#facts(response, state) };
    }
    if (!response.ok) {
      state.endAttempt();
      throw this.#logged(op, this.#httpError(op, response, errorBody, state));
    }
    let text: string;
    try {
      text = await response.text();
    } catch (e) {
      const error = options.signal?.aborted
        ? new RequestAbortedError(`${op.id}: aborted by the caller while the answer arrived`, { ...ctx, cause: options.signal.reason })
        : e instanceof TimeoutMarker
          ? new TimeoutError(`${op.id}: timed out reading the answer`, ctx)
          : new ConnectionError(`${op.id}: the answer was cut off`, { ...ctx, cause: e });
      throw this.#logged(op, error);
    } finally {
      state.endAttempt();
    }
    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      throw this.#logged(
        op,
        new UnexpectedResponseError(`${op.id}: the answer is not JSON (content-type ${contentType || "none"})`, { ...ctx, bodyExcerpt: this.#excerpt(text, state) }),
      );
    }
    if (op.validateResponse && this.#options.validateResponses && !op.validateResponse(body)) {
      const issues = validatorIssues(op.validateResponse)
        .slice(0, 3)
        .map((i) => `${i.path || "(root)"} ${i.message}`)
        .join("; ");
      throw this.#logged(op, new UnexpectedResponseError(`${op.id}: the answer does not match the spec: ${issues}`, { ...ctx, bodyExcerpt: this.#excerpt(text, state) }));
    }
    return { kind: "json", body, excerpt: () => this.#excerpt(text, state), ...this.#facts(response, state) };
  }

  #facts(response: Response, state: CallState): CallFacts {
    return { status: response.status, headers: response.headers, attempts: state.attempts, scrub: (text) => scrub(text, state.secrets) };
  }

  /** The typed error for an HTTP error status, with the service's code and message when the body has them. */
  #httpError(op: OperationSpec, response: Response, errorBody: unknown, state: CallState): PaysysError {
    const { code, message } = serviceFields(errorBody);
    const serviceMessage = message === undefined ? undefined : scrub(message, state.secrets);
    const shown =
      serviceMessage !== undefined ? `: ${serviceMessage}` : typeof errorBody === "string" && errorBody ? `; body begins: ${JSON.stringify(this.#excerpt(errorBody, state))}` : "";
    const notRetried = !op.idempotent && isRetryableStatus(response.status) ? " (not retried: the operation is not idempotent)" : "";
    const ErrorClass = apiErrorClass(response.status);
    return new ErrorClass(`${op.id}: HTTP ${response.status}${shown}${notRetried}`, {
      operation: op.id,
      status: response.status,
      attempts: state.attempts,
      serviceCode: code,
      serviceMessage,
    });
  }

  /** Runs the attempts of one request: auth header, per-attempt timeout, retries, one re-try after a 401. */
  async #attempts(request: Request | PlainRequest, state: CallState): Promise<Response> {
    const { op } = state;
    // A real Request always has a signal; a PlainRequest has one only if the caller gave one.
    const caller: AbortSignal | undefined = request.signal ?? undefined;
    // Read the body once; every attempt re-sends the same bytes (a stream could be read only once).
    const body = request instanceof PlainRequest ? ((request.bodyInit ?? undefined) as string | undefined) : request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const auth = op.auth ? this.#options.auth : undefined;
    let retries = 0;
    let renewedAfter401 = false;
    for (;;) {
      state.attempts++;
      const attempt = state.attempts;
      const headers = request instanceof PlainRequest ? request.headers : new Headers(request.headers);
      let token: string | undefined;
      if (auth) {
        token = await auth.tokens.accessToken();
        state.secrets.add(token);
        for (const [k, v] of Object.entries(auth.authorize(token))) headers.set(k, v);
      }
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new TimeoutMarker()), state.timeoutMs);
      const onCallerAbort = () => controller.abort(caller?.reason);
      caller?.addEventListener("abort", onCallerAbort, { once: true });
      state.endAttempt = () => {
        clearTimeout(timer);
        caller?.removeEventListener("abort", onCallerAbort);
      };
      if (caller?.aborted) controller.abort(caller.reason);
      this.#log(() => ({
        type: "request",
        operation: op.id,
        method: request.method,
        url: request.url,
        attempt,
        headers: redactHeaders(headers),
        body: body && this.#redactBody(body),
      }));
      const started = performance.now();
      let response: Response;
      try {
        response = await this.#fetch(request.url, { method: request.method, headers, body, signal: controller.signal, redirect: request.redirect });
      } catch (e) {
        state.endAttempt();
        if (caller?.aborted) throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts: attempt, cause: caller.reason });
        const timedOut = controller.signal.reason instanceof TimeoutMarker;
        const what = timedOut ? `timed out after ${state.timeoutMs} ms` : `connection failed: ${this.#scrubbed(e, state)}`;
        if (op.idempotent && retries < this.#retry.maxRetries) {
          retries++;
          await this.#wait(op, attempt, backoffDelay(retries, this.#retry), what, caller);
          continue;
        }
        const unknownOutcome = op.idempotent ? "" : " (not retried: the operation is not idempotent, so its outcome is unknown; check its status before sending it again)";
        const ErrorClass = timedOut ? TimeoutError : ConnectionError;
        throw new ErrorClass(`${op.id}: ${what}${unknownOutcome}`, { operation: op.id, attempts: attempt, cause: timedOut ? undefined : e });
      }
      this.#log(() => ({ type: "response", operation: op.id, status: response.status, attempt, durationMs: Math.round(performance.now() - started) }));
      if (response.status === 401 && auth && token && !renewedAfter401) {
        // The request was refused before it was processed, so even a money operation may be re-sent once.
        renewedAfter401 = true;
        state.endAttempt();
        discard(response);
        auth.tokens.reject(token);
        continue;
      }
      if (op.idempotent && isRetryableStatus(response.status) && retries < this.#retry.maxRetries) {
        const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
        if (retryAfter === undefined || retryAfter <= this.#retry.retryAfterCapMs) {
          retries++;
          state.endAttempt();
          discard(response);
          await this.#wait(op, attempt, retryAfter ?? backoffDelay(retries, this.#retry), `HTTP ${response.status}`, caller);
          continue;
        }
      }
      return response;
    }
  }

  async #wait(op: OperationSpec, attempt: number, delayMs: number, reason: string, caller: AbortSignal | undefined): Promise<void> {
    this.#log(() => ({ type: "retry", operation: op.id, attempt, delayMs, reason }));
    try {
      await sleep(delayMs, caller);
    } catch (e) {
      throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts: attempt, cause: e });
    }
  }

  #hookMiddleware(operation: string): Middleware[] {
    const hooks = this.#options.hooks;
    if (!hooks?.beforeRequest && !hooks?.afterResponse) return [];
    return [
      {
        async onRequest({ request }) {
          return (await hooks.beforeRequest?.({ operation, request })) ?? undefined;
        },
        async onResponse({ request, response }) {
          await hooks.afterResponse?.({ operation, request, response });
          return undefined;
        },
      },
    ];
  }

  #redactBody(body: Uint8Array | string): unknown {
    try {
      return redactValue(JSON.parse(typeof body === "string" ? body : new TextDecoder().decode(body)), this.#sensitive);
    } catch {
      return `[${typeof body === "string" ? body.length : body.byteLength} bytes]`;
    }
  }

  #excerpt(text: string, state: CallState): string {
    if (state.op.secretAnswer) return "[REDACTED: this answer carries secrets]";
    return scrub(text, state.secrets).slice(0, EXCERPT);
  }

  #scrubbed(e: unknown, state: CallState): string {
    return scrub(e instanceof Error ? e.message : String(e), state.secrets);
  }

  #log(event: () => LogEvent): void {
    // Events are built only when someone listens: redaction costs CPU on every call.
    if (this.#options.logger) this.#options.logger(event());
  }

  #logged<E extends PaysysError>(op: OperationSpec, error: E): E {
    this.#log(() => ({ type: "error", operation: op.id, error: { name: error.name, message: error.message } }));
    return error;
  }
}

/** Drops an answer's body without waiting: cancelling a teed stream settles only when both branches do. */
function discard(response: Response): void {
  response.body?.cancel().catch(() => {});
}

/** The service's own code and message in an error body, whatever the interface calls them. */
function serviceFields(body: unknown): { code?: number | string; message?: string } {
  if (body === null || typeof body !== "object") return {};
  const b = body as Record<string, unknown>;
  const code = b.code ?? b.Code ?? b.Status;
  const message = b.message ?? b.Message ?? b.error;
  return {
    code: typeof code === "number" || typeof code === "string" ? code : undefined,
    message: typeof message === "string" ? message : undefined,
  };
}
