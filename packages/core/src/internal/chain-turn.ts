// A call's turn on a chained key (chain.ts): what the call may do with the key's link and lease
// while it holds the key, as one object per call.
import type { Fence, Lease, SettledWithLink, Settlement } from "../stores.js";
import type { OperationSpec } from "./operation.js";
import type { AnswerHead, AttemptStep, HeaderSink } from "./steps.js";
import { storeCall } from "./store-call.js";

/** A write that keeps `link` under the name `name`, fenced by `fence`. */
export type LinkWrite = (name: string, link: string, fence: Fence) => Promise<void> | void;

/** An applied call's outcome and the link its answer carried, known here and not written yet. */
export interface Deferred {
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
  /** The link the next request must present: the kept one, read afresh from the service when it is not sure (or always, `readsFirst`). */
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
  /** An attempt step that presents `link` and notes the next link the answer carries (`next()`). */
  step(link: string | undefined): LinkStep;
  /**
   * Whether no unresolved intent is left on the key: set by the journal once it has resolved them
   * all under this lease, and unset while one of its own is pending. Only the lease's holder can
   * write on the key (every write is fenced), so the journal need not list them again before each call.
   */
  clear: boolean;
  /** Makes sure the lease lasts at least `ms` more, renewing it if needed; throws LeaseLostError when it was lost. */
  ensure(ms: number): Promise<void>;
  /**
   * The key's link is no longer known: a call took effect and its answer carried no next link (it was
   * lost, or came without one, or gave the presented one back). The next request reads it afresh.
   */
  doubt(): void;
  /** Keeps the key's lease until `until` at least: a request on it may still reach the service until then. */
  hold(until: number): void;
  /**
   * A write under the lease failed and may still land (its answer was lost, not refused): the lease
   * ends for this client, and the key's next call takes it again, which raises the fence. The late
   * write then either is in the store before that take lists the key's intents, or is refused by its
   * stale fence; it never lands after a request the key sent since.
   */
  abandon(): void;
}

/** What the chain keeps per key while this client holds it. */
export interface Held {
  /** Undefined until the first call on the key has taken it. */
  lease: Lease | undefined;
  /**
   * The lease ended for this client (ChainTurn.abandon): the next call takes it again. It is still
   * given back when the key is idle, as it would have been (a no-op once it was taken again).
   */
  ended?: boolean;
  /** Calls queued or running on the key. */
  users: number;
  linger?: ReturnType<typeof setTimeout>;
  /** The kept link may be behind the service's (a keep failed): read it before the next request. */
  unsure: boolean;
  /** The link last kept or read under this lease (what the store holds, when not `unsure`). */
  link?: string;
  /** The journal found no unresolved intent on the key under this lease, and left none since (ChainTurn.clear). */
  clear: boolean;
  /** Until when the lease is kept whatever `lingerMs` says (ChainTurn.hold). */
  holdUntil?: number;
  /** An outcome not written yet (ChainTurn.defer). */
  deferred?: Deferred;
  /** The last write of a deferred outcome (alone, or carried): a later write of the key, and `flush()`, wait for it. */
  flushing?: Promise<void>;
  /** How many of the key's outcomes the store failed to keep, and why the last did. */
  lapses: number;
  lapse?: unknown;
}

/** What a turn needs of its chain: made once per chain and shared by its turns. */
export interface TurnHost {
  readonly header: string;
  readonly headerNames: readonly string[];
  /** Whether an answer's header value is a link at all (two headers joined into one, `a, b`, is not). */
  isLink(value: string): boolean;
  /** The store's plain write of a link. */
  readonly set: LinkWrite;
  /** The service's current link of a key (given as the value the call carried). */
  current(key: unknown): Promise<string>;
  flush(key: string, held: Held): Promise<void>;
  carry<T>(held: Held, name: string, lapses: number, write: (carried: SettledWithLink | undefined, fence: Fence) => Promise<T>): Promise<T>;
  renew(lease: Lease, atLeastMs: number): Promise<Lease>;
  /** Whether an outcome may wait for the key's next write (a lease that lingers, a chain not closing). */
  defers(): boolean;
  /** Whether the link is read from the service before every request, the kept one never trusted (LeaseOptions.readLinkFirst). */
  readonly readsFirst: boolean;
}

/**
 * One call's turn on a key (ChainTurn). One object per call, its methods on the prototype: a turn
 * made of closures was a dozen allocations on every receipt.
 */
