// Where each thing the store keeps lives in Redis, under one prefix (README: "Key layout"). Every
// name is built here, so the layout the README documents is the one the code uses.

/** The Redis keys of one store, all under `prefix`. */
export function keyLayout(prefix: string) {
  return {
    /** The store's generation: a random id written once; a write that finds another (or none) refuses. */
    generation: `${prefix}store`,
    /** A chain link or a token (ChainStore and TokenStore share one namespace, as in MemoryStore). */
    value: (key: string) => `${prefix}value:${key}`,
    /** The lock `update` holds while its `decide` runs. */
    valueLock: (key: string) => `${prefix}value-lock:${key}`,
    /** A lease: hash of holder, fence and expiresAt (server ms). Never expires: its fence must only grow. */
    lease: (name: string) => `${prefix}lease:${name}`,
    /** A journal entry: hash of intent (JSON), settlement (JSON) and state. */
    journal: (key: string) => `${prefix}journal:${key}`,
    /** The keys of unresolved intents, a sorted set scored 0: ordered by key, so a prefix is a range. */
    unresolved: `${prefix}unresolved`,
    /** A webhook delivery: "processing" (expiring claim) or "done". */
    callback: (key: string) => `${prefix}callback:${key}`,
    /** An order's last recorded callback status. */
    order: (orderId: string) => `${prefix}order:${orderId}`,
  };
}

export type KeyLayout = ReturnType<typeof keyLayout>;
