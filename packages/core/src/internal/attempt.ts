// The attempts of one request, each in order: authorize and present the chain (the steps), the
// caller's hooks, a fresh timeout joined with the caller's signal, the HTTP adapter, then the
// answer: a redirect followed or refused, the steps' reading of it (a renewed token, the chain's
// next link), and the one retry decision (retry.ts). What the transport then reads is the answer
// this returns, its timer still running until the body is read (`endAttempt`).
import type { Hooks, LogEvent } from "../call.js";
import { ConnectionError, PaysysError, RedirectError, RequestAbortedError, TimeoutError } from "../errors.js";
import { attemptSignal, isTimeout } from "./attempt-signal.js";
import type { HttpAdapter, HttpAnswer, HttpRequest } from "./http.js";
import { copyInto, put } from "./objects.js";
import { type OperationSpec, outcomeNote } from "./operation.js";
import { redactHeaders, scrub } from "./redact.js";
import { type RetryOptions, retryDelay, sleep } from "./retry.js";
import type { AttemptStep } from "./steps.js";

/** A request ready to send: what every attempt re-sends. */
export interface Prepared {
  url: string;
  method: string;
  /** Lower-case names; each attempt copies them into its own record. */
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
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
export interface CallState {
  op: OperationSpec;
  steps: AttemptStep[];
  attempts: number;
  /** Retries spent, before the answer and while reading it: one budget per call. */
  retries: number;
  timeoutMs: number;
  /** Clears the timer of the last attempt; `true` once its body has been read whole (attempt-signal.ts). */
  endAttempt: (bodyRead?: boolean) => void;
  /** Set for a journaled call: at most one request. */
  once: SendWatch | undefined;
  /** Every secret in play in this call (what it sent, what its steps and the client hold), for scrubbing texts. */
  secrets: () => Iterable<string>;
}

/** What the attempts need from their transport. */
export interface AttemptContext {
  http: HttpAdapter;
  retry: Required<RetryOptions>;
  hooks?: Hooks;
  logger?: (event: LogEvent) => void;
  /** The body as a log shows it (sensitive values redacted). */
  redactBody(body: string | Uint8Array): unknown;
}

/** An error's message (or a text) with every secret of the call cut out. */
export const scrubbed = (e: unknown, state: CallState) => scrub(e instanceof Error ? e.message : String(e), state.secrets());

const noop = () => {};
const MAX_REDIRECTS = 5;
const REDIRECTS = [301, 302, 303, 307, 308];

/** A new call's state. */
export function callState(op: OperationSpec, steps: AttemptStep[], timeoutMs: number, once: SendWatch | undefined, secrets: () => Iterable<string>): CallState {
  return { op, steps, attempts: 0, retries: 0, timeoutMs, endAttempt: noop, once, secrets };
}

/** Runs the attempts of one request until an answer the transport reads, or a typed error. */
export async function attempts(ctx: AttemptContext, prepared: Prepared, state: CallState, caller: AbortSignal | undefined): Promise<HttpAnswer> {
  const { op } = state;
  /** The steps that had their one re-send of this call (an array: one or two steps, and no Set per call). */
  const resent: AttemptStep[] = [];
  let redirects = 0;
  let url = prepared.url;
  for (;;) {
    if (caller?.aborted) throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts: state.attempts, cause: caller.reason });
    state.attempts++;
    const { request, presented, hooked } = await presentAttempt(ctx, prepared, url, state, caller);
    // The steps and hooks may have waited (a token renewed): a caller who aborted meanwhile gets nothing sent.
    if (caller?.aborted) {
      state.endAttempt();
      throw new RequestAbortedError(`${op.id}: aborted by the caller before the request was sent`, { operation: op.id, attempts: state.attempts - 1, cause: caller.reason });
    }
    const answer = await sendAttempt(ctx, request, state, caller);
    if (answer === undefined) continue; // lost, and retried
    // An answer the transport stops at (a redirect, a failing hook or step) has its body dropped:
    // left unread, it would hold its connection, and the process with it.
    try {
      if (hooked) await ctx.hooks?.afterResponse?.({ operation: op.id, attempt: state.attempts, request: hooked, response: answer.response() });
      const target = redirectTarget(op, answer, request.url, request.method, state);
      if (target) {
        state.endAttempt();
        answer.drop();
        if (++redirects > MAX_REDIRECTS)
          throw new RedirectError(`${op.id}: more than ${MAX_REDIRECTS} redirects; the last to ${scrubbed(target, state)}`, {
            operation: op.id,
            status: answer.status,
            attempts: state.attempts,
            location: target,
          });
        url = target;
        continue;
      }
      if (await stepsAskAgain(state, answer, presented, resent)) {
        state.endAttempt();
        answer.drop();
        continue;
      }
      const delay = retryDelay(op.idempotent, state.retries, { kind: "status", status: answer.status, retryAfter: answer.header("retry-after") }, ctx.retry);
      if (delay === undefined) return answer;
      state.endAttempt();
      answer.drop();
      await retryWait(ctx, state, `HTTP ${answer.status}`, caller, delay);
    } catch (e) {
      answer.drop();
      throw e;
    }
  }
}

