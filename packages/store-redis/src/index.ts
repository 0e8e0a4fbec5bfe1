// @paysys/store-redis: the paysys SDK's store over Redis or Valkey, for clients on several machines.
export type { RedisCommandClient } from "./connection.js";
export { DEFAULT_CALLBACK_RETENTION_MS, RedisStore, type RedisStoreOptions } from "./redis-store.js";
