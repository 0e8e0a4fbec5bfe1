// The attempts of one request, each in order: authorize and present the chain (the steps), the
// caller's hooks, a fresh timeout joined with the caller's signal, the HTTP adapter, then the
// answer: a redirect followed or refused, the steps' reading of it (a renewed token, the chain's
// next link), and the one retry decision (retry.ts). What the transport then reads is the answer
// this returns, its timer still running until the body is read (`endAttempt`).
import type { Hooks, LogEvent } from "../call.js";
import { ConfigurationError, ConnectionError, PaysysError, RedirectError, RequestAbortedError, TimeoutError } from "../errors.js";
import { attemptSignal, isTimeout, unlessAborted } from "./attempt-signal.js";
import { refuseStackHeaders } from "./header-check.js";
import { type HttpAdapter, type HttpAnswer, type HttpRequest, NeverSentError } from "./http.js";
import { copyInto, put } from "./objects.js";
import { type OperationSpec, outcomeNote } from "./operation.js";
import { addressShown, causeShown, redactHeaders, scrub } from "./redact.js";
import { type RetryOptions, retryDelay, sleep } from "./retry.js";
import type { AttemptStep, HeaderSink } from "./steps.js";

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
  redactBody(body: string | Uint8Array, op: OperationSpec): unknown;
}

/** An error's message (or a text) with every secret of the call cut out. */
export const scrubbed = (e: unknown, state: CallState) => scrub(e instanceof Error ? e.message : String(e), state.secrets());

