// Stores: where state that must outlive one call (or one process) is kept. Each is a small
// interface users can implement over their own database; the SDK ships an in-memory one and, in
// `@paysys/core/node`, file stores for processes on one machine.

/** Where the per-key chain keeps the current link of each key (the cash register's `Uid`). */
export interface ChainStore {
  get(key: string): Promise<string | null | undefined> | string | null | undefined;
  set(key: string, value: string): Promise<void> | void;
}

/** Keeps values in this process only. */
export class MemoryStore implements ChainStore {
  readonly #values = new Map<string, string>();
  get(key: string): string | undefined {
    return this.#values.get(key);
  }
  set(key: string, value: string): void {
    this.#values.set(key, value);
  }
}