/** Before an attempt: the steps' headers, the timer, the hooks' view, the log line. */
async function presentAttempt(ctx: AttemptContext, prepared: Prepared, url: string, state: CallState, caller: AbortSignal | undefined) {
  const { op } = state;
  // A plain record, not a Headers object: a Headers per attempt is measurable in the client's overhead.
  const headers: Record<string, string> = copyInto({}, prepared.headers);
  const sink = { set: (name: string, value: string) => put(headers, name.toLowerCase(), value) };
  const presented: unknown[] = [];
  for (const step of state.steps) {
    const shown = step.present(sink);
    presented.push(shown instanceof Promise ? await shown : shown);
  }
  const { signal, end } = attemptSignal(state.timeoutMs, caller);
  state.endAttempt = end;
  let request: HttpRequest = { url, method: prepared.method, headers, body: prepared.body, signal };
  let hooked: Request | undefined;
  const { hooks } = ctx;
  if (hooks?.beforeRequest || hooks?.afterResponse) {
    hooked = new Request(url, { method: request.method, headers, body: request.body });
    const replaced = await hooks.beforeRequest?.({ operation: op.id, attempt: state.attempts, request: hooked.clone() });
    if (replaced) {
      hooked = replaced;
      const own: Record<string, string> = {};
      replaced.headers.forEach((v, k) => {
        put(own, k, v);
      });
      const body = replaced.body ? new Uint8Array(await replaced.clone().arrayBuffer()) : undefined;
      request = { url: replaced.url, method: replaced.method, headers: own, body, signal };
    }
  }
  // An optional call evaluates its argument only when there is a logger: no event (and no redaction) for a client that does not log.
  ctx.logger?.({
    type: "request",
    operation: op.id,
    method: request.method,
    url: request.url,
    attempt: state.attempts,
    headers: redactHeaders(
      new Headers(request.headers),
      state.steps.flatMap((s) => s.headerNames),
    ),
    body: prepared.body && ctx.redactBody(prepared.body),
  });
  return { request, presented, hooked };
}

/** Hands the request to the HTTP adapter; a lost one is retried (undefined) or becomes a typed error. */
async function sendAttempt(ctx: AttemptContext, request: HttpRequest, state: CallState, caller: AbortSignal | undefined): Promise<HttpAnswer | undefined> {
  const { op } = state;
  if (state.once) {
    try {
      state.once.beforeSend();
    } catch (e) {
      state.endAttempt();
      throw e;
    }
    state.once.sent = true;
  }
  const started = ctx.logger ? performance.now() : 0;
  try {
    const answer = await ctx.http(request);
    ctx.logger?.({ type: "response", operation: op.id, status: answer.status, attempt: state.attempts, durationMs: Math.round(performance.now() - started) });
    return answer;
  } catch (e) {
    state.endAttempt();
    // The request may have left before the signal fired: for an operation that is not idempotent, its outcome is unknown.
    if (caller?.aborted)
      throw new RequestAbortedError(`${op.id}: aborted by the caller while the request was under way${outcomeNote(op)}`, {
        operation: op.id,
        attempts: state.attempts,
        cause: caller.reason,
        outcomeUnknown: !op.idempotent,
      });
    const timedOut = isTimeout(request.signal.reason);
    const what = timedOut ? `timed out after ${state.timeoutMs} ms` : `connection failed: ${scrubbed(e, state)}`;
    const delay = retryDelay(op.idempotent, state.retries, { kind: "lost" }, ctx.retry);
    if (delay !== undefined) {
      await retryWait(ctx, state, what, caller, delay);
      return undefined;
    }
    const ErrorClass = timedOut ? TimeoutError : ConnectionError;
    throw new ErrorClass(`${op.id}: ${what}${outcomeNote(op)}`, { operation: op.id, attempts: state.attempts, outcomeUnknown: !op.idempotent, cause: timedOut ? undefined : e });
  }
}

