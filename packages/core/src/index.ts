// @paysys/core: what the client packages share with their users. Errors, files, per-call options
// and log events, money helpers and store interfaces (all of @paysys/core/calls, which every client
// package re-exports), and the in-memory stores. The machinery the clients are built from
// (transport, invoker, schemes, codecs, chain) is in `@paysys/core/internal`: not for users.
export { apiErrorClass } from "./api-error-class.js";
export * from "./calls.js";
export { DEFAULT_MAX_SETTLED_ENTRIES, MemoryStore, type MemoryStoreOptions } from "./memory-store.js";
export { DEFAULT_CALLBACK_RETENTION_MS, DEFAULT_JOURNAL_RETENTION_MS, intentIdOf, MemoryCallbackStore, settles } from "./stores.js";
