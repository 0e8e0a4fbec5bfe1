// One queue per key: tasks on a key run one at a time, in the order they came; different keys run
// in parallel. Used by the per-key chain (calls on one register) and by MemoryStore.update.

export class KeyedQueue {
  /** The end of each key's queue: settles (never rejects) when the key's last task has. */
  readonly #tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => T | Promise<T>): Promise<T> {
    const result = (this.#tails.get(key) ?? Promise.resolve()).then(task);
    // The queue forgets a key once nothing waits behind its last task.
    const forget = () => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    };
    const tail = result.then(forget, forget);
    this.#tails.set(key, tail);
    return result;
  }
}
