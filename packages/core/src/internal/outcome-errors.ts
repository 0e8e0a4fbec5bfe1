// The errors a journaled call ends with when it has no answer to return: each message says what
// the caller may do next (send again under the same key, or nothing: it is never sent again).
import { apiErrorClass } from "../api-error-class.js";
import {
  AnswerLostError,
  APIError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  NotAppliedError,
  OutcomeUnknownError,
  PaysysError,
  ServiceError,
  TimeoutError,
} from "../errors.js";
import type { IntentState, Settlement } from "../stores.js";
import type { OperationSpec } from "./operation.js";

/** The status and attempts of the failure behind such an error (none when the failure was not the SDK's). */
export const failureOf = (cause: unknown) => ({
  status: cause instanceof PaysysError ? cause.status : undefined,
  attempts: cause instanceof PaysysError ? cause.attempts : 0,
});

/** It took effect (`how` the SDK knows), and its answer is gone: never sent again under `key`. */
export function answerLost(op: OperationSpec, key: string, cause: unknown, how: string): AnswerLostError {
  const what = cause instanceof Error ? `${cause.message}; ` : "";
  return new AnswerLostError(`${op.id}: ${what}it took effect (${how}), but there is no answer to return; it is never sent again under the key ${key}`, {
    operation: op.id,
    ...failureOf(cause),
    key,
    cause,
  });
}

/** It did not take effect (the SDK checked): the caller may send it again under `key`. */
export function notApplied(op: OperationSpec, key: string, cause: unknown): NotAppliedError {
  return new NotAppliedError(`${cause instanceof Error ? `${cause.message}; ` : ""}${op.id} did not take effect (the SDK checked): send it again with the same key ${key}`, {
    operation: op.id,
    ...failureOf(cause),
    key,
    cause,
  });
}

/**
 * It may have taken effect and the SDK could not learn whether: never sent again under `key`.
 * `ask` learns it again, where the interface has a way and no person has to tell (a dispute).
 */
export function outcomeUnknown(op: OperationSpec, state: IntentState, key: string, cause: unknown, how: string, ask: () => Promise<boolean>): OutcomeUnknownError {
  const canAsk = op.outcome?.by !== "none" && state !== "disputed";
  const what = cause instanceof Error ? `${cause.message}. ` : "";
  const next = canAsk
    ? "`await error.wasApplied()` asks again"
    : state === "disputed"
      ? "the service's people can tell; record what they say with journal.settle (until then nothing new is sent on the register)"
      : "the interface offers no way to ask (see the spec's x-outcome); once the service's people tell, record it with journal.settle";
  return new OutcomeUnknownError(`${what}${op.id} (${how}) may have taken effect, and the SDK could not learn whether; it is never sent again under the key ${key}: ${next}`, {
    operation: op.id,
    ...failureOf(cause),
    key,
    cause,
    wasApplied: canAsk ? ask : undefined,
  });
}

/** The key names another request (another operation, or other parameters): nothing is sent. */
export function keyReused(op: OperationSpec, usedFor: string, key: string): IdempotencyKeyReusedError {
  return new IdempotencyKeyReusedError(`${op.id}: the key ${key} was used for ${usedFor} with other parameters: a key names one request, so nothing was sent`, {
    operation: op.id,
    key,
  });
}

/** The refusal recorded under a spent key, thrown again as the error it was. */
export function refusedBefore(op: OperationSpec, refusal: NonNullable<Settlement["refusal"]>, key: string): PaysysError {
  const r = refusal;
  const ErrorClass = r.name === "ServiceError" ? ServiceError : r.status === undefined || r.name === "RedirectError" ? APIError : apiErrorClass(r.status);
  return new ErrorClass(`${r.message} (answered before under the key ${key}: the key is spent, and nothing was sent)`, {
    operation: op.id,
    status: r.status,
    serviceCode: r.serviceCode,
    serviceMessage: r.serviceMessage,
  });
}

/** A call with the key is under way (`where`: in this process, or in another holder until when): nothing is sent now. */
/** A journaled request that could not start within its window after its intent was written (a slow sign-in or store): nothing was sent, so sending it again is safe. */
export function notStarted(op: OperationSpec, withinMs: number): TimeoutError {
  return new TimeoutError(`${op.id}: could not start within ${withinMs} ms of its journal entry (a slow sign-in or store); nothing was sent`, { operation: op.id, attempts: 0 });
}

export function keyInUse(operation: string, key: string, where: string): IdempotencyKeyInUseError {
  return new IdempotencyKeyInUseError(`${operation}: a call with the key ${key} ${where}`, { operation, key });
}
