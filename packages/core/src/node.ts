// Node-only helpers, kept out of the main entry so the clients stay fetch-only for browsers.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { StoreCorruptError } from "./errors.js";
import { createWhole, dictionary, readJson, writeWhole } from "./file-io.js";
import { entryFiles, entryOf, flushSettled, readEntry } from "./file-journal.js";
import { FileLock } from "./file-lock.js";
import { holderIsGone } from "./internal/holder.js";
import { KeyedQueue } from "./queue.js";
import {
  type CallbackStore,
  checkDurations,
  DEFAULT_JOURNAL_RETENTION_MS,
  type Fence,
  fenceHolds,
  type Holder,
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
  TIMER_LIMIT_MS,
} from "./stores.js";

export { saveToFile } from "./save-to-file.js";

export interface FileStoreOptions extends StoreOptions {
  /** How long to wait for another live process's lock before giving up (StoreUnavailableError), in ms. Default 10000. */
  lockTimeoutMs?: number;
  /**
   * A lock whose process this machine cannot check (another host or pid namespace) is taken over once
   * it was not kept fresh for this long, in ms (its holder hung or died). Default 30000.
   */
  staleLockMs?: number;
}

/** A lease as the file keeps it: who holds it, from which process. */
interface LeaseRecord {
  holder: string;
  value: number;
  expiresAt: number;
  host?: string;
  pid?: number;
}

/** The store file: chain links and tokens (`values`), and leases. */
interface StoreFile {
  "paysys-store": 1;
  values: Record<string, string>;
  leases: Record<string, LeaseRecord>;
}

/** A webhook event as the file keeps it: claimed until `until` under `token`, or done (since `doneAt`). */
interface CallbackRecord {
  done: boolean;
  until: number;
  token?: string;
  doneAt?: number;
}

/** One lock per store file for all the stores of this process (they wait in line, not on the file). */
const inProcess = new KeyedQueue();

/**
 * A store kept in files, for processes on one machine: a till program that restarts continues its
 * registers' chains and finds its journal, and processes that share a credential share its token.
 *
 * - The store file (`path`) holds chain links, tokens and leases; `path.journal/` holds one file
 *   per journaled operation (`pending/` until its outcome is known, then `done/`).
 * - Every write goes to a temporary file that is flushed to disk (fsync) and then renamed over the
 *   old one: a kill at any byte leaves the old state or the new one, never half of either.
 * - Changes are made under a lock file that names its process and thread: a lock whose process has
 *   died (or whose pid names another process now) is taken over at once, on this machine; one whose
 *   process lives never is, however long it holds it. One this machine cannot check (another thread
 *   of this process, another host or pid namespace, a system without /proc) is taken over once it
 *   was not kept fresh for `staleLockMs`; a holder keeps its lock fresh, and checks it still holds it
 *   before each write (file-lock.ts).
 * - A store file that cannot be read, or that is missing while its journal exists, is a
 *   StoreCorruptError naming it: never a silent fresh start.
 * - It is a CallbackStore too (pass it as an e-commerce client's `callbackStore`): each webhook
 *   event is a file in `path.callbacks/` (claimed, then done), each order's last status one in
 *   `path.orders/`, changed under the same lock. Done events are kept for the journal's retention;
 *   order statuses are kept.
 */
export class FileStore implements Store, CallbackStore {
  readonly path: string;
  readonly #fileLock: FileLock;
  readonly #journal: string;
  readonly #options: Required<Omit<FileStoreOptions, "now">> & { now: () => number };
  #pruned = 0;
  #callbacksPruned = 0;

