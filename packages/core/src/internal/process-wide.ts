// What must be one per process, not one per loaded copy of core: a process can load core twice (its
// ESM and CommonJS builds, or two versions), and each copy's module state would then miss the other's.

/** The process's one value under `name`, made on first use; kept on `globalThis` under a registered symbol. */
export function processWide<T>(name: string, make: () => T): T {
  const slots = globalThis as Record<symbol, unknown>;
  const key = Symbol.for(`@paysys/core ${name}`);
  if (!(key in slots)) slots[key] = make();
  return slots[key] as T;
}
