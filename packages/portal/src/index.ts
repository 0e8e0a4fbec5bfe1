// @paysys/portal: typed client of the partner portal API, v2 and v1.
export {
  APIError,
  AuthenticationError,
  BadRequestError,
  BinaryFile,
  type CallOptions,
  ClientClosedError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  type ErrorJson,
  type FetchLike,
  type Hooks,
  InternalServerError,
  type LogEvent,
  NotFoundError,
  type OpenParamsOptions,
  PaysysError,
  PermissionDeniedError,
  RateLimitError,
  RequestAbortedError,
  RequestValidationError,
  ResponseTooLargeError,
  type RetryOptions,
  ServiceError,
  TimeoutError,
  type TokenSet,
  UnexpectedResponseError,
  UnprocessableEntityError,
  UnsupportedOperationError,
  type ValidationIssue,
} from "@paysys/core";
export { createPortalClient, defaultExtractTokens, type PortalClientBase, type PortalV1Client, type PortalV2Client } from "./client.js";
export type { FlagInput } from "./codecs.js";
export { type CalendarDate, DEFAULT_TIME_ZONE, formatPortalDate, isPortalDate, type Period, type PortalDateInput, parsePortalDate, period } from "./dates.js";
export type { PortalV1Methods } from "./generated/v1/client.js";
export type * as V1 from "./generated/v1/schema.js";
export type { PortalV2Methods } from "./generated/v2/client.js";
export type * as V2 from "./generated/v2/schema.js";
export type { CaptchaChallenge, PortalClientOptions, PortalClientSettings, PortalCredentials } from "./options.js";
