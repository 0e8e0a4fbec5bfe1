// Which error class an HTTP error status gets: the runtime's choice (transport, journal), apart
// from errors.ts, whose classes every client entry exports and so every page loads before its first call.
import {
  APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from "./errors.js";

/** The class that names an HTTP error status. */
export function apiErrorClass(status: number): typeof APIError {
  if (status === 400) return BadRequestError;
  if (status === 401) return AuthenticationError;
  if (status === 403) return PermissionDeniedError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 422) return UnprocessableEntityError;
  if (status === 429) return RateLimitError;
  if (status >= 500) return InternalServerError;
  return APIError;
}
