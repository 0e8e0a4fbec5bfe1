// The errors a journaled call ends with when it has no answer to return: each message says what
// the caller may do next (send again under the same key, or nothing: it is never sent again).
import { AnswerLostError, NotAppliedError, PaysysError } from "../errors.js";
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
