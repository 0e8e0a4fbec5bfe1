// Stores: where state that must outlive one call (or one process) is kept. Each contract is a small
// interface users can implement over their own database; `storeConformance` in
// `@paysys/core/testing` checks an implementation. The SDK ships an in-memory store (memory-store.ts) and, in
// `@paysys/core/node`, a file store for processes on one machine.
//
// - ChainStore: the current link of each per-key chain (a cash register's `Uid`).
// - LeaseStore: exclusive, expiring leases with a fencing value (one holder of a register at a time).
// - JournalStore: the write-ahead journal of operations that move money or change a register.
// - TokenStore: one token per credential, updated with no other writer in between.
// - CallbackStore: each webhook event processed once, and each order's last known status.
import { ConfigurationError, LeaseLostError } from "./errors.js";
import { withFields } from "./internal/objects.js";

/**
 * Who holds a lease or began an intent. `id` is unique among live holders; a program that passes
 * the same `id` after a restart is the same holder, and takes back its own lease at once. `host`
 * and `pid` let a store on one machine tell that a holder's process has died.
 */
export interface Holder {
  id: string;
  host?: string;
  pid?: number;
  /**
   * This life of the process (random, one per process): a till started again under its name, even
   * with the same pid, is another life, whose request of its last life may still be at work.
   */
  life?: string;
  /**
   * In an intent: how its wall clock stood against the machine's monotonic clock when the intent
   * was stamped (`<boot id> <offset ms>`, Linux), so a process of the same boot reads its `sendBy`
   * on a clock no one steps.
   */
  clock?: string;
}

/** The proof a lease holder shows with every write it makes under the lease. */
export interface Fence {
  /** The lease's name (a register: `fiscal/42`). */
  name: string;
  holder: string;
  /** Grows by one every time the lease is taken: a write with an older value is refused. */
  value: number;
}

/** A lease held: its fence, and when it ends unless renewed (epoch ms, the store's clock). */
export interface Lease extends Fence {
  expiresAt: number;
}

/** Where the per-key chain keeps the current link of each key (the cash register's `Uid`). */
export interface ChainStore {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  /** Stores the link. With a fence, refused (LeaseLostError) unless the fence's lease is still the holder's. */
  set(key: string, value: string, fence?: Fence): Promise<void> | void;
}

/**
 * Exclusive leases with fencing. A lease is taken when it is free, expired, already the holder's
 * (same `id`), or held by a process the store can tell is dead; every take raises the fence. Over a
 * database: one row per name (holder, fence, expiry), changed in a transaction that reads it
 * `FOR UPDATE`; over Redis, a script.
 *
 * A fenced write the client gave up on (no answer in time) may still arrive; the client then takes
 * the lease again before it sends anything on the key. The store must make that write land before
 * the take (a write holding the lease row, which the take waits for) or be refused by its old fence
 * after it: never land after the take under the old fence.
 */
export interface LeaseStore {
  /** Takes the lease, or answers undefined when another live holder has it. */
  acquireLease(name: string, holder: Holder, ttlMs: number): Promise<Lease | undefined>;
  /** Extends a lease still held under this fence; undefined when it was lost. */
  renewLease(fence: Fence, ttlMs: number): Promise<Lease | undefined>;
  /** Gives the lease up (nothing happens when it is no longer the fence's). */
  releaseLease(fence: Fence): Promise<void>;
}

/** What became of an intent. */
export type IntentState =
  /** Written before sending; the outcome is not known yet. */
  | "pending"
  /** The service did it; `answer` is its answer, unless `answerLost`. */
  | "applied"
  /** The service did not do it (known for sure): sending it again with the same key is safe. */
  | "not-applied"
  /** The service refused it and whether that is so cannot be checked: the key is spent, never sent again. */
  | "refused"
  /**
   * The answer and the service's state disagree (a refusal, while the register's chain moved): only
   * the service's people can tell. Unresolved like a pending intent, but never resolved on its own.
   */
  | "disputed";

/** Whether an intent still waits for its outcome (pending, or disputed until a person settles it). */
export const isUnresolved = (state: IntentState) => state === "pending" || state === "disputed";

