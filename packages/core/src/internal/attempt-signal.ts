// One attempt's signal: aborted when the attempt's timeout passes or when the caller aborts,
// whichever comes first. On Node 20 a new AbortController costs about a third of what the SDK
// itself spends on a call, so a controller whose attempt ended cleanly (its answer's body read to
// its end, never aborted) serves a few later attempts, one at a time. That is safe because aborting
// a signal has no effect on an exchange that is over. A body cut at the size limit is not over for
// a clone that still reads it (a hook's, a caching fetch's): its controller is never used again.
// A finished fetch may leave its listener on the signal (undici's stay until they are collected),
// and EventTarget warns at ten: where the runtime counts a signal's listeners (Node), a controller
// serves again while fewer than eight are on it, which is without end for an HTTP that removes its
// own (the SDK's node:http, most caller's fetches); elsewhere it serves eight attempts.

import { isNode } from "./runtime.js";

/** The reason an attempt's signal carries when its timeout passed. */
class TimeoutMarker extends Error {}
export const isTimeout = (reason: unknown) => reason instanceof TimeoutMarker;

const USES = 8;
/**
 * The listeners on a signal, where the runtime counts them: Node's node:events (20.16 and later).
 * Only Node: another runtime's node:events may not see an EventTarget's listeners, and would then
 * let a controller serve without end under a `fetch` that leaves them.
 */
const listenersOn: ((signal: AbortSignal) => number) | undefined = (() => {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  const events = isNode() && typeof get === "function" ? (get("node:events") as { getEventListeners?: (target: EventTarget, type: string) => unknown[] } | undefined) : undefined;
  const count = events?.getEventListeners;
  return typeof count === "function" ? (signal) => count(signal, "abort").length : undefined;
})();
/** Whether a controller whose attempt ended cleanly may serve another. */
const servesAgain = (held: Held) => (listenersOn ? listenersOn(held.signal) < USES : held.uses < USES);
/** At most this many wait idle: enough for a busy client's parallel calls, no more memory than that. */
const IDLE = 64;
/** A controller, its signal (Node's `signal` getter checks its receiver on every read) and the uses it has had. */
interface Held {
  controller: AbortController;
  signal: AbortSignal;
  uses: number;
}
/** Controllers free for another attempt. */
const idle: Held[] = [];
const fresh = (): Held => {
  const controller = new AbortController();
  return { controller, signal: controller.signal, uses: 0 };
};

export interface AttemptSignal {
  readonly signal: AbortSignal;
  /**
   * Stops the timer and the caller's link; at most once (later calls do nothing). `reusable`: the
   * attempt's body was read to its end, so the controller may serve another attempt.
   */
  end(reusable?: boolean): void;
}

/** A signal for one attempt that fires after `timeoutMs` or when `caller` aborts. */
export function attemptSignal(timeoutMs: number, caller: AbortSignal | undefined): AttemptSignal {
  const held = idle.pop() ?? fresh();
  held.uses++;
  const { controller, signal } = held;
  const timer = setTimeout(() => controller.abort(new TimeoutMarker()), timeoutMs);
  const onCallerAbort = caller && (() => controller.abort(caller.reason));
  // A caller that aborted already fires no event: the attempt's signal starts aborted.
  if (caller?.aborted) controller.abort(caller.reason);
  else if (onCallerAbort) caller.addEventListener("abort", onCallerAbort, { once: true });
  let ended = false;
  return {
    signal,
    end(reusable) {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      if (onCallerAbort) caller.removeEventListener("abort", onCallerAbort);
      if (reusable && !signal.aborted && idle.length < IDLE && servesAgain(held)) idle.push(held);
    },
  };
}
