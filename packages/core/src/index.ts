// @paysys/core: the runtime the generated clients stand on.
export { type DateFormatOptions, type DateInput, DEFAULT_TIME_ZONE, formatPortalDate, isPortalDate, parsePortalDate } from "./dates.js";
export * from "./errors.js";
export { BinaryFile } from "./file.js";
export { randomUuid } from "./ids.js";
export { type Codec, type OperationSpec, type Unwrap, type Validator, validatorIssues } from "./operation.js";
export { checkClientOptions } from "./options.js";
export { type EncodeOptions, encodeParams, type WithCodecs } from "./params.js";
export { collectSecrets, REDACTED, redactHeaders, redactValue, scrub } from "./redact.js";
export { backoffDelay, isRetryableStatus, parseRetryAfter, type RetryOptions, retryDefaults } from "./retry.js";
export { TokenManager, type TokenManagerOptions, type TokenSet } from "./tokens.js";
export { type CallOptions, type CallResult, type FetchLike, type Hooks, type HttpInput, type LogEvent, Transport, type TransportAuth, type TransportOptions } from "./transport.js";
