// Stores: where state that must outlive one call (or one process) is kept. Each is a small
// interface users can implement over their own database; the SDK ships an in-memory one and, in
// `@paysys/core/node`, file stores for processes on one machine.
import { KeyedQueue } from "./queue.js";

/** Where the per-key chain keeps the current link of each key (the cash register's `Uid`). */
export interface ChainStore {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  set(key: string, value: string): Promise<void> | void;
}

/**
 * Where a credential's token is kept when a service allows one token per credential (a new one
 * kills the old: cash-out). Every client of the credential, in any process that shares the store,
 * uses the token in it; `update` runs with no other writer in between, so two processes never both
 * authorize. Over a database: `update` is a transaction that reads the row `FOR UPDATE` (or holds an
 * advisory lock), calls `decide`, writes what it returns and commits.
 */
export interface TokenStore {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  /** Reads the key's value, lets `decide` choose the new one (undefined: leave it), writes it; resolves with the value now stored. */
  update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined>;
}

/** Keeps values in this process only. `update` runs one at a time per key. */
export class MemoryStore implements ChainStore, TokenStore {
  readonly #values = new Map<string, string>();
  readonly #queue = new KeyedQueue();
  get(key: string): string | undefined {
    return this.#values.get(key);
  }
  set(key: string, value: string): void {
    this.#values.set(key, value);
  }
  update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined> {
    return this.#queue.run(key, async () => {
      const next = await decide(this.#values.get(key));
      if (next !== undefined) this.#values.set(key, next);
      return this.#values.get(key);
    });
  }
}
