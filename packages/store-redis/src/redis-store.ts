// The store over Redis (or Valkey): every contract of @paysys/core's stores.ts on the user's
// connected node-redis client. Writes and the journal's reads are Lua scripts under the store's
// generation (scripts.ts says why); other reads are plain GETs (a value lost is learnt again: a chain
// link from the service, a token by signing in). The README documents the key layout, the expiry and
// what the store assumes of the server.
import {
  type CallbackStore,
  DEFAULT_CALLBACK_RETENTION_MS,
  DEFAULT_JOURNAL_RETENTION_MS,
  type Fence,
  type Holder,
  type JournalEntry,
  type Lease,
  LeaseLostError,
  type SettledWithLink,
  type Settlement,
  type Store,
  StoreCorruptError,
  StoreUnavailableError,
} from "@paysys/core";
import { checkDurations, isUnresolved, leaseLost, RETENTION_LIMIT_MS, settledEntry, TIMER_LIMIT_MS } from "@paysys/core/internal";
import { Connection, type RedisCommandClient, storeName } from "./connection.js";
import { type KeyLayout, keyLayout } from "./keys.js";
import * as scripts from "./scripts.js";

/** A begin script's answer: "ok", or "exists" with the entry the key has. */
type BeginAnswer = [string, string?, string?];

/** The options of a RedisStore: all optional (README: "Options"). */
export interface RedisStoreOptions {
  /** Prepended to every key the store writes. Default `paysys:`. */
  prefix?: string;
  /** How long any call to Redis may take before it fails with StoreUnavailableError, in ms. Default 2000. */
  timeoutMs?: number;
  /** How long settled journal entries are kept, in ms (the server's clock). Default 2 days. */
  journalRetentionMs?: number;
  /** How long a processed webhook event (and an order's last status) is remembered, in ms. Default 30 days. */
  callbackRetentionMs?: number;
  /** How long `update` waits for another process's update of the same key before failing with StoreUnavailableError, in ms. Default 30000. */
  lockWaitMs?: number;
}

/**
 * How long the lock of `update` lasts without renewal: its owner renews it every third of this while
 * its decision runs, so only a holder that died keeps others waiting, and for this long at most.
 */
const VALUE_LOCK_MS = 10_000;

type Send = <R>(args: string[]) => Promise<R>;

/** Keeps the SDK's state in Redis, shared by every process that uses the same server and prefix. */
export class RedisStore implements Store, CallbackStore {
  readonly #connection: Connection;
  readonly #keys: KeyLayout;
  readonly #journalRetentionMs: number;
  readonly #callbackRetentionMs: number;
  readonly #lockWaitMs: number;
  /** The generation this store opened (scripts.ts: every write checks it is still the server's). */
  #generation: Promise<string> | undefined;

  /** `client`: your connected node-redis v5 client (`createClient(...).connect()`); the store never connects or closes it. */
  constructor(client: RedisCommandClient, options: RedisStoreOptions = {}) {
    checkDurations("@paysys/store-redis", options, {
      timeoutMs: TIMER_LIMIT_MS,
      lockWaitMs: TIMER_LIMIT_MS,
      journalRetentionMs: RETENTION_LIMIT_MS,
      callbackRetentionMs: RETENTION_LIMIT_MS,
    });
    const prefix = options.prefix ?? "paysys:";
    this.#keys = keyLayout(prefix);
    this.#connection = new Connection(client, storeName(client, prefix), options.timeoutMs ?? 2000);
    this.#journalRetentionMs = options.journalRetentionMs ?? DEFAULT_JOURNAL_RETENTION_MS;
    this.#callbackRetentionMs = options.callbackRetentionMs ?? DEFAULT_CALLBACK_RETENTION_MS;
    this.#lockWaitMs = options.lockWaitMs ?? 30_000;
  }

  // Chain links and tokens.

  get(key: string): Promise<string | null> {
    return this.#connection.run("get", (send) => send<string | null>(["GET", this.#keys.value(key)]));
  }

