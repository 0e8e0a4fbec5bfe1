// Setting a property as data. A file of its own: a client's shell uses it (snapshot.ts), and a page
// loads every file its first load reaches whole (tools/initial-load.mjs), so not objects.ts's other helpers.

/** Sets a property as data, also when its name is `__proto__` (which plain assignment would treat as the prototype). */
export function put(target: Record<PropertyKey, unknown>, k: PropertyKey, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  else target[k] = v;
}
