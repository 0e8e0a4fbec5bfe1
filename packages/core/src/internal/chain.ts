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
import { LeaseUnavailableError, PaysysError, StoreUnavailableError } from "../errors.js";
import { KeyedQueue } from "../queue.js";
import { type ChainStore, type Fence, type Holder, type Lease, type LeaseStore, leaseLost, type SettledWithLink, type Settlement } from "../stores.js";
import { withFields } from "./objects.js";
import { sleep } from "./retry.js";
import type { AttemptStep } from "./steps.js";

export interface LeaseOptions {
  /** How long a lease lasts unless renewed, in ms. Default: twice the client's timeout, at least 60 s. */
  ttlMs?: number;
  /** How long a call waits for another live holder to give the lease back, in ms. Default 10000. */
  waitMs?: number;
  /** How long a lease is kept after the key's last call, in ms (calls that follow reuse it, and carry its outcome). Default 1000. */
  lingerMs?: number;
}

export interface HeaderChainOptions {
  /** The header that carries the link both ways. */
  header: string;
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

/** A write that keeps `link` under the name `name`, fenced by `fence`. */
export type LinkWrite = (name: string, link: string, fence: Fence) => Promise<void> | void;

const noop = () => {};

/** How long before its expiry an idle lease is given back at the latest (its waiting outcome written first), in ms. */
const RELEASE_MARGIN_MS = 2000;

/** An applied call's outcome and the link its answer carried, known here and not written yet. */
interface Deferred {
  settled: { key: string; settlement: Settlement };
  link: string;
  /** Writes them alone (the link under the key's name). */
  alone: LinkWrite;
  /** The lease it was learnt under: it is written under that lease or not at all. */
  fence: Fence;
}

/** One call's exclusive use of a key. */
export interface ChainTurn {
  readonly key: string;
  /** The lease's proof, for every write under it. */
  readonly fence: Fence;
  /** The link the next request must present: the kept one, read afresh from the service when it is not sure. */
  link(): Promise<string>;
  /** The service's current link, read now, and kept. */
  current(): Promise<string>;
  /**
   * Keeps a link an answer carried, through `write` when given (a write that keeps the link with
   * something else, atomically). A store that fails here makes the next turn read the link afresh.
   */
  keep(link: string, write?: LinkWrite): Promise<void>;
  /**
   * Keeps an applied call's link now, in memory, and writes it with the call's outcome later: carried
   * by the key's next write (`carry`), or alone (`alone`) before the lease is given back or the journal read.
   * Answers false (nothing kept) when the lease is given back after each call (`lingerMs` 0): write it now.
   */
  defer(link: string, settled: { key: string; settlement: Settlement }, alone: LinkWrite): boolean;
  /** Writes the key's deferred outcome now, alone (before the journal reads the key in this turn). */
  flush(): Promise<void>;
  /**
   * Runs a write that carries the key's deferred outcome (undefined: none). When that write fails, the
   * outcome is not written: the key is left unsure and not clear, so its intent is resolved before the next call.
   */
  carry<T>(write: (carried: SettledWithLink | undefined, fence: Fence) => Promise<T>): Promise<T>;
  /** An attempt step that presents `link` and notes the next link the answer carries. */
  step(link: string | undefined): { step: AttemptStep; next(): string | undefined };
  /**
   * Whether no unresolved intent is left on the key: set by the journal once it has resolved them
   * all under this lease, and unset while one of its own is pending. Only the lease's holder can
   * write on the key (every write is fenced), so the journal need not list them again before each call.
   */
  clear: boolean;
  /** Makes sure the lease lasts at least `ms` more, renewing it if needed; throws LeaseLostError when it was lost. */
  ensure(ms: number): Promise<void>;
}

/** What the chain keeps per key while this client holds it. */
interface Held {
  /** Undefined until the first call on the key has taken it. */
  lease: Lease | undefined;
  /** Calls queued or running on the key. */
  users: number;
  linger?: ReturnType<typeof setTimeout>;
  /** The kept link may be behind the service's (a keep failed): read it before the next request. */
  unsure: boolean;
  /** The link last kept or read under this lease (what the store holds, when not `unsure`). */
  link?: string;
  /** The journal found no unresolved intent on the key under this lease, and left none since (ChainTurn.clear). */
  clear: boolean;
  /** An outcome not written yet (ChainTurn.defer). */
  deferred?: Deferred;
  /** The last write of a deferred outcome (alone, or carried): a later write of the key, and `flush()`, wait for it. */
  flushing?: Promise<void>;
  /** How many of the key's outcomes the store failed to keep, and why the last did. */
  lapses: number;
  lapse?: unknown;
}

export class HeaderChain {
  readonly #options: HeaderChainOptions;
  readonly #queue = new KeyedQueue();
  readonly #held = new Map<string, Held>();
  readonly #ttlMs: number;
  readonly #headerNames: readonly string[];
  readonly #lingerMs: number;
  /** close() has begun: a call that answers from now on writes its outcome before it answers. */
  #closing = false;

