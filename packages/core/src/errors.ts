// Typed errors. Every error carries the operation, the HTTP status, the service's own code and
// message, and the number of attempts, so callers can branch on the class and log the fields
// without ever logging a secret: messages are built from redacted or non-sensitive parts only.

/** What every SDK error carries. */
export interface ErrorContext {
  /** Operation id, e.g. `reports.payments`. */
  operation?: string;
  /** HTTP status of the last attempt, if an answer arrived. */
  status?: number;
  /** The service's own error code (envelope `code`, `Code`, `Status`), if any. */
  serviceCode?: number | string;
  /** The service's own message, if any. */
  serviceMessage?: string;
  /** How many HTTP attempts were made (0 when the request was refused before sending). */
  attempts?: number;
  cause?: unknown;
}

/** The fields every SDK error shows when it is serialised (`JSON.stringify`, loggers): no secret among them. */
export interface ErrorJson {
  name: string;
  message: string;
  operation?: string;
  status?: number;
  serviceCode?: number | string;
  serviceMessage?: string;
  attempts: number;
}

/** Base class of every error thrown by the SDK. */
export class PaysysError extends Error {
  // Names are spelt out: minifiers rename classes, and `error.name` must survive a user's bundler.
  override name: string = "PaysysError";
  readonly operation: string | undefined;
  readonly status: number | undefined;
  readonly serviceCode: number | string | undefined;
  readonly serviceMessage: string | undefined;
  readonly attempts: number;