/** How an intent ended. */
export interface Settlement {
  state: Exclude<IntentState, "pending">;
  answer?: unknown;
  answerLost?: boolean;
  /**
   * The SDK made the key and the caller got the answer: no caller knows the key, so none can ask
   * about it again, unless the store listed the intent while it was pending (`pendingIntents`:
   * `journal.pending()` and `recover()` show keys, and errors name the keys of a register's other
   * intents). A store may drop such an entry once it is settled instead of keeping it for its
   * retention, if it never listed it since it was begun (the memory store does: a busy till's
   * default store then holds only what can be asked).
   */
  forgettable?: boolean;
  /** A refusal as it was answered (no secret: its message was scrubbed before it was kept). */
  refusal?: { name: string; message: string; status?: number; serviceCode?: number | string; serviceMessage?: string };
  settledAt: number;
  /**
   * The intent this settles (`intentIdOf`). A store writes the settlement over that intent only
   * (`settles`): a slow resolver's "not there" never lands on an intent begun since under the same key.
   */
  intentId?: string;
}

/** An intent's id: its own, or (written by an SDK before ids) its start, `t1764000000000`. */
export const intentIdOf = (entry: { id?: string; startedAt: number }): string => entry.id ?? `t${entry.startedAt}`;

/**
 * Whether a settlement may be written over the key's entry as it stands. One that names its intent
 * (`intentId`) settles only that intent, and only while it is unresolved; once settled, only
 * `applied` replaces what is there (the service's own evidence wins over a check that did not see it
 * yet). One that names none settles whatever entry the key has (stores and callers before it).
 */
export function settles<Entry extends { id?: string; startedAt: number; state: IntentState }>(current: Entry | undefined, settlement: Settlement): current is Entry {
  if (current === undefined) return false;
  if (settlement.intentId === undefined) return true;
  if (intentIdOf(current) !== settlement.intentId) return false;
  return isUnresolved(current.state) || (settlement.state === "applied" && current.state !== "applied");
}

/**
 * One operation that moves money or changes a register, written before it is sent (the intent)
 * and settled after its answer (the outcome). Never holds a secret: the body is kept as a hash.
 */
export interface JournalEntry {
  /** The idempotency key, namespaced by the client (`fiscal 77771112233/receipt-17`). */
  key: string;
  /** This intent, apart from every other under its key (random; absent from entries of SDKs before it: see `intentIdOf`). */
  id?: string;
  operation: string;
  /** The chain key the operation ran on (a register), if any. */
  scope?: string;
  /** SHA-256 of the operation and its parameters (secrets replaced): the same key with another body is refused. */
  hash: string;
  holder: Holder;
  startedAt: number;
  /** After this instant no attempt of the intent can still be under way in its holder. */
  sendBy: number;
  /** The chain link the request presented. */
  presented?: string;
  /** The parameters of the status query that tells the outcome, and what it answered before sending. */
  probe?: { params: Record<string, unknown>; before?: unknown };
  state: IntentState;
  settlement?: Settlement;
}

/** An applied intent's outcome and the chain link its answer carried (`JournalStore.settleThenBegin`). */
export interface SettledWithLink {
  key: string;
  settlement: Settlement;
  link: { key: string; value: string };
}

/**
 * The journal: an intent before sending, its outcome after. `begin` must be durable when it
 * resolves: money is never sent without its entry. Settled entries may be dropped after a
 * retention period; pending ones never are.
 */
export interface JournalStore {
  /**
   * Writes the intent unless its key has an entry that is not `not-applied`; answers that entry then
   * (and writes nothing). A `not-applied` entry is replaced. Atomic: of two concurrent begins of
   * one key, one writes and the other is answered the entry written.
   */
  beginIntent(entry: JournalEntry, fence?: Fence): Promise<JournalEntry | undefined>;
  /**
   * Settles a pending (or disputed) intent: only the one `settlement.intentId` names, when it
   * names one (see `settles`); otherwise nothing is written. With a fence, refused unless the fence's
   * lease is still the holder's.
   */
  settleIntent(key: string, settlement: Settlement, fence?: Fence): Promise<void>;
  /**
   * Optional: settles the intent and keeps a chain link (as `ChainStore.set` would) in one atomic
   * write, both fenced by `fence`: one durable write instead of two, and no crash between them. The
   * link is kept even when the key has no entry, or the settlement is not written (`settles`). Without it, the journal keeps the link, then settles.
   */
  settleIntentWithLink?(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence): Promise<void>;
  /**
   * Optional: `settleIntentWithLink(settled…)` then `beginIntent(entry)`, in one atomic write, both
   * fenced by `fence` (nothing is written when it no longer holds): a register's calls back to back
   * cost one durable write each. With it (and `settleIntentWithLink`), the journal writes an applied
   * call's outcome after answering the call: carried by the register's next intent, or alone when the
   * register's lease is given back. A crash in between leaves the intent pending, resolved as applied by the chain.
   */
  settleThenBegin?(settled: SettledWithLink, entry: JournalEntry, fence: Fence): Promise<JournalEntry | undefined>;
  getIntent(key: string): Promise<JournalEntry | undefined>;
  /** Unresolved (pending or disputed) intents whose key starts with `prefix` (and, if given, in `scope`), oldest first. */
  pendingIntents(prefix: string, scope?: string): Promise<JournalEntry[]>;
}

