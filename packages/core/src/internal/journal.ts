// Exactly once. Every operation that moves money or changes a register (the spec gives it an
// `x-outcome`) is journaled: its intent is written to the client's store before it is sent, and its
// outcome after. The service has no idempotency key of its own, so the journal is what makes one:
//
// - A key already journaled is never sent again: its recorded answer is returned (an
//   AnswerLostError where the call took effect and its answer was lost, the recorded refusal where
//   it was refused), the same key with other parameters is refused, and a pending intent is first
//   resolved.
// - A failed call is never re-sent on its own. Its outcome is learnt the way the spec says (the
//   chain under the register's lease, or a status query) and recorded: applied (AnswerLostError),
//   not applied (the error itself; the key may be sent again), or unknown (OutcomeUnknownError; the
//   intent stays pending). Only a refusal a step repaired (a renewed token) is re-sent, once, and
//   only once the SDK knows the first request did not take effect.
// - Before anything new is sent on a register, its pending intents are resolved; an intent that
//   cannot be resolved blocks the register (UnresolvedOutcomeError) rather than risk a duplicate.
import { AuthenticationError, type OutcomeUnknownError, PaysysError, RequestValidationError, StoreUnavailableError, UnresolvedOutcomeError } from "../errors.js";
import { randomUuid } from "../ids.js";
import { DEFAULT_LANDING_MS, isUnresolved, type JournalEntry, type Settlement, START_WITHIN_MS, settledEntry } from "../stores.js";
import { type ChainTurn, type LinkWrite, linkLeft } from "./chain-turn.js";
import type { ClientJournal, JournalRecord, JournalRef, RecoveredIntent } from "./client-journal.js";
import { holderIsGone, stampedHolder } from "./holder.js";
import type { JournaledCall, JournalOptions } from "./journal-options.js";
import { settleByHand } from "./journal-settle.js";
import { askAgainAt, landingUntil, landsUntil, noteLanding, windowEnd } from "./landing.js";
import { forgetNeverSent, noteNeverSent, settleWhenStoreAnswers, wasNeverSent } from "./never-sent.js";
import type { OperationSpec } from "./operation.js";
import { defaultKey, ended, isRefusal, learnOutcomeAt, probeParams, refusalOf, refusalPassedOn } from "./outcome.js";
import { answerLost, keyInUse, keyReused, notApplied, notStarted, outcomeUnknown, refusedBefore } from "./outcome-errors.js";
import { processWide } from "./process-wide.js";
import { hashOf } from "./request-hash.js";
import { sleep } from "./retry.js";
import { storeCall } from "./store-call.js";
import type { SendWatch } from "./transport.js";

/** Idempotency keys are the caller's order or receipt ids: printable, and short enough for any store's key. */
const isKey = (key: unknown) => key === undefined || (typeof key === "string" && /^[\x21-\x7e]{1,200}$/.test(key));

/**
 * Keys (namespaced, as in the store) with a call under way in this process, whichever client sends
 * it: two clients of one program may share its holder name, and a key is one request however many
 * clients are made for it. On `globalThis`, so two loaded copies of core (ESM and CommonJS) share it.
 */
const inflight = processWide("inflight", () => new Set<string>());

export class Journal implements ClientJournal {
  readonly #o: JournalOptions & { landingMs: number };

  constructor(options: JournalOptions) {
    this.#o = { ...options, landingMs: options.landingMs ?? DEFAULT_LANDING_MS };
  }

