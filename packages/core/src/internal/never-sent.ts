// Intents whose write failed, so this process sent nothing under them. A write that did not answer
// may still land later (a script behind a paused server, a statement waiting for a lock): its intent
// then reads as pending, and for an operation whose outcome nothing can check (a cash-out request)
// it stayed so for good, though its call had said "nothing was sent". The journal settles such an
// intent "not applied" when it meets it: this process knows it never left. It also settles it in
// the store itself as soon as the store answers again (settleWhenStoreAnswers), so that another
// process, or this one after a restart, finds it settled rather than pending.
import { intentIdOf, type JournalEntry, type JournalStore } from "../stores.js";
import { ended } from "./outcome.js";
import { processWide } from "./process-wide.js";

/** At most this many are remembered (a store down for long, with many keys tried): the oldest go first, and are left to a person as before. */
const LIMIT = 10_000;

/** Key → the id of the intent whose write failed. On `globalThis`, as the journal's keys in flight are. */
const neverSent = processWide("never-sent", () => new Map<string, string>());

/** Notes an intent whose write failed, before anything was sent under it. */
export function noteNeverSent(intent: JournalEntry): void {
  if (intent.id === undefined) return;
  neverSent.delete(intent.key);
  neverSent.set(intent.key, intent.id);
  if (neverSent.size > LIMIT) neverSent.delete(neverSent.keys().next().value!);
}

/** True when this process noted the entry as never sent. */
export const wasNeverSent = (entry: JournalEntry): boolean => entry.id !== undefined && neverSent.get(entry.key) === entry.id;

/** Forgets the entry once its outcome is written (a write that fails keeps it, for the next time it is met). */
export function forgetNeverSent(entry: JournalEntry): void {
  if (wasNeverSent(entry)) neverSent.delete(entry.key);
}

/**
 * When the store is asked again, after an intent's write failed (ms after the try before): soon, as
 * a store that paused for a moment is back in one, then less often, for about 80 s in all. A write
 * held longer than that is met by the journal as before (settled when this process meets its key).
 */
export const SETTLE_TRIES_MS: readonly number[] = [250, 1_000, 4_000, 15_000, 60_000];

/**
 * Settles an intent whose write failed "not applied" in the store, in the background, once the
 * store shows it pending: a write that never landed leaves nothing to settle, and one that lands
 * between two tries is settled by the next. The settlement names its intent, so a store changes that
 * intent only, and only while it is unresolved. A try that fails (the store still down) waits for
 * the next. Timers do not keep the process alive; a process that ends first leaves the intent
 * pending, as before.
 */
export function settleWhenStoreAnswers(store: JournalStore, intent: JournalEntry, tries: readonly number[] = SETTLE_TRIES_MS): void {
  let tried = 0;
  const next = () => {
    if (tried >= tries.length) return;
    const timer = setTimeout(settleOnce, tries[tried++]);
    (timer as { unref?: () => void }).unref?.();
  };
  const settleOnce = async () => {
    if (!wasNeverSent(intent)) return; // the journal met it and settled it meanwhile
    try {
      const now = await store.getIntent(intent.key);
      if (now !== undefined) {
        // Replaced by another intent, or settled: nothing of ours to do. Disputed: a person's (as in the journal).
        if (intentIdOf(now) === intent.id && now.state === "pending") await store.settleIntent(intent.key, ended(intent, "not-applied"));
        return forgetNeverSent(intent);
      }
    } catch {
      // Still unreachable (or refusing): the next try asks again.
    }
    next(); // not landed, or not yet
  };
  next();
}