/**
 * Where a credential's token is kept when a service allows one token per credential (a new one
 * kills the old: cash-out). Every client of the credential, in any process that shares the store,
 * uses the token in it; `update` runs with no other writer in between, so two processes never both
 * authorize. Over a database: `update` is a transaction that reads the row `FOR UPDATE` (or holds an
 * advisory lock), calls `decide`, writes what it returns and commits.
 */
export interface TokenStore {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  /** Reads the key's value, lets `decide` choose the new one (undefined: leave it), writes it; resolves with the value now stored. */
  update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined>;
}

/** Every contract at once: what the clients take as their `store`. */
export type Store = ChainStore & LeaseStore & JournalStore & TokenStore;

export interface StoreOptions {
  /** How long settled journal entries are kept, in ms (a key is never sent twice within it). Default 2 days. */
  journalRetentionMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

export const DEFAULT_JOURNAL_RETENTION_MS = 2 * 24 * 3600_000;
/** How long a shared store remembers a processed webhook event by default: 30 days, longer than a gateway retries. */
export const DEFAULT_CALLBACK_RETENTION_MS = 30 * 24 * 3600_000;

/**
 * The default of `landingMs`: how long after a call stopped waiting the service is taken to be still
 * acting on its request. The sources give no bound: this is the SDK's assumption (see ARCHITECTURE.md).
 */
export const DEFAULT_LANDING_MS = 10_000;
/**
 * How long after its intent is written a request may still start (a token renewed first, a slow
 * store): an intent's window (`sendBy`) is this, the attempt's timeout and `landingMs`, so a request
 * that starts late still has its whole `landingMs` after it stopped waiting.
 */
export const START_WITHIN_MS = 10_000;

/** Whether a lease record lets `holder` take it now. */
export function leaseIsTakable(current: { holder: string; expiresAt: number } | undefined, holder: Holder, now: number, holderIsDead = false): boolean {
  return current === undefined || current.expiresAt <= now || current.holder === holder.id || holderIsDead;
}

/** Whether a fence still matches the lease record (held by the same holder, same value, not expired). */
export function fenceHolds(current: { holder: string; value: number; expiresAt: number } | undefined, fence: Fence, now: number): boolean {
  return current !== undefined && current.holder === fence.holder && current.value === fence.value && current.expiresAt > now;
}

/** An entry as a store reads it back: the intent as written, with its settlement (if any) over its state. */
export function settledEntry(intent: JournalEntry, settlement: Settlement): JournalEntry {
  // Not a spread: this runs on every receipt, and a spread that adds a key is slow on Node 20 (copyInto).
  return withFields(intent, { state: settlement.state, settlement });
}

/** The longest a runtime timer waits (a longer `setTimeout` fires at once). */
export const TIMER_LIMIT_MS = 2_147_483_647;

/**
 * The longest a store keeps records (a thousand years): PostgreSQL cannot reach a timestamp much
 * further from now, and a prune that failed on one stopped pruning for good.
 */
export const RETENTION_LIMIT_MS = 1000 * 365.25 * 24 * 3600 * 1000;

/**
 * Checks a store's duration options as its server takes them: whole milliseconds from 1 to each
 * one's limit (Redis refuses a fraction in `PX`, and a script that fails partway keeps what it
 * wrote; a timer past TIMER_LIMIT_MS fires at once). A ConfigurationError names the option.
 */
export function checkDurations(store: string, options: object, limits: Readonly<Record<string, number>>): void {
  for (const [name, limit] of Object.entries(limits)) {
    const value = (options as Record<string, unknown>)[name];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > limit) {
      throw new ConfigurationError(`${store}: ${name} must be a whole number of milliseconds from 1 to ${limit}, got ${typeof value === "number" ? value : typeof value}`);
    }
  }
}

