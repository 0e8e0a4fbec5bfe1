// What the store needs of the user's `pg` Pool, spelt out: a `pg.Pool` fits it as it is, and the
// package's types do not require @types/pg (nor Node's types) of a project that has its own.

/** The pool the store borrows connections from: a `pg.Pool` (pg 8). */
export interface PgPool {
  connect(): Promise<PgPoolClient>;
  on(event: "error", listener: (error: Error) => void): unknown;
  /** The pool's settings: read only to name the database in errors (never its password). */
  readonly options?: PgPoolOptions;
}

export interface PgPoolOptions {
  connectionString?: string;
  password?: unknown;
  user?: string;
  host?: string;
  port?: number;
  database?: string;
}

/** A connection borrowed from the pool. */
export interface PgPoolClient {
  /** `name`: prepared under that name on this connection, then only bound. */
  query(config: { name?: string; text: string; values?: unknown[]; query_timeout?: number }): Promise<{ rows: unknown[] }>;
  /** Gives it back; with an error, the pool closes it instead. */
  release(error?: Error | boolean): void;
  /** The connection failed while borrowed (the server shut down): without a listener, Node ends the process. */
  on(event: "error", listener: (error: Error) => void): unknown;
  removeListener(event: "error", listener: (error: Error) => void): unknown;
}
