// What an error says about the database: where it is, never the password. A connection string may
// carry one (`postgres://user:secret@host/db`), and so may the pool's options; either could also
// come back inside a driver's message, so every message is scrubbed of both.
import { ConfigurationError } from "@paysys/core";
import type { PgPool } from "./pool.js";

/** The pool's database as `postgres://user@host:port/database`, without a password. */
export function describeTarget(pool: PgPool): string {
  const options = pool.options ?? {};
  if (typeof options.connectionString === "string") {
    const parts = partsOf(options.connectionString);
    if (!parts) return "postgres://(an unreadable connection string)";
    try {
      const url = new URL(`${parts.scheme}${parts.address}`);
      url.search = ""; // query parameters may carry a password or an sslkey too
      url.hash = "";
      if (parts.user) url.username = parts.user;
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

/**
 * Refuses a connection string whose password holds a `#`, `/` or `?` written as it is: pg reads the
 * address as WHATWG URL does, which ends the host there, so part of the password became the host
 * (`getaddrinfo ENOTFOUND <part of it>`, in every error) and no connection could ever be made.
 */
export function checkConnectionString(pool: PgPool): void {
  const { connectionString } = pool.options ?? {};
  if (typeof connectionString !== "string") return;
  if (/[#/?]/.test(partsOf(connectionString)?.password ?? "")) {
    throw new ConfigurationError(
      `@paysys/store-postgres: the connection string's password holds a "#", "/" or "?" written as it is; percent-encode it (encodeURIComponent), or pass the password as the pool's \`password\` option (the database was ${describeTarget(pool)})`,
    );
  }
}

/** The passwords the pool's options reveal, in every spelling a message could show them. */
export function secretsOf(pool: PgPool): string[] {
  const options = pool.options ?? {};
  const secrets: string[] = [];
  if (typeof options.password === "string") secrets.push(options.password);
  if (typeof options.connectionString === "string") {
    const parts = partsOf(options.connectionString);
    if (parts?.password) secrets.push(parts.password, decoded(parts.password));
    try {
      const url = new URL(`${parts?.scheme ?? ""}${parts?.address ?? ""}`);
      for (const [name, value] of url.searchParams) if (/pass|key/i.test(name) && value) secrets.push(value);
    } catch {
      secrets.push(options.connectionString);
    }
  }
  return [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
}

/**
 * A connection string's scheme, user and password, and the rest (host, port, database, query), split
 * at its last `@`: a password is often written unencoded, and with a `#`, `/` or `@` in it WHATWG URL
 * reads part of it as the host or the fragment (`postgres://u:#secret@h/db` has the fragment
 * `secret@h/db`), which went into every error as it was. An `@` later on (in the query) only makes
 * more of the string count as credentials: never shown.
 */
function partsOf(connectionString: string): { scheme: string; user: string; password: string; address: string } | undefined {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(connectionString)?.[0];
  if (!scheme) return undefined;
  const rest = connectionString.slice(scheme.length);
  const at = rest.lastIndexOf("@");
  if (at < 0) return { scheme, user: "", password: "", address: rest };
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(":");
  return {
    scheme,
    user: decoded(colon < 0 ? userinfo : userinfo.slice(0, colon)),
    password: colon < 0 ? "" : userinfo.slice(colon + 1),
    address: rest.slice(at + 1),
  };
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};