/** The error a store throws when a write comes with a fence that no longer holds. */
export const leaseLost = (fence: Fence) =>
  new LeaseLostError(`the lease ${fence.name} is no longer held by ${fence.holder} (fence ${fence.value}): nothing was written`, fence.name);

/**
 * Where a webhook receiver remembers deliveries so that each event is processed once, across
 * restarts and processes if the store is shared (e-commerce callbacks). Over a database: `claim` is
 * an insert that fails on a duplicate key (and takes over a row whose claim ran out), `complete`
 * marks the row done, `release` deletes it. A done key is remembered at least for the store's
 * retention (the memory store: for the life of the process); after it, a very late duplicate
 * would be processed again, so keep the retention longer than the sender retries.
 */
export interface CallbackStore {
  /**
   * Claims an event for processing, for `leaseMs`, under `token` (one per delivery). `"new"`: yours
   * to process now; `"processing"`: another delivery holds it (answer "not accepted", the gateway
   * sends it again); `"done"`: processed before.
   */
  claim(key: string, leaseMs: number, token: string): Promise<"new" | "processing" | "done">;
  /**
   * Extends the claim taken under `token` to `leaseMs` from now, while its delivery is still
   * processing: true when it was still that delivery's (not done, not taken over). The receiver
   * renews every third of the lease, so a live delivery's claim never runs out under it and only a
   * dead one's is taken over.
   */
  renew(key: string, leaseMs: number, token: string): Promise<boolean>;
  /** The event was processed. */
  complete(key: string): Promise<void>;
  /**
   * Processing failed: the next delivery may try again. Gives back only the claim taken under
   * `token`: once it ran out, another delivery may hold the event, and freeing that one would let a
   * third process the event while it does. A done event stays done.
   */
  release(key: string, token: string): Promise<void>;
  /** The last known callback status recorded for an order (undefined: none yet). */
  orderStatus(orderId: string): Promise<number | undefined>;
  /**
   * Records `status` as the order's status if the recorded one is still `expected` (undefined: none
   * recorded), and answers true; false when it changed meanwhile (the receiver then reads it again).
   * Over a database: `UPDATE … SET status = ? WHERE order_id = ? AND status = ?`, or an insert that
   * fails on a duplicate key when `expected` is undefined.
   */
  recordOrderStatus(orderId: string, status: number, expected: number | undefined): Promise<boolean>;
}

/**
 * Remembers webhook deliveries in this process, every processed event and every order's last status for
 * the life of the process (a late duplicate must still be recognised; the gateway does not say how
 * long it retries). A long-running server should use a store over its database.
 */
export class MemoryCallbackStore implements CallbackStore {
  readonly #entries = new Map<string, { done: boolean; until: number; token?: string }>();
  readonly #orders = new Map<string, number>();
  async claim(key: string, leaseMs: number, token: string): Promise<"new" | "processing" | "done"> {
    const entry = this.#entries.get(key);
    if (entry?.done) return "done";
    if (entry && entry.until > Date.now()) return "processing";
    this.#entries.set(key, { done: false, until: Date.now() + leaseMs, token });
    return "new";
  }
  async renew(key: string, leaseMs: number, token: string): Promise<boolean> {
    const entry = this.#entries.get(key);
    if (!entry || entry.done || entry.token !== token) return false;
    entry.until = Date.now() + leaseMs;
    return true;
  }
  async complete(key: string): Promise<void> {
    this.#entries.set(key, { done: true, until: Number.POSITIVE_INFINITY });
  }
  async release(key: string, token: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry && !entry.done && entry.token === token) this.#entries.delete(key);
  }
  async orderStatus(orderId: string): Promise<number | undefined> {
    return this.#orders.get(orderId);
  }
  async recordOrderStatus(orderId: string, status: number, expected: number | undefined): Promise<boolean> {
    if (this.#orders.get(orderId) !== expected) return false;
    this.#orders.set(orderId, status);
    return true;
  }
}
