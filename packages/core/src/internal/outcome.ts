// What the journal needs to learn and record an outcome: whether an error is an answered refusal,
// the refusal as it is kept, a call's default key, the status query's parameters, and the learning
// itself (the chain under the register's lease, or the status query the spec names).
import { APIError, NotFoundError, RequestValidationError, ServiceError, UnexpectedResponseError } from "../errors.js";
import { randomUuid } from "../ids.js";
import { intentIdOf, type JournalEntry, type Settlement } from "../stores.js";
import type { ChainTurn } from "./chain-turn.js";
import { namesAsked } from "./envelope.js";
import { stoppedWaiting } from "./landing.js";
import type { OperationSpec, OutcomeSpec } from "./operation.js";
import { evaluatePointer, parsePointer } from "./pointer.js";

/** A read-only operation of the spec, run with parameters: answers its unwrapped payload. */
export type Query = (op: OperationSpec, params: Record<string, unknown>) => Promise<unknown>;
type QueryOutcome = Extract<OutcomeSpec, { by: "query" }>;

/** The key of a call the caller gave none: the parameter that names the request (`x-outcome` key), or a random one the SDK `made` (nobody knows it unless an error shows it). */
export function defaultKey(op: OperationSpec, encoded: Record<string, unknown>): { key: string; made: boolean } {
  const pointer = op.outcome?.key;
  const { found, value } = pointer ? evaluatePointer(encoded, parsePointer(pointer)) : { found: false, value: undefined };
  return found && (typeof value === "string" || typeof value === "number") ? { key: String(value), made: false } : { key: randomUuid(), made: true };
}

/**
 * An answered refusal: an HTTP 4xx or an envelope that says the service failed it. Never an answer
 * after which the request may still land (`stoppedWaiting`: a 408, a 499, a redirect).
 */
export function isRefusal(e: unknown): e is APIError | ServiceError {
  // An APIError the request did not stop waiting at has a refusing status (landing.ts).
  return !stoppedWaiting(e) && (e instanceof APIError || e instanceof ServiceError);
}

/** HTTP error answers whose body is the service's own (`isServiceAnswer`), marked by the transport that read them. */
const serviceAnswers = new WeakSet<object>();
export const markServiceAnswer = (error: object) => void serviceAnswers.add(error);

/**
 * The refusal a call that was sent ends with, as the service gave it; undefined if its outcome is
 * unknown instead. Where a check can learn the outcome but failed for now (its query was refused
 * too), the intent stays pending and is checked before anything is sent under its key again. Where
 * nothing can check it (`by: none`), the refusal spends the key, so only the service's own is taken:
 * an envelope reporting a failure, or a 4xx whose body is the service's, but a 409 (a conflict may be
 * "I have it already"). Any other (a WAF's 403 page, a proxy's 413, an empty 429) may have come
 * after the request was passed on; taken at its word, the caller's next attempt under a new key
 * would move the money twice.
 */
export function refusalPassedOn(op: OperationSpec, e: unknown): APIError | ServiceError | undefined {
  if (!isRefusal(e)) return undefined;
  const own = e instanceof ServiceError || (serviceAnswers.has(e) && e.status !== 409);
  return op.outcome?.by !== "none" || own ? e : undefined;
}

export function refusalOf(e: APIError | ServiceError): Settlement["refusal"] {
  return { name: e.name, message: e.message, status: e.status, serviceCode: e.serviceCode, serviceMessage: e.serviceMessage };
}

/** The status query's parameters, taken from the call, and (for `changed`) what it answers now, before sending. */
export async function probeParams(
  op: OperationSpec,
  outcome: QueryOutcome,
  encoded: Record<string, unknown>,
  operations: Readonly<Record<string, OperationSpec>>,
  query: Query,
): Promise<JournalEntry["probe"]> {
  const params: Record<string, unknown> = {};
  for (const [name, pointer] of Object.entries(outcome.params)) {
    const { found, value } = evaluatePointer(encoded, parsePointer(pointer));
    if (!found) throw new RequestValidationError(op.id, [{ path: pointer, message: `is needed to learn the outcome if the answer is lost (${outcome.operation})` }]);
    params[name] = value;
  }
  if (!("changed" in outcome.applied)) return { params };
  // What a lost answer is compared with must be the thing asked about, as it is: an answer about
  // another (refused by the query itself), or without the field, could be compared with nothing.
  // Nothing is sent then.
  const { changed } = outcome.applied;
  const unusable = () =>
    new UnexpectedResponseError(`${op.id}: ${outcome.operation} did not answer ${changed} of what it was asked about; nothing was sent`, {
      operation: op.id,
      bodyExcerpt: "",
    });
  const answer = await query(operations[outcome.operation]!, params).catch((e: unknown) => Promise.reject(e instanceof UnexpectedResponseError ? unusable() : e));
  const before = evaluatePointer(answer, parsePointer(changed));
  if (!answersAbout(operations[outcome.operation]!, answer, params) || !before.found) throw unusable();
  return { params, before: before.value ?? null };
}

