// The memory store: every store contract in this process only (the default store of a client).
import { KeyedQueue } from "./queue.js";
import {
  DEFAULT_JOURNAL_RETENTION_MS,
  type Fence,
  fenceHolds,
  type Holder,
  isUnresolved,
  type JournalEntry,
  type Lease,
  leaseIsTakable,
  leaseLost,
  type SettledWithLink,
  type Settlement,
  type Store,
  type StoreOptions,
  settledEntry,
} from "./stores.js";

/**
 * Keeps everything in this process only: leases exclude clients of this process from each other,
 * and the journal survives as long as the process. Entries are copied in and out as JSON, as a
 * database would, so nobody changes a kept answer by changing an object.
 */
export class MemoryStore implements Store {
  readonly #values = new Map<string, string>();
  readonly #leases = new Map<string, Lease>();
  /** Each entry as JSON: the intent as written, and its settlement apart (settling never rewrites the intent). */
  readonly #journal = new Map<string, { intent: string; settlement?: string }>();
  /** The keys of unresolved intents, and their scopes: what `pendingIntents` lists without reading every entry. */
  readonly #unresolved = new Map<string, string | undefined>();
  /** The same keys by scope: a register's call lists its register's only, not every call under way (1,000 registers at once). */
  readonly #unresolvedIn = new Map<string | undefined, Set<string>>();
  /** When each settled entry was settled: what the retention prunes by. */
  readonly #settledAt = new Map<string, number>();
  readonly #queue = new KeyedQueue();
  readonly #retentionMs: number;
  readonly #now: () => number;
  #pruned = 0;

  constructor(options: StoreOptions = {}) {
    this.#retentionMs = options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
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
    this.#journal.set(entry.key, { intent: JSON.stringify(entry) });
    this.#markUnresolved(entry.key, entry.scope);
    this.#settledAt.delete(entry.key);
    return undefined;
  }

  #settle(key: string, settlement: Settlement): void {
    const kept = this.#journal.get(key);
    if (kept === undefined) return;
    kept.settlement = JSON.stringify(settlement);
    if (!isUnresolved(settlement.state)) {
      this.#markResolved(key);
      this.#settledAt.set(key, settlement.settledAt);
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
    for (const key of keys) if (key.startsWith(prefix)) out.push(this.#read(key)!);
    return out.sort((a, b) => a.startedAt - b.startedAt);
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
    for (const [key, at] of this.#settledAt) {
      if (now - at <= this.#retentionMs) continue;
      this.#journal.delete(key);
      this.#settledAt.delete(key);
    }
  }
}
