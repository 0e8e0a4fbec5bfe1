// Intents whose write failed, so this process sent nothing under them. A write that did not answer
// may still land later (a script behind a paused server, a statement waiting for a lock): its intent
// then reads as pending, and for an operation whose outcome nothing can check (a cash-out request)
// it stayed so for good, though its call had said "nothing was sent". The journal settles such an
// intent "not applied" when it meets it: this process knows it never left.
import type { JournalEntry } from "../stores.js";
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
