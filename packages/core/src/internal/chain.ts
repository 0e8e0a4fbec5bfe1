// The per-key chain: a value an answer returns in a header and the next request on the same key
// must present (the cash register's `Uid`). Calls on one key run one at a time, in order, under an
// exclusive lease of the key taken in the client's store; calls on different keys run in parallel.
//
// Why a lease: when an answer is lost, the only thing that tells whether the call took effect is
// whether the chain moved past the link it presented. That reading is true only if nobody else
// moved the chain meanwhile, so every program that drives a register must take its lease in the
// same store: a holder is alone on the key, and every write it makes under the lease carries the
// lease's fencing value, so a holder whose lease lapsed can neither write nor send.
//
// The lease is taken when a key's first call comes, kept while calls follow (renewed when half of
// it is spent), and given back when the key has been idle for `lingerMs`, or on `close()`. Each time
// it is taken, the key's current link is read from the service: whatever happened while this
// client did not hold the key (another holder, a crash between two writes), the chain starts from
// the truth. While the lease is held the link is also kept in memory: only the holder can write
// it (every write is fenced), so the store is read again only when this client is not sure.
//
// An applied call's outcome may be written after the call has answered (`defer`): it waits as the
// lease does for the key's next call, and rides on that call's intent (one durable write per call),
// or is written alone when the lease is given back (after `lingerMs` idle, or on `close()`), or
// before the journal is read. A crash in between leaves its intent pending: the lease's next holder
// resolves it as applied, because the chain moved past it (its answer is lost).
import { LeaseUnavailableError, StoreUnavailableError } from "../errors.js";
import { KeyedQueue } from "../queue.js";
import { type ChainStore, type Fence, type Holder, type Lease, type LeaseStore, leaseLost, type SettledWithLink } from "../stores.js";
import { type ChainTurn, type Deferred, type Held, Turn, type TurnHost } from "./chain-turn.js";
import { withFields } from "./objects.js";
import { processWide } from "./process-wide.js";
import { MAX_TIMER_MS, sleep } from "./retry.js";
import { storeCall } from "./store-call.js";

export interface LeaseOptions {
  /** How long a lease lasts unless renewed, in ms. Default: twice the client's timeout, at least 60 s. */
  ttlMs?: number;
  /** How long a call waits for another live holder to give the lease back, in ms. Default 10000. */
  waitMs?: number;
  /** How long a lease is kept after the key's last call, in ms (calls that follow reuse it, and carry its outcome). Default 1000. */
  lingerMs?: number;
  /** Read the key's current link from the service before every request that presents one, rather than trust the last answer's. */
  readLinkFirst?: boolean;
}

export interface HeaderChainOptions {
  /** The header that carries the link both ways. */
  header: string;
  /** What a link looks like (the spec's pattern for the header): an answer's value that does not match is no link. */
  linkPattern?: RegExp;
  /** Reads the service's current link of a key (given as the value the call carried). */
  current: (key: unknown) => Promise<string>;
  store: ChainStore & LeaseStore;
  holder: Holder;
  /** Prefix of lease names, so two interfaces or services never share one (`fiscal https://…`). */
  namespace: string;
  lease?: LeaseOptions;
  /** The client's per-attempt timeout: a lease must outlast any attempt started under it. */
  timeoutMs: number;
}

const noop = () => {};

/** How long before its expiry an idle lease is given back at the latest (its waiting outcome written first), in ms. */
const RELEASE_MARGIN_MS = 2000;

/**
 * Which chain of this process holds each lease (by its name): two clients of one process never hold
 * one key at once. Kept on `globalThis`, so two loaded copies of core (ESM and CommonJS) share it. The store alone cannot tell them apart when they share the program's holder name
 * (a lease is re-taken by its holder at once, as after a restart) or each have a store of their own:
 * both would take the key and present its one link twice.
 */
const tenants = processWide("lease tenants", () => new Map<string, HeaderChain>());

export class HeaderChain {
  readonly #options: HeaderChainOptions;
  readonly #queue = new KeyedQueue();
  readonly #held = new Map<string, Held>();
  readonly #ttlMs: number;
  /** What each turn needs of the chain, made once. */
  readonly #host: TurnHost;
  readonly #lingerMs: number;
  /** close() has begun: a call that answers from now on writes its outcome before it answers. */
  #closing = false;