  /** Sends a journaled call exactly once (or answers what the journal recorded for its key). */
  async run(call: JournaledCall): Promise<unknown> {
    const { op } = call;
    if (!isKey(call.idempotencyKey))
      throw new RequestValidationError(op.id, [{ path: "(idempotencyKey)", message: "must be 1 to 200 printable ASCII characters, without spaces" }]);
    const given = call.idempotencyKey === undefined ? defaultKey(op, call.encoded) : { key: call.idempotencyKey, made: false };
    const key = this.#full({ operation: op.id, key: given.key });
    const hash = await hashOf(op.id, call.encoded, this.#o.sensitiveKeys);
    if (call.signIn) {
      // Signed in before the register's lease and the intent (steps.ts); a key the journal answers needs no sign-in.
      const recorded = await this.#recorded(op, key, hash);
      if (recorded) return recorded.value;
      await call.signIn();
    }
    // A register's id as JSON (`106`), a string key the store gives back as it was.
    const scope = op.chain ? JSON.stringify(call.encoded[op.chain.key]) : undefined;
    if (scope !== undefined && this.#o.chain) return this.#o.chain.run(scope, (turn) => this.#once(call, key, hash, turn, given.made));
    return this.#once(call, key, hash, undefined, given.made);
  }

  /** Resolves every pending intent of this client now (after a restart, say) and tells what each was. */
  async recover(): Promise<RecoveredIntent[]> {
    await this.#o.chain?.flush();
    const pending = await storeCall("list pending intents", () => this.#o.store.pendingIntents(this.#prefix()));
    const out: RecoveredIntent[] = [];
    for (const entry of pending) {
      const settled = await this.#resolveAlone(entry).catch((e: unknown) => {
        if (e instanceof PaysysError) return entry;
        throw e;
      });
      out.push({ operation: entry.operation, key: this.#short(entry.key), state: settled.state });
    }
    return out;
  }

  /** The journal's record of an operation's key. */
  async get(ref: JournalRef): Promise<JournalRecord | undefined> {
    // The reference read now, before anything awaits: the record asked for, whatever the caller does with its object.
    const full = this.#full(ref);
    const { key } = ref;
    await this.#o.chain?.flush();
    const entry = await storeCall("read the journal", () => this.#o.store.getIntent(full));
    if (!entry) return undefined;
    const { hash: _h, probe: _p, ...rest } = entry;
    return { ...rest, key };
  }

  /** Intents of this client whose outcome is not known yet. */
  async pending(): Promise<JournalRecord[]> {
    await this.#o.chain?.flush();
    const entries = await storeCall("list pending intents", () => this.#o.store.pendingIntents(this.#prefix()));
    return entries.map(({ hash: _h, probe: _p, ...rest }) => ({ ...rest, key: this.#short(rest.key) }));
  }

  /**
   * Records what a person learnt from the service about a pending intent whose outcome the SDK
   * cannot learn (`applied`: it took effect; otherwise it did not, and the key may be sent again).
   */
  async settle(ref: JournalRef | { operation?: string; key: string }, applied: boolean): Promise<void> {
    if (!ref.operation) throw new RequestValidationError("journal.settle", [{ path: "/operation", message: "names the operation whose key this is" }]);
    await settleByHand(this.#o, inflight, this.#full(ref as JournalRef), applied);
  }

  // A key is the caller's per operation (an order id may name its creation and its cancellation):
  // in the store it is `<namespace>/<operation>/<key>`.
  #prefix = () => `${this.#o.namespace}/`;
  #full = (ref: JournalRef) => `${this.#prefix()}${ref.operation}/${ref.key}`;
  /** A key as its caller gave it; another login's (a register's intent) without its account either. */
  #short = (full: string) =>
    full.slice(full.startsWith(this.#prefix()) ? this.#prefix().length : full.indexOf("/", this.#o.registerPrefix?.length ?? 0) + 1).replace(/^[^/]*\//, "");

  async #once(call: JournaledCall, key: string, hash: string, turn: ChainTurn | undefined, made: boolean): Promise<unknown> {
    const { op } = call;
    if (inflight.has(key)) throw keyInUse(op.id, this.#short(key), "is under way in this process: nothing was sent");
    inflight.add(key);
    try {
      // Register clear under our lease: the intent's write answers the key's entry (`raced`), one round trip fewer.
      const found = turn?.clear ? undefined : await storeCall("read the journal", () => this.#o.store.getIntent(key));
      if (found) {
        // Another request under the same key is refused before anything is asked about it.
        this.#sameRequest(op, found, hash);
        const entry = found.state === "pending" ? await this.#resolve(found, turn) : found;
        const replayed = this.#replay(op, entry);
        if (replayed !== undefined) return replayed.value;
      }
      if (turn) await this.#clearScope(op, turn);
      return await this.#send(call, key, hash, turn, made);
    } finally {
      inflight.delete(key);
    }
  }

  /** A key names one request: the same operation with the same parameters. */
  #sameRequest(op: OperationSpec, entry: JournalEntry, hash: string): void {
    if (entry.hash !== hash || entry.operation !== op.id) throw keyReused(op, entry.operation, this.#short(entry.key));
  }

  /** A settled key's recorded outcome, read outside its register's turn (a pending one is resolved in the turn). */
  async #recorded(op: OperationSpec, key: string, hash: string): Promise<{ value: unknown } | undefined> {
    const found = await storeCall("read the journal", () => this.#o.store.getIntent(key));
    if (!found || isUnresolved(found.state)) return undefined;
    this.#sameRequest(op, found, hash);
    return this.#replay(op, found);
  }

  /** What a journaled key answers without sending: its recorded outcome. Undefined when it may be sent (not applied). */
  #replay(op: OperationSpec, entry: JournalEntry): { value: unknown } | undefined {
    const key = this.#short(entry.key);
    const s = entry.settlement;
    if (entry.state === "applied" && s && !s.answerLost) return { value: s.answer };
    if (entry.state === "applied") throw answerLost(op, key, undefined, "it was done before under this key");
    if (entry.state === "refused" && s?.refusal) throw refusedBefore(op, s.refusal, key);
    if (isUnresolved(entry.state)) throw this.#unknown(op, entry, undefined, "it was sent before under this key");
    return undefined;
  }

  /** Resolves the other pending intents of the register first: nothing new is sent on it while one is unknown. */
  async #clearScope(op: OperationSpec, turn: ChainTurn): Promise<void> {
    if (turn.clear) return;
    // Every login's intents on the register: another cashier's receipt of unknown outcome blocks it as ours would.
    const prefix = this.#o.registerPrefix ?? this.#prefix();
    const pending = await storeCall("list pending intents", () => this.#o.store.pendingIntents(prefix, turn.key));
    for (const entry of pending) {
      const settled = await this.#resolve(entry, turn);
      if (isUnresolved(settled.state)) {
        const pendingKey = this.#short(entry.key);
        const at = this.#o.registerPrefix?.length ?? 0;
        const whose = entry.key.startsWith(this.#prefix()) ? "" : `, sent by another login of this service (${entry.key.slice(at, entry.key.indexOf("/", at))}),`;
        throw new UnresolvedOutcomeError(
          `${op.id}: nothing was sent: ${entry.operation} under the key ${pendingKey}${whose} on ${turn.key} has an outcome the SDK could not learn yet; nothing new is sent on ${turn.key} until it is known (try again, or settle it with journal.settle${whose ? " of that login's client" : ""})`,
          { operation: op.id, pending: { operation: entry.operation, key: pendingKey } },
        );
      }
    }
    turn.clear = true;
  }

  async #send(call: JournaledCall, key: string, hash: string, turn: ChainTurn | undefined, made: boolean): Promise<unknown> {
    const { op } = call;
    const outcome = op.outcome!;
    const timeoutMs = call.timeoutMs ?? this.#o.timeoutMs;
    const presented = turn && op.chain?.presents ? await turn.link() : undefined;
    const probe = outcome.by === "query" ? await probeParams(op, outcome, call.encoded, this.#o.operations, this.#o.query) : undefined;
    const startedAt = Date.now();
    const sendBy = startedAt + START_WITHIN_MS + timeoutMs + this.#o.landingMs;
    // The lease must outlast every attempt that may start under this intent.
    if (turn) await turn.ensure(sendBy - Date.now() + this.#o.landingMs);
    const intent: JournalEntry = {
      key,
      id: randomUuid(),
      operation: op.id,
      ...(turn ? { scope: turn.key } : {}),
      hash,
      holder: stampedHolder(this.#o.holder),
      startedAt,
      sendBy,
      ...(presented !== undefined ? { presented } : {}),
      ...(probe ? { probe } : {}),
      state: "pending",
    };
    const raced = await this.#begin(intent, turn);
    if (raced) {
      this.#sameRequest(op, raced, hash);
      const replayed = this.#replay(op, raced.state === "pending" ? await this.#resolve(raced, turn) : raced);
      return replayed !== undefined ? replayed.value : this.#send(call, key, hash, turn, made);
    }
    for (let resent = false; ; resent = true) {
      const watch: SendWatch = {
        sent: false,
        repaired: false,
        beforeSend() {
          if (Date.now() > startedAt + START_WITHIN_MS) throw notStarted(op, START_WITHIN_MS);
        },
      };
      const chained = turn?.step(presented);
      try {
        const value = await call.send(chained ? [chained] : [], watch);
        const answered = ended(intent, "applied", made ? { answer: value, forgettable: true } : { answer: value });
        const settled = await this.#applied(key, turn, linkLeft(op, turn, chained?.next(), presented), answered);
        if (turn && settled) turn.clear = true;
        return value;
      } catch (e) {
        if (!watch.sent) {
          await this.#settle(key, turn, ended(intent, "not-applied"));
          throw e;
        }
        noteLanding(key, e, sendBy, this.#o.landingMs);
        const { applied, until } = await learnOutcomeAt(this.#o.operations, this.#o.query, intent, turn, (at) => landingUntil(key, at));
        if (until) turn?.hold(until); // nobody takes the register while it may still land
        if (applied === true && isRefusal(e)) {
          // Refused, yet the chain moved (a proxy that lies, another program): neither reading is taken, a person settles it.
          const disputed: JournalEntry = { ...intent, state: "disputed" };
          await this.#settle(key, turn, ended(intent, "disputed"));
          throw this.#unknown(op, disputed, e, op.outcome?.by === "chain" ? "it was refused, yet the register's chain moved" : "it was refused, yet the service shows it done");
        }
        if (applied === true) {
          await this.#applied(key, turn, linkLeft(op, turn, undefined, presented), ended(intent, "applied", { answerLost: true }));
          throw answerLost(op, this.#short(key), e, "its answer was lost");
        }
        if (applied === false && until) throw this.#notYet(op, intent, e);
        if (applied === false) {
          // A refusal a step repaired (a renewed token) is sent again, once, now that it is known the first did nothing.
          if (watch.repaired && !resent && e instanceof AuthenticationError) continue;
          await this.#settle(key, turn, ended(intent, "not-applied"));
          throw isRefusal(e) ? e : notApplied(op, this.#short(key), e);
        }
        // The service's refusal is passed on, spending the key where nothing can check it; another refusal is unknown (outcome.ts).
        const refusal = refusalPassedOn(op, e);
        if (refusal) {
          if (outcome.by === "none") await this.#settle(key, turn, ended(intent, "refused", { refusal: refusalOf(refusal) }));
          throw refusal;
        }
        throw this.#unknown(op, intent, e, isRefusal(e) ? "refused by an answer that does not show it is the service's own" : "its answer was lost");
      }
    }
  }

  /** A call that stopped waiting, not done yet: unknown until it can no longer land, and its register kept meanwhile. */
  #notYet(op: OperationSpec, intent: JournalEntry, cause: unknown): OutcomeUnknownError {
    return this.#unknown(op, intent, cause, "the call stopped waiting for it, and the service may still be working on it");
  }

  /**
   * Writes the intent, or answers the entry the key already has (the read before was skipped, or
   * another process began the key since): then ours is not written, and the register is as clear as it was.
   */
  async #begin(intent: JournalEntry, turn: ChainTurn | undefined): Promise<JournalEntry | undefined> {
    const { store } = this.#o;
    const wasClear = turn?.clear === true;
    if (turn) turn.clear = false; // until this intent is settled
    try {
      const raced = await (turn && store.settleThenBegin
        ? turn.carry((carried, fence) => storeCall("write the intent", () => (carried ? store.settleThenBegin!(carried, intent, fence) : store.beginIntent(intent, fence))))
        : storeCall("write the intent", () => store.beginIntent(intent, turn?.fence)));
      if (raced && turn) turn.clear = wasClear;
      return raced;
    } catch (e) {
      // A write that did not answer may still land (a lock's wait, a paused server). The register's next request would make it
      // read as applied, so the lease is taken again first; and it is settled "not applied" once the store answers (never-sent.ts).
      turn?.abandon();
      noteNeverSent(intent);
      if (e instanceof StoreUnavailableError) settleWhenStoreAnswers(this.#o.store, intent);
      throw e;
    }
  }

  /**
   * Resolves a pending intent, when no attempt of it can still be under way: its holder is this
   * client (with no call running), its window has passed, its holder's process is gone, or (under
   * the register's lease) nobody else may send on the register. Answers the entry as it now stands.
   */
  async #resolve(entry: JournalEntry, turn: ChainTurn | undefined): Promise<JournalEntry> {
    if (entry.state === "disputed") return entry; // only a person settles a dispute
    if (wasNeverSent(entry)) {
      const settlement = ended(entry, "not-applied");
      await this.#settle(entry.key, turn, settlement);
      forgetNeverSent(entry);
      return settledEntry(entry, settlement);
    }
    const underLease = turn !== undefined && entry.scope === turn.key;
    const own = entry.holder.id === this.#o.holder.id;
    const ends = windowEnd(entry, this.#o.holder);
    const idle = underLease || ends < Date.now() || own || holderIsGone(entry.holder);
    if (!idle) {
      const key = this.#short(entry.key);
      throw keyInUse(entry.operation, key, `is under way in ${entry.holder.id} (until ${new Date(ends).toISOString()} at the latest): nothing was sent`);
    }
    const landsAfter = (at: number) => landsUntil(entry, this.#o.holder, this.#o.landingMs, at);
    // Another login's intent (a register's) is learnt with our credentials: their "not found" may mean we cannot see it.
    const ours = entry.key.startsWith(this.#prefix());
    const { applied, until: landing } = await learnOutcomeAt(this.#o.operations, this.#o.query, entry, turn, landsAfter, ours);
    if (landing) turn?.hold(landing); // not known, or not yet: nobody takes the register meanwhile
    if (applied === undefined || landing) return entry;
    const settlement = ended(entry, applied ? "applied" : "not-applied", applied ? { answerLost: true } : undefined);
    const op = this.#o.operations[entry.operation];
    if (applied) await this.#applied(entry.key, turn, op && linkLeft(op, turn, undefined, entry.presented), settlement);
    else await this.#settle(entry.key, turn, settlement);
    return settledEntry(entry, settlement);
  }

  /**
   * Resolves an intent outside any call (recover, wasApplied): in its register's turn when it has
   * one, read again there (a call of this client may have settled it since it was listed).
   */
  #resolveAlone(entry: JournalEntry): Promise<JournalEntry> {
    if (entry.scope === undefined || !this.#o.chain) return this.#resolveIdle(entry, undefined);
    return this.#o.chain.run(entry.scope, async (turn) => {
      await turn.flush(); // a call of this client that answered just before this turn left its outcome waiting
      const now = await storeCall("read the journal", () => this.#o.store.getIntent(entry.key));
      return now && isUnresolved(now.state) ? this.#resolveIdle(now, turn) : (now ?? entry);
    });
  }

  /**
   * `#resolve`, unless a call in this process is still sending the key (asked now, the service may not have it yet):
   * that call learns its outcome. The key is the resolver's while it asks, so no "not there" is written over a newer send.
   */
  async #resolveIdle(entry: JournalEntry, turn: ChainTurn | undefined): Promise<JournalEntry> {
    if (inflight.has(entry.key)) throw keyInUse(entry.operation, this.#short(entry.key), "is under way in this process; its outcome is not known yet");
    inflight.add(entry.key);
    try {
      return await this.#resolve(entry, turn);
    } finally {
      inflight.delete(entry.key);
    }
  }

  /**
   * Settles an applied call with its answer's link: with the register's next intent where the store
   * can (written after the call answers), else in one write, else link then outcome. Answers whether
   * the store took it (or will: a deferred write that fails leaves the register unsure, as a failed one does).
   */
  async #applied(key: string, turn: ChainTurn | undefined, next: string | undefined, settlement: Settlement): Promise<boolean> {
    // The call took effect: a store that cannot keep the link or the outcome must not turn that into
    // an error (it would invite sending it again). The next call reads the link from the service,
    // and the intent, left pending, is resolved (as applied) before the next send.
    const failed = () => false;
    const { store } = this.#o;
    if (turn && next !== undefined && store.settleIntentWithLink) {
      const both: LinkWrite = (name, link, fence) => store.settleIntentWithLink!(key, settlement, { key: name, value: link }, fence);
      if (store.settleThenBegin && turn.defer(next, { key, settlement }, both)) return true;
      return turn.keep(next, both).then(() => true, failed);
    }
    if (turn && next !== undefined) await turn.keep(next).catch(failed);
    return this.#settle(key, turn, settlement).then(() => true, failed);
  }

  #settle(key: string, turn: ChainTurn | undefined, settlement: Settlement): Promise<void> {
    return storeCall("settle the intent", () => this.#o.store.settleIntent(key, settlement, turn?.fence));
  }

  #unknown(op: OperationSpec, entry: JournalEntry, cause: unknown, how: string): OutcomeUnknownError {
    // A pending intent is resolved in its register's turn, which writes that register's waiting outcome first (#resolveAlone).
    const read = async () => {
      const now = await storeCall("read the journal", () => this.#o.store.getIntent(entry.key));
      return now?.state === "pending" ? await this.#resolveAlone(now) : now;
    };
    return outcomeUnknown(op, entry.state, this.#short(entry.key), cause, how, async () => {
      let settled = await read();
      // Not there yet, for a request that may still land: read and asked again once it cannot.
      const until = askAgainAt(settled, this.#o.holder, this.#o.landingMs);
      if (until > Date.now()) settled = await sleep(until - Date.now()).then(read);
      if (!settled || isUnresolved(settled.state)) throw this.#unknown(op, settled ?? entry, undefined, "asked again");
      return settled.state === "applied";
    });
  }
}
