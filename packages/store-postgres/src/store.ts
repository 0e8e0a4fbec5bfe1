// PostgresStore: every store contract of `@paysys/core` over the user's own `pg` Pool, so every
// process that shares the database shares the leases, chain links, journal, tokens and webhook
// deliveries. The tables come from `migrate()`; the SQL is in statements.ts.
import {
  type CallbackStore,
  DEFAULT_CALLBACK_RETENTION_MS,
  DEFAULT_JOURNAL_RETENTION_MS,
  type Fence,
  type Holder,
  type JournalEntry,
  type Lease,
  type SettledWithLink,
  type Settlement,
  type Store,
  StoreCorruptError,
} from "@paysys/core";
import { checkDurations, leaseLost, RETENTION_LIMIT_MS, TIMER_LIMIT_MS } from "@paysys/core/internal";
import { Database, type Session, type TransactionBounds } from "./database.js";
import type { PgPool } from "./pool.js";
import { entryOf, type JournalRow, type LeaseRow, leaseOf } from "./rows.js";
import { type Statements, statementsFor } from "./statements.js";
import { resolveTables, type TableOptions } from "./tables.js";

export interface PostgresStoreOptions {
  /** The schema of the tables. Default `public`. */
  schema?: string;
  /** The tables' names: a prefix (default `paysys_`) or a name for each. Pass the same to `migrate`. */
  tables?: TableOptions;
  /** The most any store call may take (taking a connection included) before it fails with StoreUnavailableError, in ms. Default 2000. */
  timeoutMs?: number;
  /** How long settled journal entries are kept (a key is never sent twice within it), in ms. Default 2 days. */
  journalRetentionMs?: number;
  /** How long a processed webhook event is remembered (keep it longer than the sender retries), in ms. Default 30 days. */
  callbackRetentionMs?: number;
  /**
   * How long `update` waits for another process's update of the same key (an authorization under
   * way), and the longest an update may hold the key, in ms. Default 30000.
   */
  updateWaitMs?: number;
}

/** Pruning runs at most this often per store, in the background of a begin or a claim. */
const PRUNE_EVERY_MS = 60_000;
/** Rows one pruning statement drops at most: a long backlog is dropped over several, never in one long lock. */
const PRUNE_BATCH = 5_000;

export class PostgresStore implements Store, CallbackStore {
  /** The database, as errors name it (`postgres://user@host:port/db`, never a password). */
  readonly target: string;
  readonly #db: Database;
  readonly #sql: Statements;
  readonly #journalRetentionMs: number;
  readonly #callbackRetentionMs: number;
  readonly #updateWaitMs: number;
  readonly #leaseBounds: TransactionBounds;
  #prunedAt = 0;

  constructor(pool: PgPool, options: PostgresStoreOptions = {}) {
    checkDurations("@paysys/store-postgres", options, {
      timeoutMs: TIMER_LIMIT_MS,
      updateWaitMs: TIMER_LIMIT_MS,
      journalRetentionMs: RETENTION_LIMIT_MS,
      callbackRetentionMs: RETENTION_LIMIT_MS,
    });
    this.#db = new Database(pool, options.timeoutMs ?? 2000);
    this.target = this.#db.target;
    this.#sql = statementsFor(resolveTables(options));
    this.#journalRetentionMs = options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    this.#callbackRetentionMs = options.callbackRetentionMs ?? DEFAULT_CALLBACK_RETENTION_MS;
    this.#updateWaitMs = options.updateWaitMs ?? 30_000;
    this.#leaseBounds = { lockWaitMs: Math.max(1, Math.round(this.#db.timeoutMs / 2)) };
  }

  // Chain links and tokens.

  get(key: string): Promise<string | undefined> {
    return this.#db.run("read a value", async (s) => (await s.query<{ value: string }>(this.#sql.getValue, [key]))[0]?.value);
  }