  constructor(options: HeaderChainOptions) {
    this.#options = options;
    this.#lingerMs = options.lease?.lingerMs ?? 1000;
    this.#ttlMs = options.lease?.ttlMs ?? Math.max(60_000, 2 * options.timeoutMs);
    this.#host = {
      header: options.header,
      headerNames: [options.header],
      isLink: options.linkPattern ? (value) => options.linkPattern!.test(value) : () => true,
      set: (name, link, fence) => options.store.set(name, link, fence),
      current: (key) => options.current(key),
      flush: (key, held) => this.#flush(key, held),
      carry: (held, name, lapses, write) => this.#carry(held, name, lapses, write),
      renew: (lease, ms) => this.#renew(lease, ms),
      defers: () => this.#lingerMs > 0 && !this.#closing,
      readsFirst: options.lease?.readLinkFirst === true,
    };
  }

  /** The header the chain's links travel in. */
  get header(): string {
    return this.#options.header;
  }

  /** The kept link of a key, if any (what the next call will present). */
  async link(key: string): Promise<string | undefined> {
    const held = this.#held.get(key);
    if (held) await this.#flush(key, held);
    return (await storeCall("read the chain link", () => this.#options.store.get(this.#name(key)))) ?? undefined;
  }

  /** The name of a key's lease and link in the store: the client's namespace, then the key. */
  #name(key: string): string {
    return `${this.#options.namespace}/${key}`;
  }

  /** Runs `fn` with exclusive use of `key` (a key's value as JSON, `106`): in this client's queue for the key, under the key's lease. */
  run<T>(key: string, fn: (turn: ChainTurn) => Promise<T>): Promise<T> {
    const held = this.#held.get(key);
    if (held) {
      held.users++;
      clearTimeout(held.linger);
      held.linger = undefined;
    } else this.#held.set(key, { lease: undefined, users: 1, unsure: true, clear: false, lapses: 0 });
    return this.#queue.run(key, async () => {
      try {
        const turn = await this.#turn(key);
        return await fn(turn);
      } finally {
        this.#leave(key);
      }
    });
  }

  /** Writes every deferred outcome now (before the journal is read). */
  async flush(): Promise<void> {
    await Promise.all([...this.#held].map(([key, held]) => this.#flush(key, held)));
  }

  /** Writes every deferred outcome, then gives every idle lease back (the client is closing). */
  async close(): Promise<void> {
    this.#closing = true;
    await this.flush();
    // Given back now, each idle key but one a request may still land on (ChainTurn.hold): that one when its window ends.
    const idle = [...this.#held].filter(([, h]) => h.users === 0);
    await Promise.all(idle.map(([key, h]) => this.#giveBackLater(key, h, 0)));
  }

  /** This chain no longer holds the key: another client of the process may take it. */
  #vacate(key: string): void {
    const name = this.#name(key);
    if (tenants.get(name) === this) tenants.delete(name);
  }

  async #turn(key: string): Promise<ChainTurn> {
    const held = this.#held.get(key)!;
    if (held.lease === undefined || held.ended || held.lease.expiresAt <= Date.now()) {
      await this.#flush(key, held); // under the lease it was learnt under (refused if that lapsed: then it is resolved below)
      held.lease = await this.#acquire(key);
      held.ended = false;
      held.unsure = true; // a new tenure starts from the service's link
      held.clear = false; // and from the journal's list of what is unresolved on the key
    } else if (held.lease.expiresAt - Date.now() < this.#ttlMs / 2) {
      held.lease = await this.#renew(held.lease);
    }
    return new Turn(this.#host, key, held, this.#name(key));
  }

  /**
   * A write of the key that carries its deferred outcome. It waits for an outcome being written
   * alone; when that failed meanwhile, the turn began with the key clear and it no longer is: nothing
   * is written (so nothing is sent) and the next call resolves the key's intents first.
   */
  async #carry<T>(held: Held, name: string, lapses: number, write: (carried: SettledWithLink | undefined, fence: Fence) => Promise<T>): Promise<T> {
    await held.flushing;
    if (held.lapses !== lapses) {
      throw new StoreUnavailableError(
        "the store failed to keep the outcome of the register's previous call while this one waited: nothing was sent, and the register's intents are resolved before its next call",
        undefined,
        { cause: held.lapse },
      );
    }
    const carried = this.#take(held);
    const writing = write(carried && withFields(carried.settled, { link: { key: name, value: carried.link } }), held.lease!);
    if (carried) held.flushing = writing.then(noop, noop);
    try {
      return await writing;
    } catch (e) {
      if (carried) this.#unsure(held, e);
      throw e;
    }
  }

  /** Takes the key's deferred outcome, if any, to write it. */
  #take(held: Held): Deferred | undefined {
    const deferred = held.deferred;
    held.deferred = undefined;
    return deferred;
  }

  /** Writes a key's deferred outcome alone, now. A store that fails leaves the key unsure: the call has answered, so nothing is thrown. */
  #flush(key: string, held: Held): Promise<void> {
    const deferred = this.#take(held);
    if (deferred) {
      const write = () => deferred.alone(this.#name(key), deferred.link, deferred.fence);
      const before = held.flushing;
      held.flushing = (async () => {
        await before;
        await storeCall("settle the intent and keep its link", write).catch((e: unknown) => this.#unsure(held, e));
      })();
    }
    return held.flushing ?? Promise.resolve();
  }

  /** The store may be behind this client: read the link from the service, and list the key's unresolved intents, before the next call. */
  #unsure(held: Held, lapse: unknown): void {
    held.unsure = true;
    held.clear = false;
    held.lapses++;
    held.lapse = lapse;
  }

  /** Takes the key's lease, waiting for another live holder to give it back up to `waitMs`. */
  async #acquire(key: string): Promise<Lease> {
    const { store, holder } = this.#options;
    const name = this.#name(key);
    const waitMs = this.#options.lease?.waitMs ?? 10_000;
    const started = Date.now();
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      const tenant = tenants.get(name);
      if (tenant === undefined || tenant === this) {
        // Claimed before the store is asked: two clients of this process never ask at once.
        tenants.set(name, this);
        const lease = await storeCall("take the lease", () => store.acquireLease(name, holder, this.#ttlMs)).catch((e: unknown) => {
          if (tenant === undefined) tenants.delete(name);
          throw e;
        });
        if (lease) return lease;
        if (tenant === undefined) tenants.delete(name);
      }
      if (Date.now() - started >= waitMs) {
        throw new LeaseUnavailableError(`another holder (or another client of this process) has the lease ${name}, and kept it longer than ${waitMs} ms: nothing was sent`, name);
      }
      await sleep(pause);
    }
  }

  async #renew(lease: Lease, atLeastMs = 0): Promise<Lease> {
    const renewed = await storeCall("renew the lease", () => this.#options.store.renewLease(lease, Math.max(this.#ttlMs, atLeastMs)));
    if (!renewed) throw leaseLost(lease);
    return renewed;
  }

  /** A call on the key ended: when none is left, the lease is given back after `lingerMs`. */
  #leave(key: string): void {
    const held = this.#held.get(key);
    if (!held || --held.users > 0) return;
    void this.#giveBackLater(key, held, this.#lingerMs);
  }

  /**
   * Gives an idle key's lease back after `lingerMs`, or once no request on it can still land
   * (ChainTurn.hold), whichever is later; resolves once given back when that is now.
   */
  #giveBackLater(key: string, held: Held, lingerMs: number): Promise<void> {
    clearTimeout(held.linger);
    const release = async () => {
      await this.#flush(key, held);
      if (this.#held.get(key) !== held || held.users > 0) return;
      this.#held.delete(key);
      this.#vacate(key);
      if (held.lease) await this.#options.store.releaseLease(held.lease).catch(() => {});
    };
    // Kept while a request on the key may still land (ChainTurn.hold): whoever took it next would find
    // the chain not moved yet, and present the link that request is spending.
    const waitMs = Math.max(lingerMs, (held.holdUntil ?? 0) - Date.now());
    if (waitMs <= 0 || held.lease === undefined) return release();
    // Given back while it still holds: a waiting outcome is written under it (a linger past it keeps nothing).
    held.linger = setTimeout(release, Math.max(0, Math.min(waitMs, held.lease.expiresAt - Date.now() - RELEASE_MARGIN_MS, MAX_TIMER_MS)));
    // An idle lease does not keep the process alive; an outcome still to be written does (close() writes it at once).
    if (!held.deferred) (held.linger as { unref?: () => void }).unref?.();
    return Promise.resolve();
  }
}