/** What an error that ended an attempt keeps as its `cause`: the SDK's own as it is, any other scrubbed (redact.ts). */
const shownCause = (e: unknown, state: CallState) => (e instanceof PaysysError ? e : causeShown(e, state.secrets()));

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
  // Each step below waits only where it has to (a token renewed, a hook, a store): an await costs a
  // turn of the microtask queue, and a call's awaits are most of what the SDK adds to its time.
  // This one is on purpose: the request leaves on a later turn than the call, so a caller who aborts
  // right after calling (in the same turn) sends nothing, as `fetch` itself would not.
  await Promise.resolve();
  for (;;) {
    if (caller?.aborted) throw new RequestAbortedError(`${op.id}: aborted by the caller`, { operation: op.id, attempts: state.attempts, cause: caller.reason });
    state.attempts++;
    let attempt = presentAttempt(ctx, prepared, url, state, caller);
    if (attempt instanceof Promise) attempt = await attempt;
    const { request, presented, hooked } = attempt;
    // The steps and hooks may have waited (a token renewed): a caller who aborted meanwhile gets nothing sent.
    if (caller?.aborted) {
      state.endAttempt();
      throw new RequestAbortedError(`${op.id}: aborted by the caller before the request was sent`, { operation: op.id, attempts: state.attempts - 1, cause: caller.reason });
    }
    const sentBefore = state.once?.sent === true;
    beforeSend(state);
    const started = ctx.logger ? performance.now() : 0;
    let answer: HttpAnswer;
    try {
      answer = await ctx.http(request);
    } catch (e) {
      if (e instanceof NeverSentError && state.once) state.once.sent = sentBefore; // this one never left
      await lost(ctx, request, state, caller, e);
      continue; // retried
    }
    // An answer the transport stops at (a redirect, a failing hook, step or logger) has its body
    // dropped: left unread, it would hold its connection, and the process with it.
    try {
      ctx.logger?.({ type: "response", operation: op.id, status: answer.status, attempt: state.attempts, durationMs: Math.round(performance.now() - started) });
      if (hooked) await ctx.hooks?.afterResponse?.({ operation: op.id, attempt: state.attempts, request: hooked, response: answer.response() });
      const target = redirectTarget(op, answer, request.url, request.method, state);
      if (target) {
        state.endAttempt();
        answer.drop();
        if (++redirects > MAX_REDIRECTS) {
          const location = scrubbed(target, state);
          throw new RedirectError(`${op.id}: more than ${MAX_REDIRECTS} redirects; the last to ${location}`, {
            operation: op.id,
            status: answer.status,
            attempts: state.attempts,
            location,
          });
        }
        url = target;
        continue;
      }
      let again = stepsAskAgain(state, answer, presented, resent, 0, false);
      if (again instanceof Promise) again = await again;
      if (again) {
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

/** An attempt as presented: the request to send, what each step presented, the hooks' view of it. */
interface Presented {
  request: HttpRequest;
  presented: unknown[];
  hooked: Request | undefined;
}

/** An attempt being presented: its request's parts so far, and what each step presented. */
interface Presenting {
  ctx: AttemptContext;
  prepared: Prepared;
  url: string;
  state: CallState;
  caller: AbortSignal | undefined;
  /** A plain record, not a Headers object: a Headers per attempt is measurable in the client's overhead. */
  headers: Record<string, string>;
  sink: HeaderSink;
  presented: unknown[];
}

/** Before an attempt: the steps' headers, then the timer, the hooks and the log line (`opened`). */
function presentAttempt(ctx: AttemptContext, prepared: Prepared, url: string, state: CallState, caller: AbortSignal | undefined): Presented | Promise<Presented> {
  const headers: Record<string, string> = copyInto({}, prepared.headers);
  const sink = { set: (name: string, value: string) => put(headers, name.toLowerCase(), value) };
  const p: Presenting = { ctx, prepared, url, state, caller, headers, sink, presented: [] };
  const { steps } = state;
  for (let i = 0; i < steps.length; i++) {
    const shown = steps[i]!.present(sink);
    if (shown instanceof Promise) return presentedLater(p, shown, i);
    p.presented.push(shown);
  }
  return opened(p);
}

/** A caller who aborted while its call's credentials were obtained: nothing was sent. */
export const signInAborted = (state: CallState, caller: AbortSignal | undefined, attempts: number): RequestAbortedError =>
  new RequestAbortedError(`${state.op.id}: aborted by the caller while it signed in: nothing was sent`, { operation: state.op.id, attempts, cause: caller?.reason });

/** The rest of `presentAttempt` once the step at `at` waits (a token being renewed): a caller who aborts stops waiting at once. */
async function presentedLater(p: Presenting, waiting: Promise<unknown>, at: number): Promise<Presented> {
  const aborted = () => signInAborted(p.state, p.caller, p.state.attempts - 1);
  p.presented.push(await unlessAborted(waiting, p.caller, aborted));
  for (const step of p.state.steps.slice(at + 1)) p.presented.push(await unlessAborted(step.present(p.sink), p.caller, aborted));
  const attempt = opened(p);
  return attempt instanceof Promise ? await attempt : attempt;
}

/** The attempt's timer, started once its credentials are in hand; the hooks' view; the log line. */
function opened({ ctx, prepared, url, state, caller, headers, presented }: Presenting): Presented | Promise<Presented> {
  const { signal, end } = attemptSignal(state.timeoutMs, caller);
  state.endAttempt = end;
  const attempt: Presented = { request: { url, method: prepared.method, headers, body: prepared.body, signal }, presented, hooked: undefined };
  if (ctx.hooks?.beforeRequest || ctx.hooks?.afterResponse) return hookedAttempt(ctx, state, attempt).then((a) => logged(ctx, prepared, state, a));
  return logged(ctx, prepared, state, attempt);
}

/** The hooks' view of an attempt, and the request a `beforeRequest` hook put in its place. */
async function hookedAttempt(ctx: AttemptContext, state: CallState, attempt: Presented): Promise<Presented> {
  const { url, method, headers, body, signal } = attempt.request;
  const hooked = new Request(url, { method, headers, body });
  const replaced = await ctx.hooks!.beforeRequest?.({ operation: state.op.id, attempt: state.attempts, request: hooked.clone() });
  if (!replaced) return { ...attempt, hooked };
  // Read as a Request by its members (one from another copy of undici is no `instanceof` of this one).
  if (typeof replaced !== "object" || typeof replaced.url !== "string" || typeof replaced.method !== "string" || typeof replaced.headers?.forEach !== "function") {
    throw new ConfigurationError(
      `${state.op.id}: the beforeRequest hook returned ${replaced === null ? "null" : typeof replaced}, not a Request (return nothing to send the request as it is); nothing was sent`,
    );
  }
  const own: Record<string, string> = {};
  replaced.headers.forEach((v, k) => {
    put(own, k, v);
  });
  refuseStackHeaders(own, (name, why) => new ConfigurationError(`${state.op.id}: the beforeRequest hook's request has the header ${name}, which ${why}; nothing was sent`));
  const replacedBody = replaced.body ? new Uint8Array(await replaced.clone().arrayBuffer()) : undefined;
  return { request: { url: replaced.url, method: replaced.method, headers: own, body: replacedBody, signal }, presented: attempt.presented, hooked: replaced };
}

/** The attempt's log line. An optional call evaluates its argument only when there is a logger: no event (and no redaction) for a client that does not log. */
function logged(ctx: AttemptContext, prepared: Prepared, state: CallState, attempt: Presented): Presented {
  const { request } = attempt;
  ctx.logger?.({
    type: "request",
    operation: state.op.id,
    method: request.method,
    // A value in the address may be a card number (a forged callback's order id, asked of the status
    // query) or a secret of the call: cut out, as in error messages; a user and password in it left out.
    url: scrub(addressShown(request.url), state.secrets()),
    attempt: state.attempts,
    headers: redactHeaders(
      new Headers(request.headers),
      state.steps.flatMap((s) => s.headerNames),
    ),
    body: prepared.body && ctx.redactBody(prepared.body, state.op),
  });
  return attempt;
}

/** A journaled call's watch learns of the request right before it leaves; throwing stops it unsent. */
function beforeSend(state: CallState): void {
  if (!state.once) return;
  try {
    state.once.beforeSend();
  } catch (e) {
    state.endAttempt();
    throw e;
  }
  state.once.sent = true;
}

/** A request the HTTP adapter lost: waits for its retry, or throws the typed error. */
async function lost(ctx: AttemptContext, request: HttpRequest, state: CallState, caller: AbortSignal | undefined, e: unknown): Promise<void> {
  const { op } = state;
  state.endAttempt();
  const neverSent = e instanceof NeverSentError;
  const note = neverSent ? " (the request was never sent)" : outcomeNote(op);
  // The request may have left before the signal fired: for an operation that is not idempotent, its outcome is unknown.
  if (caller?.aborted)
    throw new RequestAbortedError(`${op.id}: aborted by the caller while the request was under way${note}`, {
      operation: op.id,
      attempts: state.attempts,
      cause: caller.reason,
      outcomeUnknown: !op.idempotent && !neverSent,
    });
  const timedOut = isTimeout(request.signal.reason);
  const what = timedOut ? `timed out after ${state.timeoutMs} ms` : `connection failed: ${scrubbed(e, state)}`;
  const delay = retryDelay(op.idempotent, state.retries, { kind: "lost" }, ctx.retry);
  if (delay !== undefined) return retryWait(ctx, state, what, caller, delay);
  const ErrorClass = timedOut ? TimeoutError : ConnectionError;
  throw new ErrorClass(`${op.id}: ${what}${note}`, {
    operation: op.id,
    attempts: state.attempts,
    outcomeUnknown: !op.idempotent && !neverSent,
    cause: timedOut ? undefined : shownCause(neverSent ? (e as NeverSentError).cause : e, state),
  });
}

/**
 * Every step reads every answer, in order (the chain takes its next link from it); a step may ask
 * for one re-send per call. A promise only from the first step that answers one.
 */
function stepsAskAgain(state: CallState, answer: HttpAnswer, presented: unknown[], resent: AttemptStep[], from: number, again: boolean): boolean | Promise<boolean> {
  const { steps } = state;
  for (let i = from; i < steps.length; i++) {
    const step = steps[i]!;
    if (!step.answered) continue;
    const asks = step.answered(answer, presented[i]);
    if (asks instanceof Promise) return asks.then((a) => stepsAskAgain(state, answer, presented, resent, i + 1, asked(step, a, resent, again)));
    again = asked(step, asks, resent, again);
  }
  // A journaled call is sent once: whoever sent it decides, knowing whether the first took effect.
  if (again && state.once) {
    state.once.repaired = true;
    return false;
  }
  return again;
}

/** Whether a step's ask is the call's re-send: the first of any step's, once per step and call. */
function asked(step: AttemptStep, asks: boolean, resent: AttemptStep[], again: boolean): boolean {
  if (!asks || again || resent.includes(step)) return again;
  resent.push(step);
  return true;
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
  if (answer.followed !== undefined) refuseFollowed(op, answer, answer.followed, url, method, state);
  // A 2xx is neither a redirect nor an opaque one (status 0): the common answer reads no more.
  if (answer.status >= 200 && answer.status < 300) return undefined;
  const errorCtx = { operation: op.id, status: answer.status, attempts: state.attempts };
  if (answer.opaqueRedirect) throw new RedirectError(`${op.id}: the service redirected the request (the browser hides where); not followed`, errorCtx);
  if (!REDIRECTS.includes(answer.status)) return undefined;
  const location = answer.header("location");
  if (!location) return undefined;
  // Scrubbed whole, then cut: a secret the cut crossed would no longer match, and show its first part.
  const shown = scrubbed(location, state).slice(0, 200);
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

/**
 * A `fetch` that followed redirects itself (a caller's, not passing `redirect: "manual"` on) answered
 * from where they ended: trusted, a withdrawal re-sent elsewhere, password and all, was taken as
 * done on another host's word. Refused unless it is what the SDK would have followed: a read
 * that stayed on the origin.
 */
function refuseFollowed(op: OperationSpec, answer: HttpAnswer, followed: string, url: string, method: string, state: CallState): void {
  let sameOrigin = false;
  try {
    sameOrigin = new URL(followed).origin === new URL(url).origin;
  } catch {}
  if (sameOrigin && method === "GET" && !state.once && !op.movesMoney) return;
  answer.drop();
  const where = followed ? ` to ${JSON.stringify(scrubbed(followed, state).slice(0, 200))}` : "";
  throw new RedirectError(
    `${op.id}: the fetch followed a redirect${where} by itself (a fetch passed to the client must pass redirect: "manual" on); its answer is not the service's`,
    { operation: op.id, status: answer.status, attempts: state.attempts },
  );
}

/** For errors a step or hook throws that are not the SDK's own. */
export function asPaysysError(e: unknown, state: CallState): PaysysError {
  return e instanceof PaysysError ? e : new ConnectionError(`${state.op.id}: ${scrubbed(e, state)}`, { operation: state.op.id, attempts: state.attempts });
}
