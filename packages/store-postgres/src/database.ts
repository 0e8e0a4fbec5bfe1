// Every call the store makes on the user's pool, bounded and named. A store that hangs is worse
// than one that fails: the SDK writes its journal before it sends money, so a store call that does
// not answer must become a typed error the client can act on (nothing was sent), in bounded time.
//
// - Taking a connection from the pool is bounded on the client: a pool that is full, or a server
//   that accepts TCP but never answers, ends in StoreUnavailableError after `timeoutMs`.
// - Every statement carries the time left (`query_timeout`); when it runs out the connection is
//   destroyed, not returned to the pool, since its answer may still arrive.
// - Transactions also bound themselves on the server (`SET LOCAL statement_timeout`, `lock_timeout`,
//   `idle_in_transaction_session_timeout`), so a waiting transaction gives its locks back there too.
import { createHash } from "node:crypto";
import { PaysysError, StoreUnavailableError } from "@paysys/core";
import { scrub, withoutUrlCredentials } from "@paysys/core/internal";
import type { PgPool, PgPoolClient } from "./pool.js";
import { checkConnectionString, describeTarget, secretsOf } from "./target.js";

/** One connection, for one store call: statements bounded by the time the call has left. */
export interface Session {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  /** Gives the call `ms` more from now (after a wait the store does not own, such as `update`'s decision). */
  allow(ms: number): void;
}

/** Bounds of a transaction: its statements, and how long it may wait for a lock another holds. */
export interface TransactionBounds {
  lockWaitMs: number;
}

const TIMED_OUT = "timed out";

// The name a statement is prepared under on each connection (pg prepares a named statement once per
// connection, then only binds it): the store's statements run thousands of times, and their CTEs
// cost more to parse and plan than to run. The name is the text's hash, so stores over one pool with
// other table names never meet under one name, nor do two copies of this package on one pool (its
// ES module and CommonJS builds, two versions): numbered in each copy, their names met, and every
// call of the second failed ("Prepared statements must be unique"). Statements without parameters
// (the transaction preambles, several statements in one) are sent as they are.
const preparedNames = new Map<string, string>();
function preparedName(text: string): string {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `paysys_store_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`;
    preparedNames.set(text, name);
  }
  return name;
}

// An idle connection the server closed (a restart, a failover) is an `error` event on the pool, and
// an `error` event nobody listens to ends a Node process. The pool has dropped that connection
// already; the store's next call opens another, or fails with StoreUnavailableError.
const listened = new WeakSet<PgPool>();
const ignoreIdleConnectionError = () => {};

export class Database {
  readonly target: string;
  readonly #pool: PgPool;
  readonly timeoutMs: number;
  readonly #secrets: string[];

  constructor(pool: PgPool, timeoutMs: number) {
    checkConnectionString(pool);
    this.#pool = pool;
    this.timeoutMs = timeoutMs;
    this.target = describeTarget(pool);
    this.#secrets = secretsOf(pool);
    if (!listened.has(pool)) {
      pool.on("error", ignoreIdleConnectionError);
      listened.add(pool);
    }
  }

  /** Runs `work` on one connection; any failure becomes a StoreUnavailableError naming `operation`. */
  async run<T>(operation: string, work: (session: Session) => Promise<T>): Promise<T> {
    let deadline = Date.now() + this.timeoutMs;
    let client: PgPoolClient;
    try {
      client = await this.#connect(deadline);
    } catch (e) {
      throw this.#unavailable(operation, e);
    }
    // Set when the connection can no longer be trusted: pg then closes it instead of pooling it.
    let broken: Error | undefined;
    // A borrowed connection the server closes (a shutdown, a failover) emits "error" between two
    // statements; unheard, Node would end the process. The next statement fails and says so.
    const onError = (e: Error) => {
      broken = e;
    };
    client.on("error", onError);
    const session: Session = {
      query: async <R>(text: string, values?: unknown[]) => {
        const timeout = Math.max(1, deadline - Date.now());
        try {
          return (await client.query({ name: values?.length ? preparedName(text) : undefined, text, values, query_timeout: timeout })).rows as R[];
        } catch (e) {
          if (!isServerError(e)) broken = e instanceof Error ? e : new Error(String(e));
          throw e;
        }
      },
      allow: (ms) => {
        deadline = Date.now() + ms;
      },
    };
    try {
      return await work(session);
    } catch (e) {
      throw e instanceof PaysysError ? e : this.#unavailable(operation, e);
    } finally {
      client.removeListener("error", onError);
      client.release(broken);
    }
  }

  /**
   * Runs `work` in a transaction bounded on the server too. A failure rolls it back (or, on a broken
   * connection, the server does when the connection closes).
   */
  transaction<T>(operation: string, bounds: TransactionBounds, work: (session: Session) => Promise<T>): Promise<T> {
    return this.run(operation, async (session) => {
      // Numbers of our own, not the caller's: the statement is built from integers only.
      const statement = Math.round(this.timeoutMs);
      const lock = Math.round(bounds.lockWaitMs);
      session.allow(this.timeoutMs + bounds.lockWaitMs);
      await session.query(
        `BEGIN; SET LOCAL statement_timeout = ${statement + lock}; SET LOCAL lock_timeout = ${lock}; SET LOCAL idle_in_transaction_session_timeout = ${statement + lock}`,
      );
      try {
        const result = await work(session);
        await session.query("COMMIT");
        return result;
      } catch (e) {
        await session.query("ROLLBACK").catch(() => {});
        throw e;
      }
    });
  }

  /** A connection from the pool, or an error once the deadline passes (a late connection goes back to the pool). */
  #connect(deadline: number): Promise<PgPoolClient> {
    return new Promise((resolve, reject) => {
      let late = false;
      const timer = setTimeout(
        () => {
          late = true;
          reject(new Error(`${TIMED_OUT}: no connection from the pool within ${this.timeoutMs} ms`));
        },
        Math.max(1, deadline - Date.now()),
      );
      this.#pool.connect().then(
        (client) => {
          clearTimeout(timer);
          if (late) client.release();
          else resolve(client);
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  #unavailable(operation: string, e: unknown): StoreUnavailableError {
    const code = (e as { code?: unknown })?.code;
    const reason = e instanceof Error ? e.message || e.name : String(e);
    const hint =
      code === "42P01" || code === "3F000"
        ? " (the store's tables are missing: run migrate(pool) first)"
        : /read timeout|timed out|statement timeout|lock timeout/i.test(reason)
          ? ` (no answer within ${this.timeoutMs} ms)`
          : "";
    const message = `@paysys/store-postgres could not ${operation} on ${this.target}: ${reason}${typeof code === "string" ? ` [${code}]` : ""}${hint}`;
    return new StoreUnavailableError(scrub(withoutUrlCredentials(message), this.#secrets), this.target, { cause: e });
  }
}

/** An error the server answered (it has a severity): the connection itself is still fine. */
const isServerError = (e: unknown) => typeof (e as { severity?: unknown })?.severity === "string" && (e as { code?: string }).code?.startsWith("57P") !== true;
