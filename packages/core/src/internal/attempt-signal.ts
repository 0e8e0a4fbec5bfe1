// One attempt's signal: aborted when the attempt's timeout passes or when the caller aborts,
// whichever comes first. On Node 20 a new AbortController costs about a third of what the SDK
// itself spends on a call, so a controller whose attempt ended cleanly (its answer's body read to
// its end, never aborted) serves a few later attempts, one at a time. That is safe because aborting
// a signal has no effect on an exchange that is over. A body cut at the size limit is not over for
// a clone that still reads it (a hook's, a caching fetch's): its controller is never used again.
// The uses are few because a finished fetch may leave its listener on the signal (undici's stay
// until they are collected), and a caller's fetch may join it to signals of its own
// (`AbortSignal.any`), which Node keeps with it while they have listeners: eight uses stay under
// EventTarget's warning threshold of ten, and whatever a signal gathers goes when it does.
// The timeouts of all attempts share one timer (deadlines.ts).
import { startDeadline, stopDeadline } from "./deadlines.js";

/** The reason an attempt's signal carries when its timeout passed. */
class TimeoutMarker extends Error {}
export const isTimeout = (reason: unknown) => reason instanceof TimeoutMarker;

const USES = 8;
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
  const deadline = startDeadline(timeoutMs, () => controller.abort(new TimeoutMarker()));
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
      stopDeadline(deadline);
      if (onCallerAbort) caller.removeEventListener("abort", onCallerAbort);
      if (reusable && !signal.aborted && held.uses < USES && idle.length < IDLE) idle.push(held);
    },
  };
}

/**
 * What `work` gives, or `aborted()` as soon as the caller aborts: a caller stops waiting for a
 * sign-in (a captcha solver that never answers) the moment it aborts; the work itself goes on, for
 * the client's other calls.
 */
export async function unlessAborted<T>(work: T | Promise<T>, caller: AbortSignal | undefined, aborted: () => Error): Promise<T> {
  if (!caller || !(work instanceof Promise)) return work;
  let onAbort: (() => void) | undefined;
  const abort = new Promise<never>((_, reject) => {
    onAbort = () => reject(aborted());
    if (caller.aborted) onAbort();
    else caller.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, abort]);
  } finally {
    caller.removeEventListener("abort", onAbort!);
  }
}
