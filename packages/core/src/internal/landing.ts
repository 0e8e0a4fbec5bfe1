// Requests that may still reach the service after their call stopped waiting for them. A call that
// timed out (or that its caller aborted, or a gateway gave up on) after its request left may be slow, not lost: the service can
// still be working on it, or the request still be on its way. A check that finds it "not done" then
// only says "not yet" when it was asked before the request's window ended (a check answered after
// it ended is asked again). This process's own calls note their window in its memory; an intent
// another process began (another holder, or this holder before it was killed and started again) has
// its whole window, or `landingMs` from when its process was first found gone, if that ends sooner.
import { APIError, MaybeSentError, UnexpectedResponseError } from "../errors.js";
import { DEFAULT_LANDING_MS, type Holder, intentIdOf, isUnresolved, type JournalEntry } from "../stores.js";
import { onThisClock } from "./boot-clock.js";
import { holderIsGone, isThisProcess } from "./holder.js";
import { processWide } from "./process-wide.js";

/** Journal keys (as in the store) and until when their request may still land; on `globalThis`, so two loaded copies of core share it. */
const landing = processWide("landing", () => new Map<string, number>());
/** Processes of other holders this process found gone, and when it first did (`host pid life` → epoch ms). */
const foundGone = processWide("found-gone", () => new Map<string, number>());
/** Intents of other hosts this process saw pending, and until when (by its own clock) each may be under way. */
const seenPending = processWide("seen-pending", () => new Map<string, number>());

/**
 * Until when (this process's clock) no attempt of an intent can still be under way in its holder:
 * its `sendBy`, stamped by its holder's clock (on this machine, read on the monotonic clock of the
 * boot both ran in: boot-clock.ts). Another host's clock may run behind this one's, so its
 * intent is also given its whole window (`sendBy - startedAt`, a length no clock's offset changes)
 * from when this process first saw it pending, if that ends later.
 */
export function windowEnd(entry: JournalEntry, self: Holder): number {
  if (entry.holder.host === self.host) return onThisClock(entry.holder.clock, entry.sendBy) ?? entry.sendBy;
  const id = `${entry.key} ${intentIdOf(entry)}`;
  const now = Date.now();
  dropOld(seenPending, now);
  const until = seenPending.get(id) ?? now + (entry.sendBy - entry.startedAt);
  seenPending.set(id, until);
  return Math.max(entry.sendBy, until);
}

/**
 * Whether `error` says the call stopped waiting while the service may still be at work: a timeout,
 * the caller's abort, a connection cut after the request left (a gateway that gave up on its
 * upstream may just close it), any server error (a gateway's 500, 502, 503, 504, 524, whose body may
 * look like the service's: a server error says the server failed, not that nothing was done), a 408
 * or 499 (the exchange timed out, or its caller went away), any status that is neither a success
 * nor a refusal (a 304, a 300, a final 1xx, a status below 100: no service answers a request so, a
 * proxy or a broken one may, after passing it on), or an answer that is not the service's (a
 * gateway's page sent as 200, a body cut short, a redirect: nginx's `error_page 504 <url>` answers
 * one after passing the request on). Any other 4xx refused the request; the service's own answer in
 * its envelope says it is done with it.
 */
export const stoppedWaiting = (error: unknown) =>
  error instanceof MaybeSentError || error instanceof UnexpectedResponseError || (error instanceof APIError && !refusedStatus(error.status));

/** A status by which the service refused the request: a 4xx but 408 and 499. */
const refusedStatus = (status: number | undefined) => status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 499;

/**
 * Notes that the request under `key` may still land, when `error` says its call stopped waiting for
 * an answer: until `landingMs` after now, or the intent's window (`sendBy`) if that ends sooner.
 */
export function noteLanding(key: string, error: unknown, sendBy: number, landingMs: number): void {
  if (!stoppedWaiting(error)) return;
  dropOld(landing, Date.now());
  landing.set(key, Math.min(sendBy, Date.now() + landingMs));
}

/** Until when the request under `key` may still land (epoch ms), if that is after `at`; else 0. */
export function landingUntil(key: string, at = Date.now()): number {
  const until = landing.get(key);
  if (until === undefined) return 0;
  if (until > at) return until;
  if (until <= Date.now()) landing.delete(key);
  return 0;
}

/**
 * Why a person's settlement of a key's entry is refused: nothing unresolved, or "not applied" while
 * its request may still land (what the service shows now is not final, whoever asks it).
 */
export function settleRefused(entry: JournalEntry | undefined, applied: boolean, self: Holder, landingMs: number): string | undefined {
  if (!entry || !isUnresolved(entry.state)) return `has no unresolved intent (${entry?.state ?? "no entry"})`;
  const until = applied ? 0 : landsUntil(entry, self, landingMs);
  if (until) return `may still reach the service until ${new Date(until).toISOString()}: what the service shows now is not final; settle it after then`;
  return undefined;
}

/**
 * Until when an unresolved intent's request may still land, if that is after `at`, so that a "not
 * done" asked at `at` is not final (0: it is). This process noted a window for it; or another process began it (another holder,
 * or this holder before it was started again: a killed till's request may be at work in the service
 * all the same) and its window has not passed. A process that is gone stopped waiting when it died,
 * before this process first found it gone: its request is given `landingMs` from then, if that is sooner.
 */
export function landsUntil(entry: JournalEntry, self: Holder, landingMs: number, at = Date.now()): number {
  const noted = landingUntil(entry.key, at);
  if (noted || isThisProcess(entry.holder, self)) return noted;
  const gone = goneSince(entry.holder, entry.startedAt);
  const until = gone === undefined ? windowEnd(entry, self) : Math.min(windowEnd(entry, self), gone + landingMs);
  return until > at ? until : 0;
}

/** When a pending intent is asked about again: once its request can no longer land (0: now). */
export function askAgainAt(entry: JournalEntry | undefined, self: Holder, landingMs: number): number {
  return entry?.state === "pending" ? landsUntil(entry, self, landingMs) : 0;
}

/**
 * When this process first found the holder's process gone (epoch ms), or undefined while it may live.
 * A record from before the intent began is of an earlier process that had the pid (older holders have
 * no life to tell them apart): that one was alive then, so this one is found gone now.
 */
function goneSince(holder: Holder, startedAt: number): number | undefined {
  if (!holderIsGone(holder)) return undefined;
  const id = `${holder.host} ${holder.pid} ${holder.life ?? ""}`;
  const now = Date.now();
  dropOld(foundGone, now - DEFAULT_LANDING_MS); // a record dropped early only lengthens a window
  const seen = foundGone.get(id);
  const at = seen !== undefined && seen >= startedAt ? seen : now;
  foundGone.set(id, at);
  return at;
}

/** Keeps a process-wide table small: past 256 entries, drops those whose time is at or before `before`. */
function dropOld(table: Map<string, number>, before: number): void {
  if (table.size > 256) for (const [key, at] of table) if (at <= before) table.delete(key);
}
