// Where the store's tables are: a schema, and a name for each table (a prefix, or names of your
// own). The names are checked, not quoted: a plain lowercase identifier means the same thing in
// every tool an operator uses (psql, a dump, a grant), and nothing in them can change a statement.
import { ConfigurationError } from "@paysys/core";

/** The tables the store keeps, each named `<prefix><table>` unless named in `names`. */
export type TableName = "migrations" | "values" | "leases" | "journal" | "callbacks" | "orders";

export interface TableOptions {
  /** Put before each default table name. Default `paysys_` (`paysys_journal`, `paysys_leases`…). */
  prefix?: string;
  /** A name of your own for any table (without the schema). */
  names?: Partial<Record<TableName, string>>;
}

/** The schema and every table's name, checked: what the SQL is written against. */
export interface Tables extends Record<TableName, string> {
  schema: string;
}

const TABLES: readonly TableName[] = ["migrations", "values", "leases", "journal", "callbacks", "orders"];
// 63 is PostgreSQL's identifier limit; indexes are named after their table with a suffix of up to 15.
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,47}$/;

/**
 * PostgreSQL's reserved key words (`pg_get_keywords()`, categories R and T: PostgreSQL 15–17), which
 * no table or schema can be named unquoted: a schema `user` or a table `order` made every statement
 * a syntax error at run time. Checked against the test server's own list (test/migrate.test.ts).
 */
const RESERVED = new Set(
  (
    "all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate collation column concurrently " +
    "constraint create cross current_catalog current_date current_role current_schema current_time current_timestamp current_user default " +
    "deferrable desc distinct do else end except false fetch for foreign freeze from full grant group having ilike in initially inner " +
    "intersect into is isnull join lateral leading left like limit localtime localtimestamp natural not notnull null offset on only or " +
    "order outer overlaps placing primary references returning right select session_user similar some symmetric system_user table " +
    "tablesample then to trailing true union unique user using variadic verbose when where window with"
  ).split(" "),
);

function checked(what: string, name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new ConfigurationError(`@paysys/store-postgres: ${what} ${JSON.stringify(name)} must be a lowercase identifier (a-z, 0-9, _; at most 48 characters)`);
  }
  if (RESERVED.has(name)) throw new ConfigurationError(`@paysys/store-postgres: ${what} ${JSON.stringify(name)} is a reserved word of PostgreSQL's SQL: choose another`);
  return name;
}

/** The tables the options name. Throws ConfigurationError for a name that is not a plain identifier, or two tables of one name. */
export function resolveTables(options: { schema?: string; tables?: TableOptions } = {}): Tables {
  const prefix = options.tables?.prefix ?? "paysys_";
  const names = options.tables?.names ?? {};
  const tables = { schema: checked("schema", options.schema ?? "public") } as Tables;
  for (const table of TABLES) tables[table] = checked(`the ${table} table's name`, names[table] ?? `${prefix}${table}`);
  if (new Set(TABLES.map((t) => tables[t])).size !== TABLES.length) {
    throw new ConfigurationError(`@paysys/store-postgres: two tables share a name: ${TABLES.map((t) => tables[t]).join(", ")}`);
  }
  return tables;
}

/** A table's name with its schema, as statements use it. */
export const qualified = (tables: Tables, table: TableName) => `${tables.schema}.${tables[table]}`;
