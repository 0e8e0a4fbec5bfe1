// @paysys/core/calls: what a caller of any client needs, and what each client package re-exports:
// the errors, files, money helpers, per-call options and log events, and the store contracts' types.
// The store implementations (MemoryStore, MemoryCallbackStore) are only in @paysys/core: a bundler
// splits code by file, and a client entry that re-exported all of core put them (and whatever they
// import) in every page's first load, before any call (tools/initial-load.mjs measures it).
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
export { tenge, tiyn } from "./money.js";
export type {
  CallbackStore,
  ChainStore,
  Fence,
  Holder,
  IntentState,
  JournalEntry,
  JournalStore,
  Lease,
  LeaseStore,
  SettledWithLink,
  Settlement,
  Store,
  StoreOptions,
  TokenStore,
} from "./stores.js";
