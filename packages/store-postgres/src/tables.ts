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

function checked(what: string, name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new ConfigurationError(`@paysys/store-postgres: ${what} ${JSON.stringify(name)} must be a lowercase identifier (a-z, 0-9, _; at most 48 characters)`);
  }
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