  async set(key: string, value: string, fence?: Fence): Promise<void> {
    await this.#scripted("set", scripts.setValue, [this.#keys.value(key)], [value], fence);
  }

  /**
   * Runs `decide` under a lock of the key, so no other process writes the key in between. A lock, not
   * WATCH/MULTI with retries: `decide` obtains a token (a new one kills the old), and must not run
   * twice. The lock's owner id is its fence: the write is refused when the lock was lost meanwhile.
   */
  async update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined> {
    const lock = this.#keys.valueLock(key);
    const value = this.#keys.value(key);
    const owner = crypto.randomUUID();
    const current = await this.#takeValueLock(key, lock, value, owner);
    const renewal = setInterval(() => {
      this.#connection.run("update (renew its lock)", (send) => this.#connection.script(send, scripts.extendValueLock, [lock], [owner, String(VALUE_LOCK_MS)])).catch(() => {}); // the write below finds out whether the lock held
    }, VALUE_LOCK_MS / 3);
    renewal.unref?.();
    let next: string | undefined;
    try {
      next = await decide(current ?? undefined);
    } catch (e) {
      clearInterval(renewal);
      await this.#connection.run("update (free its lock)", (send) => this.#connection.script(send, scripts.freeValueLock, [lock], [owner])).catch(() => {});
      throw e;
    }
    clearInterval(renewal);
    const [state, stored] = await this.#scripted<[string, string | null]>("update", scripts.writeUnderValueLock, [lock, value], next === undefined ? [owner] : [owner, next]);
    if (state === "fence") throw new LeaseLostError(`the lock of ${key} in ${this.#connection.name} ran out while its update decided: nothing was written`, key);
    return stored ?? undefined;
  }

