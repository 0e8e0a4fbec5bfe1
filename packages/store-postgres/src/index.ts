// @paysys/store-postgres: the paysys stores over PostgreSQL, through your own `pg` Pool.
//
//   await migrate(pool);                       // creates or upgrades the tables (safe at every start)
//   const store = new PostgresStore(pool);     // Store & CallbackStore: pass it as a client's `store`

// The errors the store throws, for `instanceof` without importing @paysys/core, and the default
// time a processed webhook event is remembered (core's, one for every store).
export { DEFAULT_CALLBACK_RETENTION_MS, LeaseLostError, StoreCorruptError, StoreError, StoreUnavailableError } from "@paysys/core";
export { type MigrateOptions, type Migration, migrate, shippedMigrations } from "./migrate.js";
export type { PgPool, PgPoolClient, PgPoolOptions } from "./pool.js";
export { PostgresStore, type PostgresStoreOptions } from "./store.js";
export type { TableName, TableOptions } from "./tables.js";
