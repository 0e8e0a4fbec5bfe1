// The memory store: every store contract in this process only (the default store of a client).
import { ConfigurationError } from "./errors.js";
import { KeyedQueue } from "./queue.js";
import {
  checkDurations,
  DEFAULT_JOURNAL_RETENTION_MS,
  type Fence,
  fenceHolds,
  type Holder,
  type IntentState,
  isUnresolved,
  type JournalEntry,
  type Lease,
  leaseIsTakable,
  leaseLost,
  RETENTION_LIMIT_MS,
  type SettledWithLink,
  type Settlement,
  type Store,
  type StoreOptions,
  settledEntry,
  settles,
} from "./stores.js";

/** How many settled journal entries a `MemoryStore` keeps at most, by default (~125 MB of fiscal receipts). */
export const DEFAULT_MAX_SETTLED_ENTRIES = 100_000;

export interface MemoryStoreOptions extends StoreOptions {
  /**
   * How many settled journal entries are kept at most (default 100,000): past it the oldest settled
   * one is dropped, as the retention drops it, even within the retention. A key is then never sent
   * twice within the retention and the last this many settled calls, whichever ends first; an entry
   * costs about 1.3 kB of heap (a fiscal receipt, its answer included), so their number, not their
   * answers' size, stays bounded at any rate. Pending and disputed entries are never dropped. 0 keeps
   * no settled entry at all: a key is then refused again only while its call is unresolved.
   */
  maxSettledEntries?: number;
}

/**
 * Keeps everything in this process only: leases exclude clients of this process from each other,
 * and the journal survives as long as the process. Entries are copied in and out as JSON, as a
 * database would, so nobody changes a kept answer by changing an object.
 */
export class MemoryStore implements Store {
  readonly #values = new Map<string, string>();
  readonly #leases = new Map<string, Lease>();
  /** Each entry as JSON: the intent as written, and its settlement apart (settling never rewrites the intent). */
  /** `listed`: `pendingIntents` gave the entry out, and with it its key (which a forgettable settlement then no longer drops). */
  readonly #journal = new Map<string, { intent: string; id?: string; startedAt: number; state: IntentState; settlement?: string; listed?: boolean }>();
  /** The keys of unresolved intents, and their scopes: what `pendingIntents` lists without reading every entry. */
  readonly #unresolved = new Map<string, string | undefined>();
  /** The same keys by scope: a register's call lists its register's only, not every call under way (1,000 registers at once). */
  readonly #unresolvedIn = new Map<string | undefined, Set<string>>();
  /** When each settled entry was settled, oldest first: what the retention and the cap prune by. */
  readonly #settledAt = new Map<string, number>();
  readonly #queue = new KeyedQueue();
  readonly #retentionMs: number;
  readonly #maxSettled: number;
  readonly #now: () => number;
  #pruned = 0;

  constructor(options: MemoryStoreOptions = {}) {
    // A NaN retention never prunes by age, a negative one drops every settled entry at once.
    checkDurations("MemoryStore", options, { journalRetentionMs: RETENTION_LIMIT_MS });
    this.#retentionMs = options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    this.#maxSettled = options.maxSettledEntries ?? DEFAULT_MAX_SETTLED_ENTRIES;
    // A NaN or negative cap would keep everything without a word: the unbounded store it exists to prevent.
    if (!Number.isSafeInteger(this.#maxSettled) || this.#maxSettled < 0) {
      throw new ConfigurationError(`MemoryStore: maxSettledEntries must be a whole number ≥ 0, not ${String(options.maxSettledEntries)}`);
    }
    this.#now = options.now ?? Date.now;
  }

  get(key: string): string | undefined {
    return this.#values.get(key);
  }

  set(key: string, value: string, fence?: Fence): void {
    this.#check(fence);
    this.#values.set(key, value);
  }

  update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined> {
    return this.#queue.run(key, async () => {
      const next = await decide(this.#values.get(key));
      if (next !== undefined) this.#values.set(key, next);
      return this.#values.get(key);
    });
  }

  async acquireLease(name: string, holder: Holder, ttlMs: number): Promise<Lease | undefined> {
    const current = this.#leases.get(name);
    const now = this.#now();
    if (!leaseIsTakable(current, holder, now)) return undefined;
    const lease = { name, holder: holder.id, value: (current?.value ?? 0) + 1, expiresAt: now + ttlMs };
    this.#leases.set(name, lease);
    return { ...lease };
  }

  async renewLease(fence: Fence, ttlMs: number): Promise<Lease | undefined> {
    const current = this.#leases.get(fence.name);
    const now = this.#now();
    if (!fenceHolds(current, fence, now)) return undefined;
    current!.expiresAt = now + ttlMs;
    return { ...current! };
  }

