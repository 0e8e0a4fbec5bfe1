// @paysys/core: what the client packages share with their users. Errors, files, per-call options
// and log events, money helpers and store interfaces. The machinery the clients are built from
// (transport, invoker, schemes, codecs, chain) is in `@paysys/core/internal`: not for users.
export type { CallOptions, ClientFunctions, ClientSettings, FetchLike, Hooks, LogEvent, OpenParamsOptions, RowsOption, StandardSchemaV1 } from "./call.js";
export * from "./errors.js";
export { BinaryFile } from "./file.js";
export type { DateTimeInput, ListInput, TengeInput } from "./inputs.js";
export type { RetryOptions } from "./internal/retry.js";
export type { TokenSet } from "./internal/tokens.js";
export { tenge, tiyn } from "./money.js";
export { type ChainStore, MemoryStore, type TokenStore } from "./stores.js";
