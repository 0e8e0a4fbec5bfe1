// What every client method and every client shares with its callers: per-call options, the
// logger's events, the hooks and the options every client takes. Public: the client packages
// re-export these types.
import type { RetryOptions } from "./internal/retry.js";
import type { Store } from "./stores.js";

/** Per-call options every SDK method accepts as its last argument. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout for this call. */
  timeoutMs?: number;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/**
 * Per-call option of an operation that moves money or changes a register: the SDK journals it, and
 * never sends one key twice.
 */
export interface IdempotencyOptions {
  /**
   * Your own id of this request (the order's or the receipt's): 1 to 200 printable ASCII characters.
   * A key already journaled is never sent again: the call answers what the first one got (its
   * answer, its refusal, an AnswerLostError, or, while it is unknown, an OutcomeUnknownError), and
   * the same key with other parameters is refused. Without one, the SDK journals the call under a
   * key of its own (in the errors it throws). Keys are kept for the store's retention (2 days by default).
   */
  idempotencyKey?: string;
}

/**
 * Per-call options of an operation whose parameter list the source document calls open: a
 * parameter the spec does not know goes here, by name, never silently beside the known ones.
 */
export interface OpenParamsOptions extends CallOptions {
  /** Parameters the spec does not name, sent as given. Known names are refused here: pass them as parameters. */
  extraParams?: Record<string, unknown>;
}

/**
 * The Standard Schema interface, v1 (https://standardschema.dev): what zod, valibot, arktype and
 * others implement. Copied here, as its authors intend, so the SDK depends on no schema library.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

// A namespace, as the Standard Schema publishes it, so `StandardSchemaV1.InferOutput<S>` reads as in its docs.
export declare namespace StandardSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/**
 * Per-call option of a list operation: a row schema (zod, valibot, arktype, ...). Every row is
 * checked by it before the call resolves, and the rows are typed as its output; a row it refuses
 * is a RowValidationError that names the row and the field.
 */
export interface RowsOption<Rows extends StandardSchemaV1> {
  rows: Rows;
}

/** The part of the `fetch` signature the SDK uses. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** What the logger receives. Everything in it is already redacted. */
export type LogEvent =
  | { type: "request"; operation: string; method: string; url: string; attempt: number; headers: Record<string, string>; body?: unknown }
  | { type: "response"; operation: string; status: number; attempt: number; durationMs: number }
  | { type: "retry"; operation: string; attempt: number; delayMs: number; reason: string }
  | { type: "error"; operation: string; error: { name: string; message: string } };

/**
 * Hooks around every attempt (a retried call runs them once per attempt). The request they see
 * carries credentials: a hook must not log it whole.
 */
export interface Hooks {
  /** May return a replacement Request. */
  beforeRequest?(ctx: { operation: string; attempt: number; request: Request }): Request | undefined | Promise<Request | undefined>;
  afterResponse?(ctx: { operation: string; attempt: number; request: Request; response: Response }): unknown;
}

/**
 * Settings every client takes that are plain data. Each client's settings interface extends it
 * (its generated validator checks them too).
 */
export interface ClientSettings {
  /**
   * Per-attempt timeout in ms. Default 30000. At most 2147483647 (the longest timer JavaScript keeps).
   * @minimum 1
   * @maximum 2147483647
   */
  timeoutMs?: number;
  /** Retries of idempotent operations. Operations that move money, sign in or present a chain link are never retried. */
  retry?: RetryOptions;
  /** Check requests against the spec before sending. Default true. */
  validateRequests?: boolean;
  /**
   * Check answers against the spec. Default true: an answer the spec does not allow (a lone object
   * where a list of rows belongs, a row without its fields, a key given twice) is an
   * UnexpectedResponseError, never data. `false` skips the check on reads, for large reports whose
   * CPU matters more; the answers of operations that move money or change a register, and of the
   * reads that tell whether one took effect, are checked regardless: one the spec does not allow
   * (an empty 200, `{}` without the payment's id) is not taken for done, and its outcome is learnt
   * as after a lost answer.
   */
  validateResponses?: boolean;
  /**
   * Largest JSON answer read, in bytes; a larger one is a ResponseTooLargeError. Files are streamed
   * and not limited. Default 33554432 (32 MiB).
   * @minimum 1
   */
  maxResponseBytes?: number;
  /**
   * Lets `baseUrl` be plain `http://` to a host other than this machine's own (loopback: `localhost`,
   * `127.x.x.x`, `[::1]`). Default false: the password, the tokens and card data would cross the
   * network unencrypted, so such an address is a ConfigurationError. Set it only where something
   * else encrypts the way (a TLS sidecar on a private network).
   */
  allowInsecureHttp?: boolean;
  /** Extra headers sent with every request. */
  headers?: { [name: string]: string };
}

