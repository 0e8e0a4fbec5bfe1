// Rows read back into the SDK's records. A row the store did not write (edited by hand, a half
// restored backup) is a StoreCorruptError naming its key, never a guess: the journal decides
// whether money is sent again.
import { type IntentState, type JournalEntry, type Lease, type Settlement, StoreCorruptError } from "@paysys/core";
import { settledEntry } from "@paysys/core/internal";

export interface JournalRow {
  key: string;
  state: string;
  intent: string;
  settlement: string | null;
}

export interface LeaseRow {
  holder: string;
  fence: string | number;
}

const STATES: readonly IntentState[] = ["pending", "applied", "not-applied", "refused", "disputed"];
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The entry as it was written, with its settlement (settling never rewrites the intent). */
export function entryOf(row: JournalRow, target: string): JournalEntry {
  const corrupt = (why: string) => new StoreCorruptError(`the journal entry ${row.key} in ${target} is not one the store wrote: ${why}`, target);
  const parse = (text: string, what: string) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw corrupt(`its ${what} is not JSON`);
    }
  };
  const entry = parse(row.intent, "intent");
  if (!isObject(entry) || entry.key !== row.key || typeof entry.operation !== "string" || typeof entry.hash !== "string" || !isObject(entry.holder)) {
    throw corrupt("its intent lacks the key, operation, hash or holder");
  }
  if (typeof entry.startedAt !== "number" || typeof entry.sendBy !== "number") throw corrupt("its intent lacks startedAt or sendBy");
  if (!STATES.includes(row.state as IntentState)) throw corrupt(`its state ${JSON.stringify(row.state)} is unknown`);
  if (row.settlement === null) {
    if (row.state !== "pending") throw corrupt(`it is ${row.state} without a settlement`);
    return entry as unknown as JournalEntry;
  }
  const settlement = parse(row.settlement, "settlement");
  if (!isObject(settlement) || settlement.state !== row.state) throw corrupt("its settlement does not match its state");
  return settledEntry(entry as unknown as JournalEntry, settlement as unknown as Settlement);
}

/** A lease row as the contract's Lease, ending at `expiresAt` by this process's clock. */
export const leaseOf = (name: string, row: LeaseRow, expiresAt: number): Lease => ({ name, holder: row.holder, value: Number(row.fence), expiresAt });