  /** Takes the key's lock, waiting for another owner up to lockWaitMs; answers the value under it. */
  async #takeValueLock(key: string, lock: string, value: string, owner: string): Promise<string | null> {
    const started = Date.now();
    for (let pause = 2; ; pause = Math.min(pause * 2, 20)) {
      const [state, current] = await this.#scripted<[string, string | null]>("update (take its lock)", scripts.takeValueLock, [lock, value], [owner, String(VALUE_LOCK_MS)]);
      if (state === "ok") return current;
      if (Date.now() - started >= this.#lockWaitMs) {
        throw new StoreUnavailableError(
          `the Redis store ${this.#connection.name}: another update of ${key} held its lock for more than ${this.#lockWaitMs} ms`,
          this.#connection.name,
        );
      }
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  // Leases.

  async acquireLease(name: string, holder: Holder, ttlMs: number): Promise<Lease | undefined> {
    // The expiry is reported in this process's clock, from before the request: never later than the server's own.
    const sentAt = Date.now();
    const [state, fence] = await this.#scripted<[string, number]>("acquireLease", scripts.acquireLease, [this.#keys.lease(name)], [holder.id, String(ttlMs)]);
    return state === "ok" ? { name, holder: holder.id, value: fence, expiresAt: sentAt + ttlMs } : undefined;
  }

  async renewLease(fence: Fence, ttlMs: number): Promise<Lease | undefined> {
    const sentAt = Date.now();
    const state = await this.#scripted<string>("renewLease", scripts.renewLease, [this.#keys.lease(fence.name)], [String(ttlMs), fence.holder, String(fence.value)]);
    return state === "ok" ? { name: fence.name, holder: fence.holder, value: fence.value, expiresAt: sentAt + ttlMs } : undefined;
  }

  async releaseLease(fence: Fence): Promise<void> {
    await this.#connection.run("releaseLease", (send) => this.#connection.script(send, scripts.releaseLease, [this.#keys.lease(fence.name)], [fence.holder, String(fence.value)]));
  }

  // The journal.

  async beginIntent(entry: JournalEntry, fence?: Fence): Promise<JournalEntry | undefined> {
    const answer = await this.#scripted<BeginAnswer>(
      "beginIntent",
      scripts.beginIntent,
      [this.#keys.journal(entry.key), this.#keys.unresolved],
      [entry.key, JSON.stringify(entry)],
      fence,
    );
    return this.#begun(entry, answer);
  }

  /** An applied intent's outcome with its chain link, then the register's next intent: one script (one flush under appendfsync always). */
  async settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Fence): Promise<JournalEntry | undefined> {
    const keys = [this.#keys.journal(settled.key), this.#keys.unresolved, this.#keys.value(settled.link.key), this.#keys.journal(entry.key)];
    const args = [...this.#settlementArgs(settled.key, settled.settlement), settled.link.value, entry.key, JSON.stringify(entry)];
    return this.#begun(entry, await this.#scripted<BeginAnswer>("settleThenBegin", scripts.settleThenBegin, keys, args, fence));
  }

  /** What a begin answered: nothing when it wrote, else the entry the key already has. */
  #begun(entry: JournalEntry, [state, intent, settlement]: BeginAnswer): JournalEntry | undefined {
    return state === "exists" ? this.#entry(entry.key, intent!, settlement) : undefined;
  }

  async settleIntent(key: string, settlement: Settlement, fence?: Fence): Promise<void> {
    await this.#scripted("settleIntent", scripts.settleIntent, [this.#keys.journal(key), this.#keys.unresolved], this.#settlementArgs(key, settlement), fence);
  }

  async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence): Promise<void> {
    const keys = [this.#keys.journal(key), this.#keys.unresolved, this.#keys.value(link.key)];
    await this.#scripted("settleIntentWithLink", scripts.settleIntentWithLink, keys, [...this.#settlementArgs(key, settlement), link.value], fence);
  }

  /** A settlement as the scripts take it: key, JSON, state, how long the entry is kept, and the intent it settles (or ""). */
  #settlementArgs(key: string, settlement: Settlement): string[] {
    const keep = isUnresolved(settlement.state) ? "unresolved" : String(this.#journalRetentionMs);
    return [key, JSON.stringify(settlement), settlement.state, keep, settlement.intentId ?? ""];
  }

  async getIntent(key: string): Promise<JournalEntry | undefined> {
    const [, intent, settlement] = await this.#scripted<[string, string | null, string | null]>("getIntent", scripts.getIntent, [this.#keys.journal(key)], []);
    return intent === null ? undefined : this.#entry(key, intent, settlement);
  }

  async pendingIntents(prefix: string, scope?: string): Promise<JournalEntry[]> {
    const flat = await this.#scripted<string[]>("pendingIntents", scripts.pendingIntents, [this.#keys.unresolved], [prefix, this.#keys.journal("")]);
    const entries: JournalEntry[] = [];
    for (let i = 1; i < flat.length; i += 3) {
      const entry = this.#entry(flat[i]!, flat[i + 1]!, flat[i + 2] || null);
      if (scope === undefined || entry.scope === scope) entries.push(entry);
    }
    return entries.sort((a, b) => a.startedAt - b.startedAt);
  }

  /** An entry as kept: the intent as written, with its settlement (if any) over its state. */
  #entry(key: string, intent: string, settlement: string | null | undefined): JournalEntry {
    const written = this.#parse<JournalEntry>(key, intent);
    if (!settlement) return written;
    const settled = this.#parse<Settlement>(key, settlement);
    return settledEntry(written, settled);
  }

  #parse<T>(key: string, json: string): T {
    try {
      return JSON.parse(json) as T;
    } catch {
      throw new StoreCorruptError(`the Redis store ${this.#connection.name} holds a journal entry that is not JSON under ${this.#keys.journal(key)}`, this.#connection.name);
    }
  }

  // Webhook deliveries and order statuses.

  claim(key: string, leaseMs: number, token: string): Promise<"new" | "processing" | "done"> {
    return this.#scripted("claim", scripts.claimCallback, [this.#keys.callback(key)], [String(Math.ceil(leaseMs)), token]);
  }

