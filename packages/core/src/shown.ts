// How error messages show a value the caller passed: enough to find it, never a whole payload.

/** A value as an error message may show it: strings quoted and cut short, everything else by its type. Never for secrets. */
export function shownValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "an invalid Date" : "a Date";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}
