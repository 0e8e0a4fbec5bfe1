// @paysys/store-postgres: the paysys stores over PostgreSQL, through your own `pg` Pool.
//
//   await migrate(pool);                       // creates or upgrades the tables (safe at every start)
//   const store = new PostgresStore(pool);     // Store & CallbackStore: pass it as a client's `store`
export { type MigrateOptions, type Migration, migrate, shippedMigrations } from "./migrate.js";
export { DEFAULT_CALLBACK_RETENTION_MS, PostgresStore, type PostgresStoreOptions } from "./store.js";
export type { TableName, TableOptions } from "./tables.js";