  constructor(path: string, options: FileStoreOptions = {}) {
    checkDurations("FileStore", options, { lockTimeoutMs: TIMER_LIMIT_MS, staleLockMs: TIMER_LIMIT_MS, journalRetentionMs: RETENTION_LIMIT_MS });
    this.path = path;
    this.#journal = `${path}.journal`;
    this.#options = {
      lockTimeoutMs: options.lockTimeoutMs ?? 10_000,
      staleLockMs: options.staleLockMs ?? 30_000,
      journalRetentionMs: options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS,
      now: options.now ?? Date.now,
    };
    this.#fileLock = new FileLock(path, { timeoutMs: this.#options.lockTimeoutMs, staleMs: this.#options.staleLockMs });
    for (const folder of ["pending", "done"]) mkdirSync(join(this.#journal, folder), { recursive: true });
    // A first start makes the store file, so that from then on a missing one is a lost store (see #read).
    if (!existsSync(path)) createWhole(path, `${JSON.stringify(this.#read())}\n`, true);
  }

  /** A chain link's or a token's value. */
  get(key: string): string | undefined {
    return this.#read().values[key];
  }

  async set(key: string, value: string, fence?: Fence): Promise<void> {
    await this.#change((file) => {
      this.#checkFence(file, fence);
      if (file.values[key] === value) return false;
      file.values[key] = value;
      return true;
    });
  }

  /** Reads a key's value, lets `decide` choose the new one (undefined: leave it) and writes it, under the lock. */
  async update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined> {
    return this.#locked(async () => {
      const current = this.#read().values[key];
      const next = await decide(current);
      if (next === undefined || next === current) return current;
      // Read again: `decide` may take long (a sign-in), and only this key is ours to write.
      const file = this.#read();
      file.values[key] = next;
      this.#write(file);
      return next;
    });
  }

  /** Takes a register's lease for `holder`, where no live holder keeps it. */
  async acquireLease(name: string, holder: Holder, ttlMs: number): Promise<Lease | undefined> {
    let taken: Lease | undefined;
    await this.#change((file) => {
      const current = file.leases[name];
      const now = this.#options.now();
      const dead = current !== undefined && holderIsGone({ id: current.holder, host: current.host, pid: current.pid });
      if (!leaseIsTakable(current, holder, now, dead)) return false;
      const record: LeaseRecord = { holder: holder.id, value: (current?.value ?? 0) + 1, expiresAt: now + ttlMs, host: holder.host, pid: holder.pid };
      file.leases[name] = record;
      taken = { name, holder: record.holder, value: record.value, expiresAt: record.expiresAt };
      return true;
    });
    return taken;
  }

  async renewLease(fence: Fence, ttlMs: number): Promise<Lease | undefined> {
    let renewed: Lease | undefined;
    await this.#change((file) => {
      const current = file.leases[fence.name];
      const now = this.#options.now();
      if (!fenceHolds(current, fence, now)) return false;
      current!.expiresAt = now + ttlMs;
      renewed = { ...fence, expiresAt: current!.expiresAt };
      return true;
    });
    return renewed;
  }

  async releaseLease(fence: Fence): Promise<void> {
    await this.#change((file) => {
      const current = file.leases[fence.name];
      if (!current || current.holder !== fence.holder || current.value !== fence.value) return false;
      current.expiresAt = 0; // the value stays: the next holder's fence is higher still
      return true;
    });
  }

  // --- journal -------------------------------------------------------------------------------

  async beginIntent(entry: JournalEntry, fence?: Fence): Promise<JournalEntry | undefined> {
    return this.#locked(async () => {
      this.#checkFence(this.#read(), fence);
      return this.#begin(entry);
    });
  }

  #begin(entry: JournalEntry): JournalEntry | undefined {
    const existing = this.#entry(entry.key);
    if (existing && existing.state !== "not-applied") return existing;
    // Durable before the request leaves: money is never sent without its entry.
    this.#commit(this.#pending(entry.key), `${JSON.stringify(entry)}\n`, true);
    if (existing) rmSync(this.#done(entry.key), { force: true });
    this.#prune();
    return undefined;
  }

  async settleIntent(key: string, settlement: Settlement, fence?: Fence): Promise<void> {
    await this.#locked(async () => {
      this.#checkFence(this.#read(), fence);
      this.#settle(key, settlement);
    });
  }

  /** The link and the outcome under one lock: one turn of the lock file instead of two. */
  async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence): Promise<void> {
    await this.#locked(async () => this.#settleWithLink({ key, settlement, link }, fence));
  }

  /** The outcome, then the next intent, under one lock. */
  async settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Fence): Promise<JournalEntry | undefined> {
    return this.#locked(async () => {
      this.#settleWithLink(settled, fence);
      return this.#begin(entry);
    });
  }

  #settleWithLink({ key, settlement, link }: SettledWithLink, fence: Fence): void {
    const file = this.#read();
    this.#checkFence(file, fence);
    if (file.values[link.key] !== link.value) {
      file.values[link.key] = link.value;
      this.#write(file);
    }
    this.#settle(key, settlement);
  }

  #settle(key: string, settlement: Settlement): void {
    const entry = this.#entry(key);
    if (!settles(entry, settlement)) return;
    const settled = `${JSON.stringify(settledEntry(entry, settlement))}\n`;
    // A dispute stays among the unresolved; so that a machine that loses it never forgets one, it is flushed.
    if (settlement.state === "disputed") {
      this.#commit(this.#pending(key), settled, true);
      return;
    }
    // Not flushed, and the pending copy stays until the prune has flushed this one (file-journal.ts).
    this.#commit(this.#done(key), settled, false);
  }

  async getIntent(key: string): Promise<JournalEntry | undefined> {
    return this.#entry(key);
  }

  async pendingIntents(prefix: string, scope?: string): Promise<JournalEntry[]> {
    const out: JournalEntry[] = [];
    for (const name of readdirSync(join(this.#journal, "pending"))) {
      if (!name.endsWith(".json")) continue;
      const entry = readJson<JournalEntry>(join(this.#journal, "pending", name));
      if (!entry || !isUnresolved(entry.state) || !entry.key.startsWith(prefix) || (scope !== undefined && entry.scope !== scope)) continue;
      if (entryOf(entry, this.#done(entry.key)) !== entry) continue; // settled; its pending copy goes with the prune
      out.push(entry);
    }
    return out.sort((a, b) => a.startedAt - b.startedAt);
  }

  // --- webhook deliveries (CallbackStore) ------------------------------------------------------

  async claim(key: string, leaseMs: number, token: string): Promise<"new" | "processing" | "done"> {
    return this.#locked(async () => {
      const file = this.#callback(key);
      const event = readJson<CallbackRecord>(file);
      if (event?.done) return "done";
      if (event && event.until > Date.now()) return "processing";
      // Not flushed: a claim lost with the machine lets the next delivery process the event, as a lapsed claim would.
      this.#commit(file, `${JSON.stringify({ done: false, until: Date.now() + leaseMs, token } satisfies CallbackRecord)}\n`, false, true);
      return "new";
    });
  }

  async renew(key: string, leaseMs: number, token: string): Promise<boolean> {
    return this.#locked(async () => {
      const file = this.#callback(key);
      const event = readJson<CallbackRecord>(file);
      if (!event || event.done || event.token !== token) return false;
      this.#commit(file, `${JSON.stringify({ done: false, until: Date.now() + leaseMs, token } satisfies CallbackRecord)}\n`, false, true);
      return true;
    });
  }

  async complete(key: string): Promise<void> {
    await this.#locked(async () => {
      // Flushed: a processed event must never be processed again, whatever the machine does.
      this.#commit(this.#callback(key), `${JSON.stringify({ done: true, until: 0, doneAt: Date.now() } satisfies CallbackRecord)}\n`, true, true);
      this.#pruneCallbacks();
    });
  }

  async release(key: string, token: string): Promise<void> {
    await this.#locked(async () => {
      const file = this.#callback(key);
      const event = readJson<CallbackRecord>(file);
      if (event && !event.done && event.token === token) {
        this.#fileLock.assertHeld();
        rmSync(file, { force: true });
      }
    });
  }

  async orderStatus(orderId: string): Promise<number | undefined> {
    return readJson<{ status: number }>(this.#order(orderId))?.status;
  }

  async recordOrderStatus(orderId: string, status: number, expected: number | undefined): Promise<boolean> {
    return this.#locked(async () => {
      const file = this.#order(orderId);
      if (readJson<{ status: number }>(file)?.status !== expected) return false;
      this.#commit(file, `${JSON.stringify({ status })}\n`, true, true);
      return true;
    });
  }

  // --- files ---------------------------------------------------------------------------------

  #fileName = (key: string) => `${createHash("sha256").update(key).digest("hex")}.json`;
  #pending = (key: string) => join(this.#journal, "pending", this.#fileName(key));
  #done = (key: string) => join(this.#journal, "done", this.#fileName(key));
  #callback = (key: string) => join(`${this.path}.callbacks`, this.#fileName(key));
  #order = (orderId: string) => join(`${this.path}.orders`, this.#fileName(orderId));

  /** A key's entry (file-journal.ts says which copy counts). */
  #entry(key: string): JournalEntry | undefined {
    return readEntry(this.#pending(key), this.#done(key));
  }

  #read(): StoreFile {
    const parsed = readJson<unknown>(this.path);
    if (parsed === undefined) {
      // A first start has no journal entries; a store file gone while its journal stayed is a lost store.
      const kept = readdirSync(join(this.#journal, "pending")).length + readdirSync(join(this.#journal, "done")).length;
      if (kept > 0)
        throw new StoreCorruptError(`the store file ${this.path} is missing, while its journal (${this.#journal}) is not: it was not replaced by a fresh one`, this.path);
      return { "paysys-store": 1, values: dictionary({}), leases: dictionary({}) };
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new StoreCorruptError(`the store file ${this.path} does not hold a store`, this.path);
    const file = parsed as Partial<StoreFile> & Record<string, unknown>;
    const current = file["paysys-store"] === 1 && typeof file.values === "object" && typeof file.leases === "object";
    if (current) return { "paysys-store": 1, values: dictionary(file.values!), leases: dictionary(file.leases!) };
    // The first format: a flat object of chain links and tokens.
    if (Object.values(file).every((v) => typeof v === "string")) return { "paysys-store": 1, values: dictionary(file as Record<string, string>), leases: dictionary({}) };
    throw new StoreCorruptError(`the store file ${this.path} does not hold a store this version reads`, this.path);
  }

  /** Writes a file whole under the lock, unless the lock is no longer this store's (FileLock.assertHeld): then nothing is written. */
  #commit(path: string, text: string, durable: boolean, makeFolder = false): void {
    writeWhole(path, text, durable, makeFolder, () => this.#fileLock.assertHeld());
  }

  #write(file: StoreFile): void {
    this.#commit(this.path, `${JSON.stringify(file)}\n`, true);
  }

  #checkFence(file: StoreFile, fence: Fence | undefined): void {
    if (fence && !fenceHolds(file.leases[fence.name], fence, this.#options.now())) throw leaseLost(fence);
  }

  /** Reads the store file, lets `change` edit it (answering whether it did), writes it: under the lock. */
  #change(change: (file: StoreFile) => boolean): Promise<void> {
    return this.#locked(async () => {
      const file = this.#read();
      if (change(file)) this.#write(file);
    });
  }

  /** Drops settled journal entries past the retention, at most once a minute. */
  #prune(): void {
    const now = this.#options.now();
    if (now - this.#pruned < 60_000) return;
    this.#pruned = now;
    const [done, pending] = [join(this.#journal, "done"), join(this.#journal, "pending")];
    flushSettled(pending, done);
    for (const name of entryFiles(done)) {
      const entry = readJson<JournalEntry>(join(done, name));
      if (entry?.settlement && now - entry.settlement.settledAt > this.#options.journalRetentionMs) rmSync(join(done, name), { force: true });
    }
  }

  /** Drops done webhook events past the journal's retention, at most once a minute. */
  #pruneCallbacks(): void {
    const now = this.#options.now();
    if (now - this.#callbacksPruned < 60_000) return;
    this.#callbacksPruned = now;
    const folder = `${this.path}.callbacks`;
    for (const name of readdirSync(folder)) {
      if (!name.endsWith(".json")) continue;
      const event = readJson<CallbackRecord>(join(folder, name));
      if (event?.done && event.doneAt !== undefined && now - event.doneAt > this.#options.journalRetentionMs) rmSync(join(folder, name), { force: true });
    }
  }

  /** Runs `fn` holding the store's lock: first in this process's line, then the lock file across processes. */
  #locked<T>(fn: () => Promise<T>): Promise<T> {
    return inProcess.run(this.path, () => this.#fileLock.holding(fn));
  }
}