/**
 * Whether a status answer names what it was asked about (the query's `answerNames`, for the
 * parameters it was asked with): a cache that answers about another order, or with nothing that
 * names one, tells nothing of this call. A query whose answer names nothing (the spec's x-gap) is
 * taken at its word.
 */
function answersAbout(query: OperationSpec, answer: unknown, params: Record<string, unknown>): boolean {
  return Object.entries(query.answerNames ?? {}).every(([pointer, name]) => !(name in params) || namesAsked(answer, pointer, params[name]) === true);
}

/**
 * Whether an intent took effect: true, false, or undefined when it cannot be learnt now. Under the
 * register's lease the chain tells (it moved past the presented link exactly when the call took
 * effect); otherwise the status query the spec names.
 */
export async function learnOutcome(
  operations: Readonly<Record<string, OperationSpec>>,
  query: Query,
  entry: JournalEntry,
  turn: ChainTurn | undefined,
  notFoundSays = true,
): Promise<boolean | undefined> {
  const outcome = operations[entry.operation]?.outcome;
  try {
    if (outcome?.by === "chain") {
      if (!turn || turn.key !== entry.scope || entry.presented === undefined) return undefined;
      return (await turn.current()) !== entry.presented;
    }
    if (outcome?.by === "query" && entry.probe) {
      let answer: unknown;
      try {
        answer = await query(operations[outcome.operation]!, entry.probe.params);
      } catch (e) {
        // "Not applied" only from a 404 in the service's error shape (the envelope's message), where
        // the call is what makes the thing asked about (`found`: a payment by its order id). A proxy's
        // HTML page or a plain-text 404 says nothing of the operation. Where the thing was there before
        // the call (a shift its Z-report closes, a register), and for another login's intent asked with
        // our credentials, "not found" may only mean it cannot be seen (access withdrawn): unknown.
        // (A JSON 404 that happens to have the same shape, a wrong route's, cannot be told apart.)
        if (e instanceof NotFoundError && e.serviceMessage !== undefined) return notFoundSays && "found" in outcome.applied ? false : undefined;
        throw e;
      }
      if (!answersAbout(operations[outcome.operation]!, answer, entry.probe.params)) return undefined;
      const rule = outcome.applied;
      if ("found" in rule) return true;
      // A field the answer lacks, or holds as null or as another type ("3" for 3), says neither: not
      // "another status", nor "changed" (an answer unchecked, with validateResponses off, may say so).
      const { found, value } = evaluatePointer(answer, parsePointer("equals" in rule ? rule.at : rule.changed));
      if (!found || value === null || value === undefined) return undefined;
      // Only a value the spec says the call leaves behind when it did not take effect says "not applied":
      // a status no source explains (a refund's 4, 5 or 31) may be the call's own doing.
      if ("equals" in rule) return value === rule.equals ? true : rule.notAppliedWhen.includes(value) ? false : undefined;
      const { before } = entry.probe; // null: nothing before, so anything now is a change
      return value === before ? false : before === null || typeof value === typeof before ? true : undefined;
    }
    return undefined;
  } catch {
    return undefined; // the question failed too: the outcome stays unknown, and is asked again later
  }
}

/**
 * `learnOutcome`, and until when the request may still land (`landsAfter` of the moment the question
 * was asked; 0: a "not done" is final). A "not done" asked before the request's window ended says
 * only "not yet", however late it was answered: a question answered after the window ended is asked
 * again, now that its answer is final.
 */
export async function learnOutcomeAt(
  operations: Readonly<Record<string, OperationSpec>>,
  query: Query,
  entry: JournalEntry,
  turn: ChainTurn | undefined,
  landsAfter: (askedAt: number) => number,
  notFoundSays = true,
): Promise<{ applied: boolean | undefined; until: number }> {
  for (;;) {
    const askedAt = Date.now();
    // Read as the question is asked: a window is forgotten once it has ended (landing.ts keeps its
    // tables small), which may be before a slow answer comes.
    const lands = landsAfter(askedAt);
    const applied = await learnOutcome(operations, query, entry, turn, notFoundSays);
    const until = applied === true ? 0 : lands;
    if (until === 0 || until > Date.now()) return { applied, until };
  }
}

/** The outcome of `intent`, named by its id: a store writes it over that intent only (`settles`). */
export function ended(intent: JournalEntry, state: Settlement["state"], more?: Pick<Settlement, "answer" | "answerLost" | "refusal" | "forgettable">): Settlement {
  return { state, ...more, settledAt: Date.now(), intentId: intentIdOf(intent) };
}