  async set(key: string, value: string, fence?: Fence): Promise<void> {
    await this.#db.run("keep a value", async (s) => {
      if (!fence) return void (await s.query(this.#sql.setValue, [key, value]));
      const written = await s.query(this.#sql.setValueFenced, [key, value, ...this.#sql.fenceParams(fence)]);
      if (written.length === 0) throw leaseLost(fence);
    });
  }

  /**
   * One update of the key at a time across every process: a transaction holding an advisory lock
   * on the key while `decide` runs (an authorization, maybe). `decide`'s own time is not bounded by
   * `timeoutMs`, only by `updateWaitMs`; its errors are thrown as they are.
   */
  async update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined> {
    let decision: { failed: unknown } | undefined;
    try {
      return await this.#db.transaction("update a value", { lockWaitMs: this.#updateWaitMs }, async (s) => {
        await s.query(this.#sql.lockValue, [this.#sql.valueLockName(key)]);
        const current = (await s.query<{ value: string }>(this.#sql.getValue, [key]))[0]?.value;
        s.allow(this.#updateWaitMs);
        let next: string | undefined;
        try {
          next = await decide(current);
        } catch (e) {
          decision = { failed: e };
          throw e;
        }
        s.allow(this.#db.timeoutMs);
        if (next === undefined) return current;
        await s.query(this.#sql.setValue, [key, next]);
        return next;
      });
    } catch (e) {
      throw decision ? decision.failed : e;
    }
  }

  // Leases.

  // A lease ends `ttlMs` after its statement ran, by the database's clock; it is reported in this
  // process's clock as the instant the call began plus `ttlMs`, never later than that (a host whose
  // clock runs behind the database's would otherwise renew too late).
  //
  // A lease's row may be locked by a write the client gave up on (a statement waiting for another
  // session's lock): the client then takes the lease again before it sends anything, and that take
  // waits for the write. Each lease statement is bounded on the server too (a transaction with a
  // lock_timeout of half the store's timeout), so a take that gives up leaves no backend waiting
  // behind it: repeated, they would use up the database's connections.
  acquireLease(name: string, holder: Holder, ttlMs: number): Promise<Lease | undefined> {
    const sentAt = Date.now();
    return this.#db.transaction("take a lease", this.#leaseBounds, async (s) => {
      const [row] = await s.query<LeaseRow>(this.#sql.acquireLease, [name, holder.id, ttlMs]);
      return row && leaseOf(name, row, sentAt + ttlMs);
    });
  }

  renewLease(fence: Fence, ttlMs: number): Promise<Lease | undefined> {
    const sentAt = Date.now();
    return this.#db.transaction("renew a lease", this.#leaseBounds, async (s) => {
      const [row] = await s.query<LeaseRow>(this.#sql.renewLease, [...this.#sql.fenceParams(fence), ttlMs]);
      return row && leaseOf(fence.name, row, sentAt + ttlMs);
    });
  }

  async releaseLease(fence: Fence): Promise<void> {
    await this.#db.transaction("release a lease", this.#leaseBounds, (s) => s.query(this.#sql.releaseLease, this.#sql.fenceParams(fence)));
  }

  // The journal.

  async beginIntent(entry: JournalEntry, fence?: Fence): Promise<JournalEntry | undefined> {
    const params = [entry.key, entry.scope ?? null, entry.startedAt, JSON.stringify(entry)];
    return this.#begin(entry, fence ? [this.#sql.beginIntentFenced, [...params, ...this.#sql.fenceParams(fence)]] : [this.#sql.beginIntent, params], fence);
  }

  /** An applied intent's outcome with its chain link, then the register's next intent: one statement, whose commit waits for the disk. */
  async settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Fence): Promise<JournalEntry | undefined> {
    // The same key settled and begun: two statements, in that order (one statement would change its row twice).
    if (settled.key === entry.key) {
      await this.settleIntentWithLink(settled.key, settled.settlement, settled.link, fence);
      return this.beginIntent(entry, fence);
    }
    const { key, settlement, link } = settled;
    const params = [key, settlement.state, JSON.stringify(settlement), link.key, link.value, entry.key, entry.scope ?? null, entry.startedAt, JSON.stringify(entry)];
    return this.#begin(entry, [this.#sql.settleThenBegin, [...params, ...this.#sql.fenceParams(fence), settlement.intentId ?? null]], fence);
  }

  /** Runs a statement that writes an intent (answering `fenced`, `written`); answers the key's entry when it was not written. */
  async #begin(entry: JournalEntry, [sql, params]: [string, unknown[]], fence: Fence | undefined): Promise<JournalEntry | undefined> {
    const answer = await this.#db.run("write an intent", async (s) => {
      // The entry there may be dropped by retention between our insert and our read: then try again.
      for (let attempt = 0; attempt < 3; attempt++) {
        const [result] = await s.query<{ fenced: number; written: number }>(sql, params);
        if (fence && result!.fenced === 0) throw leaseLost(fence);
        if (result!.written === 1) return undefined;
        const [row] = await s.query<JournalRow>(this.#sql.getIntent, [entry.key]);
        if (row) return entryOf(row, this.target);
      }
      throw new StoreCorruptError(`the journal entry ${entry.key} in ${this.target} neither could be written nor read`, this.target);
    });
    this.#pruneInBackground();
    return answer;
  }