/** Options every client takes that are functions or objects. */
export interface ClientFunctions {
  /**
   * The `fetch` for every attempt, called as `fetch(url, init)`. Default: in Node, node:http(s)
   * (faster than Node's own `fetch`); on Bun, Deno, workerd and in browsers, their own `fetch`. Pass
   * `globalThis.fetch` to use Node's own `fetch` (to have a fetch mock see the calls, say). A fetch
   * of your own must pass `init.redirect` (`"manual"`) on: an answer it got by following a redirect
   * itself is refused (`RedirectError`), except a read that stayed on the same origin.
   */
  fetch?: FetchLike;
  /**
   * In Node, an `http.Agent` or `https.Agent` for every request: client certificates
   * (`new https.Agent({ cert, key })`), a proxy agent, socket limits. Without one, `HTTPS_PROXY`,
   * `HTTP_PROXY` and `NO_PROXY` are honoured. On other runtimes, pass a `fetch` instead (undici's
   * `fetch` with a `dispatcher`, say).
   */
  agent?: object;
  /** Receives redacted request, response, retry and error events. What it throws is dropped: a logger never changes a call. */
  logger?: (event: LogEvent) => void;
  hooks?: Hooks;
  /**
   * OpenTelemetry: every call a span `paysys.<interface>.<operation>` and the metrics
   * `paysys.client.calls`, `paysys.client.duration` and `paysys.client.retries`. Default: the global
   * tracer and meter providers of `@opentelemetry/api` when it is installed (an optional peer; it
   * costs nothing when it is not). `false`: none, and the package is not even looked for.
   */
  telemetry?: TelemetryOptions | false;
}

/**
 * Where a client's spans and metrics go (the `telemetry` option). Spans and metrics carry the
 * interface, the operation, the HTTP method, the server's host and port, the path template,
 * attempts, retries, the status, the service's code, the outcome and the error's class: never a
 * query string, a header, a body, an error's message, an idempotency key, an amount or a name.
 */
export interface TelemetryOptions {
  /** Default: the global one of `@opentelemetry/api` (`trace.getTracerProvider()`). */
  tracerProvider?: { getTracer(name: string, version?: string): unknown };
  /** Default: the global one of `@opentelemetry/api` (`metrics.getMeterProvider()`), read at every call, so one registered later is used. */
  meterProvider?: { getMeter(name: string, version?: string): unknown };
  /**
   * The `@opentelemetry/api` module, where the SDK cannot load it itself: an application bundled
   * for the browser (`import * as api from "@opentelemetry/api"`, then `telemetry: { api }`). The
   * SDK loads it by a name bundlers do not follow, so a bundle without it still builds.
   */
  api?: object;
}

/**
 * Settings of a client that journals operations (those that move money or change a register).
 * Plain data: each such client's settings interface extends it.
 */
export interface JournalSettings {
  /**
   * Who this program is, as a holder of register leases and journal intents. Give each program (a
   * till, a worker) its own stable name, the same after a restart: it then takes back its own
   * leases at once instead of waiting for them to lapse. Never give two running programs the same
   * one. Default: unique to the client (host, process and a random part).
   */
  holder?: string;
  /** The register leases (fiscal): how long they last, how long a call waits for one, how long an idle one is kept. */
  lease?: LeaseSettings;
  /**
   * How long after a call that moves money stopped waiting for its answer (a timeout, a cut connection, a gateway's error page) its request is taken to be still able to take effect, in ms. Until then "not done yet" is not taken for "not applied": the call ends in `OutcomeUnknownError`, its key is not sent again and its register is kept. The sources give no bound; use less only for a service known to drop a request its caller left. Default 10000.
   * @minimum 0
   * @maximum 2147483647
   */
  landingMs?: number;
}

/** How register leases are held. */
export interface LeaseSettings {
  /**
   * How long a lease lasts unless renewed, in ms. Default: twice the timeout, at least 60000.
   * @minimum 1000
   */
  ttlMs?: number;
  /**
   * How long a call waits for another live holder to give the register's lease back, in ms. Default 10000.
   * @minimum 0
   */
  waitMs?: number;
  /**
   * How long a lease is kept after the register's last call, in ms, so the calls that follow need not take it again (each carries the outcome of the one before into the store; the last one's is written when the lease is given back, or on `close()`). Default 1000.
   * @minimum 0
   */
  lingerMs?: number;
  /**
   * Read the register's current link (`Uid`) from the service before every call that presents one,
   * instead of presenting the one the last answer carried: one more request per receipt. For a till
   * behind something that may rewrite answers (a caching proxy): an answer carrying a well-formed
   * `Uid` that is not the service's, kept, makes the next receipt's refusal look like a receipt that
   * took effect, so that receipt ends in `OutcomeUnknownError` and the register stops until it is
   * settled. With this on, such a `Uid` is never presented. Default false.
   */
  readLinkFirst?: boolean;
}

/** The object option of a client that journals operations. */
export interface JournalFunctions {
  /**
   * Where the journal (and, per client, register leases and chain links, or the credential's token)
   * is kept. Default: one in-memory store for the whole process, so a key is never sent twice by
   * any client of the process; it is lost when the process ends. `FileStore` (from the client's
   * `/node` entry) keeps it across restarts on one machine; `@paysys/store-redis` and
   * `@paysys/store-postgres` share it across machines.
   */
  store?: Store;
}