export class Turn implements ChainTurn {
  readonly #host: TurnHost;
  readonly #held: Held;
  /** The key's name in the store. */
  readonly #name: string;
  /** The key's lapses when the turn began: an outcome lost from then on was lost while this call waited. */
  readonly #lapses: number;

  constructor(
    host: TurnHost,
    readonly key: string,
    held: Held,
    name: string,
  ) {
    this.#host = host;
    this.#held = held;
    this.#name = name;
    this.#lapses = held.lapses;
  }

  get fence(): Lease {
    return this.#held.lease!;
  }
  get clear(): boolean {
    return this.#held.clear;
  }
  set clear(value: boolean) {
    this.#held.clear = value;
  }

  async link(): Promise<string> {
    const held = this.#held;
    if (held.unsure || held.link === undefined) return this.current();
    if (!this.#host.readsFirst) return held.link;
    // Under the lease only this client moves the chain: a current link other than the kept one means
    // the answer that carried the kept one lied. Kept only then; otherwise the kept one stands.
    const link = await this.#host.current(JSON.parse(this.key));
    if (link !== held.link) await this.keep(link);
    return link;
  }

  async current(): Promise<string> {
    const link = await this.#host.current(JSON.parse(this.key));
    await this.keep(link);
    return link;
  }

  async keep(link: string, write: LinkWrite = this.#host.set): Promise<void> {
    const held = this.#held;
    await this.#host.flush(this.key, held); // an older link is never written over this one
    try {
      await storeCall("keep the chain link", () => write(this.#name, link, this.fence));
      held.link = link;
      held.unsure = false;
    } catch (e) {
      held.unsure = true;
      throw e;
    }
  }

  defer(link: string, settled: { key: string; settlement: Settlement }, alone: LinkWrite): boolean {
    if (!this.#host.defers()) return false;
    const held = this.#held;
    held.link = link;
    held.unsure = false;
    held.deferred = { settled, link, alone, fence: this.fence };
    return true;
  }

  flush(): Promise<void> {
    return this.#host.flush(this.key, this.#held);
  }

  carry<T>(write: (carried: SettledWithLink | undefined, fence: Fence) => Promise<T>): Promise<T> {
    return this.#host.carry(this.#held, this.#name, this.#lapses, write);
  }

  step(link: string | undefined): LinkStep {
    return new LinkStep(this.#host, link);
  }

  async ensure(ms: number): Promise<void> {
    const fence = this.fence;
    if (fence.expiresAt - Date.now() < ms) this.#held.lease = await this.#host.renew(fence, ms);
  }

  doubt(): void {
    this.#held.unsure = true;
  }

  hold(until: number): void {
    this.#held.holdUntil = Math.max(this.#held.holdUntil ?? 0, until);
  }

  abandon(): void {
    this.#held.ended = true;
  }
}

/** The attempt step of a chained call: presents its link, and notes the next one its answer carries. */
export class LinkStep implements AttemptStep {
  readonly headerNames: readonly string[];
  readonly #host: TurnHost;
  readonly #link: string | undefined;
  #next: string | undefined;

  constructor(host: TurnHost, link: string | undefined) {
    this.headerNames = host.headerNames;
    this.#host = host;
    this.#link = link;
  }

  present(headers: HeaderSink): string | undefined {
    if (this.#link !== undefined) headers.set(this.#host.header, this.#link);
    return this.#link;
  }

  /**
   * Notes the answer's next link. A value that is no link (two headers joined, a proxy's garbage) is
   * as none: kept, it was presented next, refused, and the refusal read as "the chain moved", so a
   * receipt the service never registered was disputed and the register stopped. Unknown, the next
   * call reads the service's current link first (linkLeft).
   */
  answered(answer: AnswerHead): boolean {
    const next = answer.header(this.#host.header);
    this.#next = next !== null && this.#host.isLink(next) ? next : undefined;
    return false;
  }

  /** The link the answer carried, once it has answered. */
  next(): string | undefined {
    return this.#next;
  }
}

/**
 * The link an applied call leaves its key with: the next one its answer carried. An answer that
 * carried none (lost, or without the header) or gave the presented one back leaves the link unknown,
 * and the key reads it afresh before its next request: presenting the old one again would be refused,
 * or, with that answer lost too, read as "the chain moved, so it took effect".
 */
export function linkLeft(op: OperationSpec, turn: ChainTurn | undefined, next: string | undefined, presented: string | undefined): string | undefined {
  if (next !== undefined && next !== presented) return next;
  if (op.chain?.returns) turn?.doubt();
  return undefined;
}
