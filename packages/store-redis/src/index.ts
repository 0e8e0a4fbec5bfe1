// @paysys/store-redis: the paysys SDK's store over Redis or Valkey, for clients on several machines.
export { DEFAULT_CALLBACK_RETENTION_MS } from "@paysys/core";
export type { RedisCommandClient } from "./connection.js";
export { RedisStore, type RedisStoreOptions } from "./redis-store.js";