  async releaseLease(fence: Fence): Promise<void> {
    const current = this.#leases.get(fence.name);
    if (current && current.holder === fence.holder && current.value === fence.value) current.expiresAt = 0;
  }

  // Each write checks and writes with no await in between: atomic, as the contract asks.

  async beginIntent(entry: JournalEntry, fence?: Fence): Promise<JournalEntry | undefined> {
    this.#check(fence);
    return this.#begin(entry);
  }

  async settleIntent(key: string, settlement: Settlement, fence?: Fence): Promise<void> {
    this.#check(fence);
    this.#settle(key, settlement);
  }

  async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence): Promise<void> {
    this.#check(fence);
    this.#values.set(link.key, link.value);
    this.#settle(key, settlement);
  }

  async settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Fence): Promise<JournalEntry | undefined> {
    this.#check(fence);
    this.#values.set(settled.link.key, settled.link.value);
    this.#settle(settled.key, settled.settlement);
    return this.#begin(entry);
  }

  #begin(entry: JournalEntry): JournalEntry | undefined {
    this.#prune();
    const existing = this.#read(entry.key);
    if (existing && existing.state !== "not-applied") return existing;
    this.#journal.set(entry.key, { intent: JSON.stringify(entry), id: entry.id, startedAt: entry.startedAt, state: "pending" });
    this.#markUnresolved(entry.key, entry.scope);
    this.#settledAt.delete(entry.key);
    return undefined;
  }

  #settle(key: string, settlement: Settlement): void {
    const kept = this.#journal.get(key);
    if (!settles(kept, settlement)) return;
    if (settlement.forgettable && settlement.state === "applied" && !kept.listed) {
      // Nobody can ask about this key again (stores.ts): keeping it would only fill the heap.
      this.#markResolved(key);
      this.#drop(key);
      return;
    }
    kept.settlement = JSON.stringify(settlement);
    kept.state = settlement.state;
    if (!isUnresolved(settlement.state)) {
      this.#markResolved(key);
      this.#settledAt.set(key, settlement.settledAt);
      if (this.#settledAt.size > this.#maxSettled) this.#drop(this.#settledAt.keys().next().value!);
    }
  }

  async getIntent(key: string): Promise<JournalEntry | undefined> {
    return this.#read(key);
  }

  /** A fresh copy of an entry, as a database would give it. */
  #read(key: string): JournalEntry | undefined {
    const kept = this.#journal.get(key);
    if (kept === undefined) return undefined;
    const entry = JSON.parse(kept.intent) as JournalEntry;
    if (kept.settlement === undefined) return entry;
    const settlement = JSON.parse(kept.settlement) as Settlement;
    return settledEntry(entry, settlement);
  }

  async pendingIntents(prefix: string, scope?: string): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    const keys = scope === undefined ? this.#unresolved.keys() : (this.#unresolvedIn.get(scope) ?? []);
    for (const key of keys) {
      if (!key.startsWith(prefix)) continue;
      // Listed, the key is shown (journal.pending, recover, an error naming it): asked about later, it must answer.
      this.#journal.get(key)!.listed = true;
      out.push(this.#read(key)!);
    }
    return out.length > 1 ? out.sort((a, b) => a.startedAt - b.startedAt) : out;
  }

  #markUnresolved(key: string, scope: string | undefined): void {
    this.#markResolved(key); // a replaced not-applied entry may have had another scope
    this.#unresolved.set(key, scope);
    const keys = this.#unresolvedIn.get(scope) ?? new Set<string>();
    this.#unresolvedIn.set(scope, keys);
    keys.add(key);
  }

  #markResolved(key: string): void {
    if (!this.#unresolved.has(key)) return;
    const scope = this.#unresolved.get(key);
    this.#unresolved.delete(key);
    const keys = this.#unresolvedIn.get(scope);
    keys?.delete(key);
    if (keys?.size === 0) this.#unresolvedIn.delete(scope);
  }

  #check(fence: Fence | undefined): void {
    if (fence && !fenceHolds(this.#leases.get(fence.name), fence, this.#now())) throw leaseLost(fence);
  }

  /** Drops settled entries past the retention, at most once a minute. */
  #prune(): void {
    const now = this.#now();
    if (now - this.#pruned < 60_000) return;
    this.#pruned = now;
    for (const [key, at] of this.#settledAt) if (now - at > this.#retentionMs) this.#drop(key);
  }

  #drop(key: string): void {
    this.#journal.delete(key);
    this.#settledAt.delete(key);
  }
}
