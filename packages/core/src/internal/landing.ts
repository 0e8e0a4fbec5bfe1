// Requests that may still reach the service after their call stopped waiting for them. A call that
// timed out (or that its caller aborted) after its request left may be slow, not lost: the service can
// still be working on it, or the request still be on its way. A check that finds it "not done" then
// only says "not yet", and is not taken as final before the intent's window (`sendBy`: the attempt's
// timeout and 10 s) has passed. Kept in this process's memory: a process that restarts sooner than
// that takes the check as final (a known gap; see ARCHITECTURE.md).
import { RequestAbortedError, TimeoutError } from "../errors.js";

/** Journal keys (as in the store) and until when their request may still land. */
const landing = new Map<string, number>();

/** Notes that the request under `key` may still land until `until`, when `error` says its call stopped waiting for an answer. */
export function noteLanding(key: string, error: unknown, until: number): void {
  if (!(error instanceof TimeoutError || error instanceof RequestAbortedError)) return;
  if (landing.size > 256) for (const [k, u] of landing) if (u <= Date.now()) landing.delete(k);
  landing.set(key, until);
}

/** Until when the request under `key` may still land (epoch ms), or 0 when it cannot. */
export function landingUntil(key: string): number {
  const until = landing.get(key);
  if (until === undefined) return 0;
  if (until > Date.now()) return until;
  landing.delete(key);
  return 0;
}
