// @paysys/core: what the client packages share with their users. Errors, files, per-call options
// and log events, money helpers and store interfaces. The machinery the clients are built from
// (transport, invoker, schemes, codecs, chain) is in `@paysys/core/internal`: not for users.
export type {
  CallOptions,
  ClientFunctions,
  ClientSettings,
  FetchLike,
  Hooks,
  IdempotencyOptions,
  JournalFunctions,
  JournalSettings,
  LeaseSettings,
  LogEvent,
  OpenParamsOptions,
  RowsOption,
  StandardSchemaV1,
  TelemetryOptions,
} from "./call.js";
export * from "./errors.js";
export { BinaryFile } from "./file.js";
export type { DateTimeInput, ListInput, TengeInput } from "./inputs.js";
export type { ClientJournal, JournalRecord, JournalRef, RecoveredIntent } from "./internal/client-journal.js";
export type { RetryOptions } from "./internal/retry.js";
export type { TokenSet } from "./internal/tokens.js";
export { MemoryStore } from "./memory-store.js";
export { tenge, tiyn } from "./money.js";
export {
  type CallbackStore,
  type ChainStore,
  DEFAULT_JOURNAL_RETENTION_MS,
  type Fence,
  type Holder,
  type IntentState,
  type JournalEntry,
  type JournalStore,
  type Lease,
  type LeaseStore,
  MemoryCallbackStore,
  type SettledWithLink,
  type Settlement,
  type Store,
  type StoreOptions,
  type TokenStore,
} from "./stores.js";
