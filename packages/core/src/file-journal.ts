// Node only (part of `@paysys/core/node`): the file store's journal on disk, one file per key in two
// folders. `pending/` holds an intent, flushed before its request is sent (and a dispute); `done/`
// its settlement, not flushed (if the machine loses it, the intent is pending again and is resolved
// by asking the service). So the pending copy stays until the settled one is on the disk, and a
// settled copy counts only when it settles the very intent the pending copy holds: one the machine
// lost (empty, cut short) or one left from an earlier intent of the key (a `not-applied` whose
// removal a power cut undid) leaves the pending intent standing.
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { flushFile, flushFolder, NOT_JSON, notJson, readJson, readJsonOr } from "./file-io.js";
import type { JournalEntry } from "./stores.js";

/** Whether a settled copy settles this intent (and not an earlier one of the same key). */
const settles = (settled: JournalEntry, intent: JournalEntry) => settled.startedAt === intent.startedAt && settled.hash === intent.hash;

/** A key's entry, from its pending copy and its settled copy (the header says which counts). */
export function readEntry(pendingFile: string, doneFile: string): JournalEntry | undefined {
  return entryOf(readJson<JournalEntry>(pendingFile), doneFile);
}

/** A key's entry, given its pending copy as read (undefined: none) and its settled copy's file. */
export function entryOf(intent: JournalEntry | undefined, doneFile: string): JournalEntry | undefined {
  const settled = readJsonOr<JournalEntry>(doneFile);
  if (settled === NOT_JSON) {
    if (intent) return intent;
    throw notJson(doneFile); // a corrupt settled copy with no intent beside it: a corrupt store
  }
  return settled && (!intent || settles(settled, intent)) ? settled : intent;
}

/**
 * The entry files of a journal folder. Anything else is a write a killed process never finished: it
 * is removed (the caller holds the store's lock, so no writer is live).
 */
export function entryFiles(folder: string): string[] {
  const names = readdirSync(folder);
  for (const name of names) if (!name.endsWith(".json")) rmSync(join(folder, name), { force: true });
  return names.filter((name) => name.endsWith(".json"));
}

/**
 * Puts settled copies on the disk and then removes their pending copies; removes settled copies that
 * do not count (lost, or an earlier intent's). Under the store's lock.
 */
export function flushSettled(pending: string, done: string): void {
  const flushed: string[] = [];
  for (const name of entryFiles(pending)) {
    const settledFile = join(done, name);
    if (!existsSync(settledFile)) continue;
    const settled = readJsonOr<JournalEntry>(settledFile);
    if (settled === NOT_JSON || (settled && !settles(settled, readJson<JournalEntry>(join(pending, name))!))) {
      rmSync(settledFile, { force: true });
      continue;
    }
    flushFile(settledFile);
    flushed.push(name);
  }
  if (flushed.length === 0) return;
  flushFolder(done); // the settled copies' names too, before their pending copies go
  for (const name of flushed) rmSync(join(pending, name), { force: true });
  flushFolder(pending);
}
