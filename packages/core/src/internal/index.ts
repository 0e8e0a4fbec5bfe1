// @paysys/core/internal: the machinery the generated clients are built from. No semver promise:
// it changes with the code generator, and client packages never re-export it. See README.md here.

export * from "../decimal.js";
export { randomUuid } from "../ids.js";
export { shownValue } from "../shown.js";
export { checkDurations, fenceHolds, isUnresolved, leaseIsTakable, leaseLost, RETENTION_LIMIT_MS, settledEntry, TIMER_LIMIT_MS } from "../stores.js";
export { base64 } from "./base64.js";
export { commaListCodec, rfc3339Codec, tengeCodec } from "./builtin-codecs.js";
export { foldedKey } from "./call-input.js";
export { cardDataIssues, isCardName, looksLikeCardNumber } from "./card-guard.js";
export { HeaderChain, type LeaseOptions } from "./chain.js";
export type { ChainTurn, LinkStep } from "./chain-turn.js";
export type { ClientJournal, JournalRecord, JournalRef, RecoveredIntent } from "./client-journal.js";
export type { Codec, CodecContext, CodecRegistry } from "./codecs.js";
export { checkClientOptions, clientFunctionKeys, journalFunctionKeys, type OptionKind } from "./construction.js";
export { type ClientCore, type ClientParts, defineClient, type GeneratedSpec, type SharedClientOptions, type SpecNames } from "./define-client.js";
export { asyncDispose } from "./dispose.js";
export { type Answer, checkFailure, unwrap, wrapParams } from "./envelope.js";
export { holderIsGone, processHolder } from "./holder.js";
export { clientAgentOptions } from "./http-node.js";
export { DEFAULT_INBOUND_MAX_BYTES, type Inbound, type InboundSpec, inbound, parseInbound } from "./inbound.js";
export {
  type Check,
  createInvoker,
  type FileListMethod,
  type FileMethod,
  fileListMethod,
  fileMethod,
  type Invoke,
  type InvokeOptions,
  type Invoker,
  type InvokerOptions,
  type ListMethod,
  listMethod,
  method,
} from "./invoker.js";
export { Journal } from "./journal.js";
export { harmless } from "./logger.js";
export {
  type ChainDefinition,
  durationMs,
  type Envelope,
  type HttpMethod,
  loadValidators,
  type Operation,
  type OperationSpec,
  type OutcomeSpec,
  operation,
  type SchemeFacts,
  type Unwrap,
  type Validator,
  validatorIssues,
} from "./operation.js";
export { accountName, journalOptions, processStore, serviceName, sharedTransportOptions } from "./options.js";
export { evaluatePointer, parsePointer, placeAt } from "./pointer.js";
export { causeShown, REDACTED, redactValue, SecretSet, scrub, withoutUrlCredentials } from "./redact.js";
export { hiddenInText } from "./repeated-key.js";
export { hashOf } from "./request-hash.js";
export { backoffDelay, isRetryableStatus, parseRetryAfter, type RetryOptions, retryDefaults, sleep } from "./retry.js";
export { type AttemptStep, basicScheme, bearerScheme, type HeaderSink, type SecurityScheme } from "./steps.js";
export { storeCall } from "./store-call.js";
export { type CallRecord, clientTelemetry, loadOtelApi, outcomeOf, type Telemetry, type TelemetryTarget } from "./telemetry.js";
export { TokenManager, type TokenManagerOptions, type TokenSet, tokensFromAnswer } from "./tokens.js";
export { type CallResult, type HttpInput, type Prepared, type ReadyRequest, type SendExtras, type SendWatch, Transport, type TransportOptions } from "./transport.js";
export { instantOf, pad, type WallClock, wallClock } from "./zone.js";
