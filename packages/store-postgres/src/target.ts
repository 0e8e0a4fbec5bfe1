// What an error says about the database: where it is, never the password. A connection string may
// carry one (`postgres://user:secret@host/db`), and so may the pool's options; either could also
// come back inside a driver's message, so every message is scrubbed of both.
import type { PgPool } from "./pool.js";

/** The pool's database as `postgres://user@host:port/database`, without a password. */
export function describeTarget(pool: PgPool): string {
  const options = pool.options ?? {};
  if (typeof options.connectionString === "string") {
    try {
      const url = new URL(options.connectionString);
      url.password = "";
      url.search = ""; // query parameters may carry a password or an sslkey too
      return url.toString();
    } catch {
      return "postgres://(an unreadable connection string)";
    }
  }
  const user = options.user ?? process.env.PGUSER ?? "";
  const host = options.host ?? process.env.PGHOST ?? "localhost";
  const port = options.port ?? process.env.PGPORT ?? 5432;
  const database = options.database ?? process.env.PGDATABASE ?? user;
  return `postgres://${user ? `${user}@` : ""}${host}:${port}/${database}`;
}

/** The passwords the pool's options reveal, in every spelling a message could show them. */
export function secretsOf(pool: PgPool): string[] {
  const options = pool.options ?? {};
  const secrets: string[] = [];
  if (typeof options.password === "string") secrets.push(options.password);
  if (typeof options.connectionString === "string") {
    try {
      const url = new URL(options.connectionString);
      if (url.password) secrets.push(url.password, decodeURIComponent(url.password));
      for (const [name, value] of url.searchParams) if (/pass|key/i.test(name) && value) secrets.push(value);
    } catch {
      secrets.push(options.connectionString);
    }
  }
  return [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}
