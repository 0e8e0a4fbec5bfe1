// When and how long to wait before another attempt. Pure functions, so the policy is tested
// without timers.

// Checked when the client is made (the settings' generated validator): a negative delay waited
// nothing and a billion retries were taken at their word, a storm of requests against a failing service.
export interface RetryOptions {
  /**
   * Further attempts after the first, for idempotent operations only. Default 2. At most 10.
   * @TJS-type integer
   * @minimum 0
   * @maximum 10
   */
  maxRetries?: number;
  /**
   * First backoff step in ms. Default 300.
   * @minimum 0
   * @maximum 2147483647
   */
  baseDelayMs?: number;
  /**
   * Largest backoff step in ms. Default 8000.
   * @minimum 0
   * @maximum 2147483647
   */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client will wait; a longer one ends the retries. Default 30000.
   * @minimum 0
   * @maximum 2147483647
   */
  retryAfterCapMs?: number;
}

export const retryDefaults: Required<RetryOptions> = { maxRetries: 2, baseDelayMs: 300, maxDelayMs: 8000, retryAfterCapMs: 30_000 };

/** 408, 429 and every 5xx are worth another attempt (network errors are decided elsewhere). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** `Retry-After` in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * Backoff before retry number `retry` (1-based): exponential, capped, with "equal jitter" —
 * half the step is fixed and half random — so waits stay between step/2 and step.
 */
export function backoffDelay(retry: number, options: Required<RetryOptions>, random: () => number = Math.random): number {
  const step = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(step / 2 + random() * (step / 2));
}

/** The longest a timer waits: longer ones fire at once (Node, browsers), so waits are cut to this. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Waits `ms` (at most MAX_TIMER_MS), or rejects as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.min(ms, MAX_TIMER_MS),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What went wrong with an attempt, as the retry decision sees it. */
export type AttemptFailure =
  /** No answer: the connection failed, was cut, or the attempt timed out (before or during the body). */
  | { kind: "lost" }
  /** An answer with this status (and `Retry-After`, if it said). */
  | { kind: "status"; status: number; retryAfter: string | null };

/**
 * The one retry decision of a call: how long to wait before the next attempt, or undefined for
 * none. Only idempotent operations are retried, within one budget per call (before the answer and
 * while reading it alike); lost answers, 408, 429 and 5xx are worth another attempt; a
 * `Retry-After` is waited exactly when it is within the cap, and a longer one ends the retries.
 */
export function retryDelay(idempotent: boolean, retriesSpent: number, failure: AttemptFailure, options: Required<RetryOptions>): number | undefined {
  if (!idempotent || retriesSpent >= options.maxRetries) return undefined;
  if (failure.kind === "status") {
    if (!isRetryableStatus(failure.status)) return undefined;
    const asked = parseRetryAfter(failure.retryAfter);
    if (asked !== undefined) return asked <= options.retryAfterCapMs ? asked : undefined;
  }
  return backoffDelay(retriesSpent + 1, options);
}
