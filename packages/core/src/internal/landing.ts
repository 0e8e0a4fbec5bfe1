// Requests that may still reach the service after their call stopped waiting for them. A call that
// timed out (or that its caller aborted, or a gateway gave up on) after its request left may be slow, not lost: the service can
// still be working on it, or the request still be on its way. A check that finds it "not done" then
// only says "not yet", and is not taken as final before the intent's window (`sendBy`: the attempt's
// timeout and 10 s) has passed. Kept in this process's memory: a process that restarts sooner than
// that takes the check as final (a known gap; see ARCHITECTURE.md).
import { APIError, RequestAbortedError, TimeoutError } from "../errors.js";
import { isUnresolved, type JournalEntry } from "../stores.js";
import { processWide } from "./process-wide.js";

/** Journal keys (as in the store) and until when their request may still land; on `globalThis`, so two loaded copies of core share it. */
const landing = processWide("landing", () => new Map<string, number>());

/**
 * Whether `error` says the call stopped waiting while the service may still be at work: a timeout,
 * the caller's abort, or a gateway's 502 or 504 (its upstream failed to answer it, or took too long).
 */
const stoppedWaiting = (error: unknown) =>
  error instanceof TimeoutError || error instanceof RequestAbortedError || (error instanceof APIError && (error.status === 502 || error.status === 504));

/** Notes that the request under `key` may still land until `until`, when `error` says its call stopped waiting for an answer. */
export function noteLanding(key: string, error: unknown, until: number): boolean {
  if (!stoppedWaiting(error)) return false;
  if (landing.size > 256) for (const [k, u] of landing) if (u <= Date.now()) landing.delete(k);
  landing.set(key, until);
  return true;
}

/** Until when the request under `key` may still land (epoch ms), or 0 when it cannot. */
export function landingUntil(key: string): number {
  const until = landing.get(key);
  if (until === undefined) return 0;
  if (until > Date.now()) return until;
  landing.delete(key);
  return 0;
}

/** Why a person's settlement of a key's entry is refused: nothing unresolved, or "not applied" while its request may still land. */
export function settleRefused(entry: JournalEntry | undefined, applied: boolean, key: string): string | undefined {
  if (!entry || !isUnresolved(entry.state)) return `has no unresolved intent (${entry?.state ?? "no entry"})`;
  // Only a window this process noted: elsewhere, a person settles what the service's people found.
  const until = landingUntil(key);
  if (!applied && until) {
    return `may still reach the service until ${new Date(until).toISOString()}: what the service shows now is not final; settle it after then`;
  }
  return undefined;
}

/**
 * Whether an unresolved intent's request may still land, so that "not done" is not final: this process
 * noted it, or it is another holder's and its window has not passed (that holder's lease given back
 * early, or its process gone: it may have been at work in the service all the same).
 */
export function mayStillLand(entry: JournalEntry, ownHolder: boolean): boolean {
  return landingUntil(entry.key) > 0 || (!ownHolder && Date.now() < entry.sendBy);
}