/** Every step reads every answer (the chain takes its next link from it); a step may ask for one re-send per call. */
async function stepsAskAgain(state: CallState, answer: HttpAnswer, presented: unknown[], resent: AttemptStep[]): Promise<boolean> {
  let again = false;
  for (let i = 0; i < state.steps.length; i++) {
    const step = state.steps[i]!;
    if (!step.answered) continue;
    // Awaited only when it is a promise: an await costs a turn of the microtask queue even for a plain value.
    let asks = step.answered(answer, presented[i]);
    if (asks instanceof Promise) asks = await asks;
    if (asks && !resent.includes(step) && !again) {
      resent.push(step);
      again = true;
    }
  }
  // A journaled call is sent once: whoever sent it decides, knowing whether the first took effect.
  if (again && state.once) {
    state.once.repaired = true;
    return false;
  }
  return again;
}

/** Spends one retry of the call's budget: waits `delayMs`, unless the caller aborts. */
export async function retryWait(ctx: AttemptContext, state: CallState, reason: string, caller: AbortSignal | undefined, delayMs: number): Promise<void> {
  const { op, attempts } = state;
  state.retries++;
  ctx.logger?.({ type: "retry", operation: op.id, attempt: attempts, delayMs, reason });
  try {
    await sleep(delayMs, caller);
  } catch (e) {
    throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts, cause: e });
  }
}

/**
 * Where a redirect may be followed: a read on the same origin, when the method survives it
 * (307/308, or any redirect of a GET). Credentials never follow to another origin; a request that
 * moves money or changes a register never follows one.
 */
function redirectTarget(op: OperationSpec, answer: HttpAnswer, url: string, method: string, state: CallState): string | undefined {
  // A 2xx is neither a redirect nor an opaque one (status 0): the common answer reads no more.
  if (answer.status >= 200 && answer.status < 300) return undefined;
  const errorCtx = { operation: op.id, status: answer.status, attempts: state.attempts };
  if (answer.opaqueRedirect) throw new RedirectError(`${op.id}: the service redirected the request (the browser hides where); not followed`, errorCtx);
  if (!REDIRECTS.includes(answer.status)) return undefined;
  const location = answer.header("location");
  if (!location) return undefined;
  const shown = scrubbed(location.slice(0, 200), state);
  const refuse = (why: string) =>
    new RedirectError(`${op.id}: the service answered ${answer.status} with Location ${JSON.stringify(shown)}; ${why}`, { ...errorCtx, location: shown });
  if (state.once || op.movesMoney) throw refuse("not followed: a request that moves money or changes a register is sent once, never again elsewhere");
  let target: URL;
  try {
    target = new URL(location, url);
  } catch {
    throw refuse("an unreadable address; not followed");
  }
  if (target.origin !== new URL(url).origin) throw refuse(`another origin (${target.origin}); not followed, so no credential leaves ${new URL(url).origin}`);
  if (answer.status !== 307 && answer.status !== 308 && method !== "GET") throw refuse(`it would turn the ${method} into a GET; not followed`);
  return target.href;
}

/** For errors a step or hook throws that are not the SDK's own. */
export function asPaysysError(e: unknown, state: CallState): PaysysError {
  return e instanceof PaysysError ? e : new ConnectionError(`${state.op.id}: ${scrubbed(e, state)}`, { operation: state.op.id, attempts: state.attempts });
}
