// The store's schema, as plain SQL files shipped in the package (`migrations/NNNN_name.sql`):
// readable and reviewable by whoever runs the database. `migrate` applies the ones not applied yet,
// in order, in one transaction, under an advisory lock, and records each in the migrations table;
// two processes migrating at once (a deploy starting several instances) apply each file once.
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Database } from "./database.js";
import type { PgPool } from "./pool.js";
import { qualified, resolveTables, type TableOptions, type Tables } from "./tables.js";

export interface MigrateOptions {
  schema?: string;
  tables?: TableOptions;
  /** How long migrating may take, waiting for another process's migration included, in ms. Default 60000. */
  timeoutMs?: number;
}

/** One migration file: its version (the number its name starts with), its name and its statements. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

// The files sit beside `src` and `dist` alike (`../migrations` from either).
const folder = fileURLToPath(new URL("../migrations/", import.meta.url));

/**
 * The migrations the package ships, in order, written for these tables: what `migrate` runs, for a
 * review or for a migration tool of your own (then record them as `migrate` would, or never mix the two).
 */
export function shippedMigrations(options: Pick<MigrateOptions, "schema" | "tables"> = {}): Migration[] {
  const tables = resolveTables(options);
  return readdirSync(folder)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ version: Number(file.slice(0, 4)), name: file.slice(5, -4), sql: render(readFileSync(`${folder}${file}`, "utf8"), tables) }));
}

/** A migration's SQL with its placeholders replaced by the checked names. */
function render(sql: string, tables: Tables): string {
  return sql.replace(/\{\{([a-z]+)\}\}/g, (placeholder, name: string) => {
    const value = (tables as unknown as Record<string, string | undefined>)[name];
    if (value === undefined) throw new Error(`a migration names an unknown table ${placeholder}`);
    return value;
  });
}

/**
 * Creates or upgrades the store's tables. Safe to run at every start, from every process at once:
 * answers the versions it applied (none when the tables were up to date).
 */
export async function migrate(pool: PgPool, options: MigrateOptions = {}): Promise<number[]> {
  const tables = resolveTables(options);
  const migrations = shippedMigrations(options);
  const db = new Database(pool, options.timeoutMs ?? 60_000);
  const history = qualified(tables, "migrations");
  return db.transaction("migrate the store's tables", { lockWaitMs: options.timeoutMs ?? 60_000 }, async (session) => {
    // One lock per table set: migrations of other table sets in the same database do not wait.
    await session.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`@paysys/store-postgres ${history}`]);
    // And one per schema: two table sets made at once in one new schema both found it missing, and the
    // second CREATE SCHEMA failed (pg_namespace's unique key) where it should have waited and found it.
    await session.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`@paysys/store-postgres schema ${tables.schema}`]);
    const [schema] = await session.query<{ exists: boolean }>("SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS exists", [tables.schema]);
    if (!schema!.exists) await session.query(`CREATE SCHEMA ${tables.schema}`);
    await session.query(`CREATE TABLE IF NOT EXISTS ${history} (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await session.query<{ version: number }>(`SELECT version FROM ${history}`)).map((row) => row.version));
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      await session.query(migration.sql);
      await session.query(`INSERT INTO ${history} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return applied;
  });
}
