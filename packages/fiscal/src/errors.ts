// Errors of the cash register client beyond core's: where an HTTP status means one known thing for
// one operation, the error says that thing and names the field, so a caller can branch on it.
import { APIError } from "@paysys/core/calls";

/**
 * `shifts.open` was refused because a shift is already open: HTTP 424, which a third-party client
 * documents as "the user already has an open shift" (the service's message is not shown). Still an
 * `APIError` with `status` 424; `idKkm` is the register the call named.
 */
export class ShiftAlreadyOpenError extends APIError {
  override name = "ShiftAlreadyOpenError";
  readonly idKkm: unknown;
  constructor(cause: APIError, idKkm: unknown) {
    const said = cause.serviceMessage ? `: ${cause.serviceMessage}` : "";
    super(`shifts.open: IdKkm ${String(idKkm)}: a shift is already open (HTTP 424${said}); close it with shifts.closeWithZReport (its id is kkms.get({ idKkm }).IdShift)`, {
      operation: cause.operation,
      status: cause.status,
      attempts: cause.attempts,
      serviceCode: cause.serviceCode,
      serviceMessage: cause.serviceMessage,
      cause,
    });
    this.idKkm = idKkm;
  }
}