  constructor(message: string, ctx: ErrorContext = {}) {
    super(message, ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.operation = ctx.operation;
    this.status = ctx.status;
    this.serviceCode = ctx.serviceCode;
    this.serviceMessage = ctx.serviceMessage;
    this.attempts = ctx.attempts ?? 0;
  }

  toJSON(): ErrorJson {
    const { name, message, operation, status, serviceCode, serviceMessage, attempts } = this;
    return { name, message, operation, status, serviceCode, serviceMessage, attempts };
  }
}

/** Client options are wrong (e.g. passed from plain JavaScript). Thrown by the client factory. */
export class ConfigurationError extends PaysysError {
  override name = "ConfigurationError";
}

/** One problem found by a validator: where, and what is wrong. */
export interface ValidationIssue {
  /** JSON pointer into the checked value, e.g. `/params/dateFrom`. */
  path: string;
  message: string;
}

/** The caller's input does not match the spec. Thrown before anything is sent. */
export class RequestValidationError extends PaysysError {
  override name = "RequestValidationError";
  readonly issues: readonly ValidationIssue[];
  constructor(operation: string, issues: readonly ValidationIssue[]) {
    super(`${operation}: invalid request: ${issues.map((i) => `${i.path || "(root)"} ${i.message}`).join("; ")}`, { operation, attempts: 0 });
    this.issues = issues;
  }
}

/**
 * A helper (`tiyn`, `formatPortalDate`, `period.month`, `encryptCard`…) was given a value it cannot
 * take. A RequestValidationError, so one `catch` covers every input the SDK refuses; nothing was sent.
 */
export class InvalidArgumentError extends RequestValidationError {
  override name = "InvalidArgumentError";
  constructor(helper: string, message: string, path = "") {
    super(helper, [{ path, message }]);
    this.message = `${helper}: ${message}`;
  }
}

/** The operation does not exist in this version of the interface (e.g. `user.me` on portal v1). */
export class UnsupportedOperationError extends PaysysError {
  override name = "UnsupportedOperationError";
}

/** The client was closed (`close()`): it does not sign in again on its own. */
export class ClientClosedError extends PaysysError {
  override name = "ClientClosedError";
}

/**
 * An error that may come after the request was sent: for an operation that is not idempotent, it
 * may have taken effect. Its subclasses say how the answer was lost (aborted, cut off, timed out);
 * `outcomeUnknown` says whether checking the operation's status is needed before sending it again.
 */
export abstract class MaybeSentError extends PaysysError {
  /**
   * True when the request may have reached the service and was not sent again, so whether it took
   * effect is unknown (an operation that is not idempotent: check its status before sending it
   * again). False when nothing was sent, or the operation can simply be repeated.
   */
  readonly outcomeUnknown: boolean;
  constructor(message: string, ctx: ErrorContext & { outcomeUnknown?: boolean } = {}) {
    super(message, ctx);
    this.outcomeUnknown = ctx.outcomeUnknown ?? false;
  }
}

/** The caller's `AbortSignal` fired: before anything was sent, or with the request under way (`outcomeUnknown`). */
export class RequestAbortedError extends MaybeSentError {
  override name = "RequestAbortedError";
}

/** No answer: DNS, refused connection, reset. For operations that move money the outcome is unknown. */
export class ConnectionError extends MaybeSentError {
  override name = "ConnectionError";
}

/**
 * An operation that moves money or changes a register may have reached the service, its answer
 * was lost, and the SDK cannot tell whether it took effect: it was not sent again, and its intent
 * stays pending in the journal under `key`. `wasApplied()` asks again (the chain or the status
 * query the spec names), where the interface can be asked; where it cannot (`wasApplied` is
 * undefined), only the service's people can say, and `journal.settle(key, …)` records their answer.
 * Calling the operation again with the same `idempotencyKey` never sends it before that.
 */
export class OutcomeUnknownError extends ConnectionError {
  override name = "OutcomeUnknownError";
  /** The idempotency key the intent is journaled under (the one you passed, or the SDK's own). */
  readonly key: string;
  /** Asks the service whether the operation took effect, and records the answer; undefined where nothing can be asked. */
  readonly wasApplied: (() => Promise<boolean>) | undefined;
  constructor(message: string, ctx: ErrorContext & { key: string; wasApplied?: () => Promise<boolean> }) {
    super(message, { ...ctx, outcomeUnknown: true });
    this.key = ctx.key;
    this.wasApplied = ctx.wasApplied;
  }
}

/**
 * A journaled operation whose answer was lost, and whose outcome the SDK learnt (the chain under
 * the register's lease, or the status query): `applied` says which; `key` is its journal key.
 */
export abstract class LearntOutcomeError extends MaybeSentError {
  /** The idempotency key the outcome is journaled under. */
  readonly key: string;
  abstract readonly applied: boolean;
  constructor(message: string, ctx: ErrorContext & { key: string }) {
    super(message, { ...ctx, outcomeUnknown: false });
    this.key = ctx.key;
  }
}

/**
 * The operation took effect, but its answer was lost, so there is no result to return (no receipt
 * number, no payment address). Calling it again with the same key answers this again: it is never
 * sent twice.
 */
export class AnswerLostError extends LearntOutcomeError {
  override name = "AnswerLostError";
  readonly applied = true;
}

/**
 * The operation did not take effect: sending it again with the same `idempotencyKey` is safe.
 * `cause` says how its answer was lost.
 */
export class NotAppliedError extends LearntOutcomeError {
  override name = "NotAppliedError";
  readonly applied = false;
}

/**
 * Nothing was sent: an earlier operation on the same register (`pending`) has an outcome the
 * SDK could not learn, and nothing new is sent on the register before it is known. Ask again with
 * `wasApplied()`, or record what the service's people say with `journal.settle`.
 */
export class UnresolvedOutcomeError extends PaysysError {
  override name = "UnresolvedOutcomeError";
  /** The earlier operation and its key: pass it to `journal.settle` once its outcome is known. */
  readonly pending: { operation: string; key: string };
  constructor(message: string, ctx: ErrorContext & { pending: { operation: string; key: string } }) {
    super(message, { ...ctx, attempts: 0 });
    this.pending = ctx.pending;
  }
}

/** An idempotency key was refused before anything was sent. */
export class IdempotencyError extends PaysysError {
  override name = "IdempotencyError";
  readonly key: string;
  constructor(message: string, ctx: ErrorContext & { key: string }) {
    super(message, { ...ctx, attempts: 0 });
    this.key = ctx.key;
  }
}

/** The key was used before for another operation or other parameters: a key names one request, so nothing was sent. */
export class IdempotencyKeyReusedError extends IdempotencyError {
  override name = "IdempotencyKeyReusedError";
}

/** A call with this key is under way (in this process, whichever client sent it, or in another live process): nothing was sent; try again when it has ended. */
export class IdempotencyKeyInUseError extends IdempotencyError {
  override name = "IdempotencyKeyInUseError";
}

/**
 * A store (the journal, leases, chain links, tokens) failed: unreachable, too slow, unreadable or
 * locked. Thrown before anything is sent whenever the store was needed first; `store` names it
 * (a file's path, say).
 */
export class StoreError extends PaysysError {
  override name = "StoreError";
  readonly store: string | undefined;
  constructor(message: string, store?: string, ctx: ErrorContext = {}) {
    super(message, ctx);
    this.store = store;
  }
}

/** The store's data cannot be read: a corrupt, unreadable or missing file, a row that is not what the SDK wrote. Never a silent fresh start. */
export class StoreCorruptError extends StoreError {
  override name = "StoreCorruptError";
}

/** The store did not answer, or not in time. */
export class StoreUnavailableError extends StoreError {
  override name = "StoreUnavailableError";
}

/** Another live holder has the lease of a register beyond the wait allowed (`leaseWaitMs`): nothing was sent. */
export class LeaseUnavailableError extends StoreError {
  override name = "LeaseUnavailableError";
}

/** A write under a lease came with a fence that no longer holds (the lease lapsed and another holder took it): nothing was written or sent. */
export class LeaseLostError extends StoreError {
  override name = "LeaseLostError";
}

/** An attempt took longer than the per-attempt timeout. */
export class TimeoutError extends ConnectionError {
  override name = "TimeoutError";
}

/** The service answered with an HTTP error status. */
export class APIError extends PaysysError {
  override name = "APIError";
}
export class BadRequestError extends APIError {
  override name = "BadRequestError";
}
export class AuthenticationError extends APIError {
  override name = "AuthenticationError";
}
export class PermissionDeniedError extends APIError {
  override name = "PermissionDeniedError";
}
export class NotFoundError extends APIError {
  override name = "NotFoundError";
}
export class ConflictError extends APIError {
  override name = "ConflictError";
}
export class UnprocessableEntityError extends APIError {
  override name = "UnprocessableEntityError";
}
export class RateLimitError extends APIError {
  override name = "RateLimitError";
}
export class InternalServerError extends APIError {
  override name = "InternalServerError";
}

/** HTTP 200, but the envelope reports a failure (portal `code` ≠ 0, fiscal `Status` ≠ 200). */
export class ServiceError extends PaysysError {
  override name = "ServiceError";
}

/** The answer is not what the spec says: HTML instead of JSON, truncated JSON, wrong envelope. */
export class UnexpectedResponseError extends PaysysError {
  override name = "UnexpectedResponseError";
  /** The first characters of the body, with known secrets removed (binary bodies are described, not shown). */
  readonly bodyExcerpt: string;
  constructor(message: string, ctx: ErrorContext & { bodyExcerpt: string }) {
    super(`${message}; body begins: ${JSON.stringify(ctx.bodyExcerpt)}`, ctx);
    this.bodyExcerpt = ctx.bodyExcerpt;
  }
}

/**
 * A row of a list answer does not match the row schema the caller passed (`options.rows`). Each
 * issue's path starts with the row's index (`/3/amount`); no row was returned.
 */
export class RowValidationError extends UnexpectedResponseError {
  override name = "RowValidationError";
  readonly issues: readonly ValidationIssue[];
  constructor(operation: string, issues: readonly ValidationIssue[], ctx: ErrorContext & { bodyExcerpt: string; rows: number }) {
    const shown = issues.slice(0, 5).map((i) => `${i.path} ${i.message}`);
    const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : "";
    super(`${operation}: ${issues.length} problem(s) in the ${ctx.rows} rows, by the row schema you passed: ${shown.join("; ")}${more}`, { ...ctx, operation });
    this.issues = issues;
  }
}

/**
 * The service answered with a redirect the SDK does not follow: a request that moves money is never
 * sent twice, credentials never leave their origin, and a POST is never turned into a GET.
 */
export class RedirectError extends UnexpectedResponseError {
  override name = "RedirectError";
  /** Where the redirect pointed (as the service wrote it), if it said. */
  readonly location: string | undefined;
  constructor(message: string, ctx: ErrorContext & { location?: string }) {
    super(message, { ...ctx, bodyExcerpt: "" });
    this.location = ctx.location;
  }
}

/** The answer is larger than the client's `maxResponseBytes`; it was not read further. */
export class ResponseTooLargeError extends UnexpectedResponseError {
  override name = "ResponseTooLargeError";
}

/** An inbound message (a callback the service sent) is not what the spec says. Nothing in it is trusted. */
export class WebhookError extends PaysysError {
  override name = "WebhookError";
  readonly issues: readonly ValidationIssue[];
  constructor(message: string, issues: readonly ValidationIssue[] = [], ctx: ErrorContext = {}) {
    super(issues.length ? `${message}: ${issues.map((i) => `${i.path || "(root)"} ${i.message}`).join("; ")}` : message, ctx);
    this.issues = issues;
  }
}