  constructor(options: HeaderChainOptions) {
    this.#options = options;
    this.#lingerMs = options.lease?.lingerMs ?? 1000;
    this.#ttlMs = options.lease?.ttlMs ?? Math.max(60_000, 2 * options.timeoutMs);
    this.#headerNames = [options.header];
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
    const idle = [...this.#held].filter(([, h]) => h.users === 0);
    for (const [key, h] of idle) {
      clearTimeout(h.linger);
      this.#held.delete(key);
    }
    await Promise.all(idle.map(([, h]) => h.lease && this.#options.store.releaseLease(h.lease).catch(() => {})));
  }

  async #turn(key: string): Promise<ChainTurn> {
    const held = this.#held.get(key)!;
    if (held.lease === undefined || held.lease.expiresAt <= Date.now()) {
      await this.#flush(key, held); // under the lease it was learnt under (refused if that lapsed: then it is resolved below)
      held.lease = await this.#acquire(key);
      held.unsure = true; // a new tenure starts from the service's link
      held.clear = false; // and from the journal's list of what is unresolved on the key
    } else if (held.lease.expiresAt - Date.now() < this.#ttlMs / 2) {
      held.lease = await this.#renew(held.lease);
    }
    const { store, header } = this.#options;
    const name = this.#name(key);
    const fence = (): Lease => held.lease!;
    const lapses = held.lapses; // an outcome lost from here on was lost while this call waited
    const set: LinkWrite = (name, link, fence) => store.set(name, link, fence);
    const keep = async (link: string, write = set) => {
      await this.#flush(key, held); // an older link is never written over this one
      try {
        await storeCall("keep the chain link", () => write(name, link, fence()));
        held.link = link;
        held.unsure = false;
      } catch (e) {
        held.unsure = true;
        throw e;
      }
    };
    const current = async () => {
      const link = await this.#options.current(JSON.parse(key));
      await keep(link);
      return link;
    };
    return {
      key,
      get fence() {
        return fence();
      },
      get clear() {
        return held.clear;
      },
      set clear(value) {
        held.clear = value;
      },
      link: async () => (held.unsure || held.link === undefined ? current() : held.link),
      current,
      keep,
      defer: (link, settled, alone) => {
        if (this.#lingerMs <= 0 || this.#closing) return false;
        held.link = link;
        held.unsure = false;
        held.deferred = { settled, link, alone, fence: fence() };
        return true;
      },
      flush: () => this.#flush(key, held),
      carry: (write) => this.#carry(held, name, lapses, write),
      step: (link) => {
        let next: string | undefined;
        return {
          step: {
            headerNames: this.#headerNames,
            present(headers) {
              if (link !== undefined) headers.set(header, link);
              return link;
            },
            answered(answer) {
              next = answer.header(header) ?? undefined;
              return false;
            },
          },
          next: () => next,
        };
      },
      ensure: async (ms) => {
        if (fence().expiresAt - Date.now() < ms) held.lease = await this.#renew(fence(), ms);
      },
    };
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
      const lease = await storeCall("take the lease", () => store.acquireLease(name, holder, this.#ttlMs));
      if (lease) return lease;
      if (Date.now() - started >= waitMs) {
        throw new LeaseUnavailableError(`another holder has the lease ${name}, and kept it longer than ${waitMs} ms: nothing was sent`, name);
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
    const release = async () => {
      await this.#flush(key, held);
      if (this.#held.get(key) !== held || held.users > 0) return;
      this.#held.delete(key);
      if (held.lease) this.#options.store.releaseLease(held.lease).catch(() => {});
    };
    const lingerMs = this.#lingerMs;
    if (lingerMs <= 0 || held.lease === undefined) {
      release();
      return;
    }
    // Given back while it still holds: a waiting outcome is written under it (a linger past it keeps nothing).
    held.linger = setTimeout(release, Math.max(0, Math.min(lingerMs, held.lease.expiresAt - Date.now() - RELEASE_MARGIN_MS)));
    // An idle lease does not keep the process alive; an outcome still to be written does (close() writes it at once).
    if (!held.deferred) (held.linger as { unref?: () => void }).unref?.();
  }
}

/**
 * Runs a store call; a failure that is not already the SDK's becomes a StoreUnavailableError saying
 * what the SDK was doing, so a store problem is never mistaken for a network one.
 */
export async function storeCall<T>(what: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof PaysysError) throw e;
    throw new StoreUnavailableError(`the store failed to ${what}: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e });
  }
}