  async renew(key: string, leaseMs: number, token: string): Promise<boolean> {
    return (await this.#scripted<string>("renew", scripts.renewCallback, [this.#keys.callback(key)], [String(Math.ceil(leaseMs)), token])) === "ok";
  }

  async complete(key: string): Promise<void> {
    await this.#scripted("complete", scripts.completeCallback, [this.#keys.callback(key)], [String(this.#callbackRetentionMs)]);
  }

  async release(key: string, token: string): Promise<void> {
    await this.#connection.run("release", (send) => this.#connection.script(send, scripts.releaseCallback, [this.#keys.callback(key)], [token]));
  }

  async orderStatus(orderId: string): Promise<number | undefined> {
    const status = await this.#connection.run("orderStatus", (send) => send<string | null>(["GET", this.#keys.order(orderId)]));
    if (status === null) return undefined;
    const n = Number(status);
    if (!Number.isFinite(n))
      throw new StoreCorruptError(`the Redis store ${this.#connection.name} holds an order status that is not a number under ${this.#keys.order(orderId)}`, this.#connection.name);
    return n;
  }

  async recordOrderStatus(orderId: string, status: number, expected: number | undefined): Promise<boolean> {
    const state = await this.#scripted<string>(
      "recordOrderStatus",
      scripts.recordOrderStatus,
      [this.#keys.order(orderId)],
      [String(status), expected === undefined ? "" : String(expected), String(this.#callbackRetentionMs)],
    );
    return state === "ok";
  }

  /**
   * Runs a script under the store's generation (and the fence, if any): every write, and the journal's
   * reads. A script that answers "lost" means the data under the prefix is not what this store wrote,
   * "fence" that the lease is lost.
   */
  async #scripted<R>(operation: string, source: string, keys: string[], args: string[], fence?: Fence): Promise<R> {
    const answer = await this.#connection.run(operation, async (send) => {
      const generation = await this.#opened(send);
      const fenced = fence ? { keys: [this.#keys.lease(fence.name)], args: [fence.holder, String(fence.value)] } : { keys: [], args: [] };
      return this.#connection.script<R>(send, source, [this.#keys.generation, ...keys, ...fenced.keys], [generation, ...args, ...fenced.args]);
    });
    const state = Array.isArray(answer) ? answer[0] : answer;
    // Every script answers its state as text first: anything else (a client that decodes answers its
    // own way) is never read as a state it merely fails to equal, such as "written" for a begin.
    if (typeof state !== "string") {
      throw new StoreCorruptError(
        `the Redis store ${this.#connection.name} answered ${operation} with ${describeAnswer(state)} where its script answers text: the client decodes answers its own way (only node-redis's own decoding is supported)`,
        this.#connection.name,
      );
    }
    if (state === "lost") {
      throw new StoreCorruptError(
        `the Redis store ${this.#connection.name} lost the data this process wrote (a restart without its append-only file, a failover to a replica behind, a flush): ${operation} refused to carry on as if nothing had been written`,
        this.#connection.name,
      );
    }
    if (state === "fence" && fence) throw leaseLost(fence);
    return answer;
  }

  /** The generation in force when this store first wrote, created if the server has none. */
  #opened(send: Send): Promise<string> {
    this.#generation ??= this.#connection.script<string>(send, scripts.openGeneration, [this.#keys.generation], [crypto.randomUUID()]);
    const opening = this.#generation;
    opening.catch(() => {
      if (this.#generation === opening) this.#generation = undefined; // opened again by the next write
    });
    return opening;
  }
}

/** What an answer is, for an error: its type, never its content. */
function describeAnswer(answer: unknown): string {
  if (answer === null || answer === undefined) return String(answer);
  const name = (answer as { constructor?: { name?: string } }).constructor?.name;
  return `a ${name ?? typeof answer}`;
}