  async settleIntent(key: string, settlement: Settlement, fence?: Fence): Promise<void> {
    await this.#db.run("settle an intent", async (s) => {
      const params = [key, settlement.state, JSON.stringify(settlement), settlement.intentId ?? null];
      if (!fence) return void (await s.query(this.#sql.settleIntent, params));
      const [result] = await s.query<{ fenced: number }>(this.#sql.settleIntentFenced, [...params, ...this.#sql.fenceParams(fence)]);
      if (result!.fenced === 0) throw leaseLost(fence);
    });
  }

  async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence): Promise<void> {
    await this.#db.run("settle an intent and keep its link", async (s) => {
      const params = [key, settlement.state, JSON.stringify(settlement), link.key, link.value, ...this.#sql.fenceParams(fence), settlement.intentId ?? null];
      const [result] = await s.query<{ fenced: number }>(this.#sql.settleIntentWithLink, params);
      if (result!.fenced === 0) throw leaseLost(fence);
    });
  }

  getIntent(key: string): Promise<JournalEntry | undefined> {
    return this.#db.run("read the journal", async (s) => {
      const [row] = await s.query<JournalRow>(this.#sql.getIntent, [key]);
      return row && entryOf(row, this.target);
    });
  }

  pendingIntents(prefix: string, scope?: string): Promise<JournalEntry[]> {
    return this.#db.run("list pending intents", async (s) => {
      const rows =
        scope === undefined ? await s.query<JournalRow>(this.#sql.pendingIntents, [prefix]) : await s.query<JournalRow>(this.#sql.pendingIntentsInScope, [prefix, scope]);
      return rows.map((row) => entryOf(row, this.target));
    });
  }

  // Webhook deliveries and order statuses.

  async claim(key: string, leaseMs: number, token: string): Promise<"new" | "processing" | "done"> {
    const [row] = await this.#db.run("claim a webhook event", (s) => s.query<{ claimed: number; done: boolean | null }>(this.#sql.claim, [key, leaseMs, token]));
    this.#pruneInBackground();
    return row!.claimed === 1 ? "new" : row!.done === true ? "done" : "processing";
  }

  async renew(key: string, leaseMs: number, token: string): Promise<boolean> {
    return (await this.#db.run("renew a webhook event's claim", (s) => s.query(this.#sql.renew, [key, leaseMs, token]))).length === 1;
  }

  async complete(key: string): Promise<void> {
    await this.#db.run("mark a webhook event done", (s) => s.query(this.#sql.complete, [key]));
  }

  async release(key: string, token: string): Promise<void> {
    await this.#db.run("release a webhook event", (s) => s.query(this.#sql.release, [key, token]));
  }

  orderStatus(orderId: string): Promise<number | undefined> {
    return this.#db.run("read an order's status", async (s) => (await s.query<{ status: number }>(this.#sql.orderStatus, [orderId]))[0]?.status);
  }

  recordOrderStatus(orderId: string, status: number, expected: number | undefined): Promise<boolean> {
    return this.#db.run("record an order's status", async (s) => {
      const moved = expected === undefined ? await s.query(this.#sql.recordFirstStatus, [orderId, status]) : await s.query(this.#sql.moveStatus, [orderId, status, expected]);
      return moved.length === 1;
    });
  }

  // Retention.

  /**
   * Drops settled journal entries older than the journal retention and webhook events older than
   * the callback retention (pending and disputed intents, and claims still held, never), and
   * answers how many. The store runs it on its own at most once a minute; call it from a scheduled
   * job if you prefer.
   */
  prune(): Promise<{ journal: number; callbacks: number }> {
    const dropAll = async (s: Session, sql: string, retentionMs: number) => {
      let total = 0;
      for (;;) {
        const [row] = await s.query<{ dropped: number }>(sql, [retentionMs, PRUNE_BATCH]);
        total += row!.dropped;
        if (row!.dropped < PRUNE_BATCH) return total;
      }
    };
    return this.#db.run("drop entries past their retention", async (s) => ({
      journal: await dropAll(s, this.#sql.pruneJournal, this.#journalRetentionMs),
      callbacks: await dropAll(s, this.#sql.pruneCallbacks, this.#callbackRetentionMs),
    }));
  }

  /** Starts a pruning when the last one is a minute old; its failure waits for the next one (a store call's own error is what callers see). */
  #pruneInBackground(): void {
    const now = Date.now();
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = now;
    this.prune().catch(() => {});
  }
}
