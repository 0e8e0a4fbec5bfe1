// What a client shows of its journal (`client.journal`): the records of its keys, by operation and key.
import type { JournalEntry } from "../stores.js";

/** An operation and one of its idempotency keys: what names a journal entry. */
export interface JournalRef {
  operation: string;
  /** The key as the caller gave it (or, without one, the parameter that names the request, such as an order id). */
  key: string;
}

/** What `recover` found for one pending intent. */
export interface RecoveredIntent extends JournalRef {
  /** `pending`: still unknown. */
  state: JournalEntry["state"];
}

/** What a settled or pending entry says, as the caller sees it. */
export type JournalRecord = Omit<JournalEntry, "key" | "hash" | "probe"> & { key: string };

/**
 * A client's view of its journal (`client.journal`). An entry is named by its operation and key
 * (`{ operation: "operations.sale", key: "receipt-17" }`); records from `pending()` name themselves.
 */
export interface ClientJournal {
  /** The record of an operation's key: its intent, and its outcome once known. */
  get(ref: JournalRef): Promise<JournalRecord | undefined>;
  /** The intents whose outcome is not known yet. */
  pending(): Promise<JournalRecord[]>;
  /**
   * Learns the outcome of every pending intent now (after a restart, say) and tells what each was:
   * `applied`, `not-applied` (send it again with the same key), or still `pending`.
   */
  recover(): Promise<RecoveredIntent[]>;
  /**
   * Records what the service's people said of a pending intent the SDK cannot learn (`applied`: it
   * took effect; otherwise it did not, and the key may be sent again). Takes a record from
   * `pending()`, or the OutcomeUnknownError itself.
   */
  settle(ref: JournalRef | { operation?: string; key: string }, applied: boolean): Promise<void>;
}
