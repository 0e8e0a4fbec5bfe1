/** The goal of issue 25 (point 5): a page loads at most this much before its first call. */
export const INITIAL_LOAD_GOAL: number;
/** Where the check fails today (above the goal; initial-load.mjs says why). */
export const INITIAL_LOAD_BUDGET: number;
/** A page that makes a client at load time and calls it later, per browser client. */
export const firstCallPages: Readonly<Record<string, string>>;
/** Bytes (min+gz) the page `source` loads before its first call, resolved from `dir`, and by chunk. */
export function initialLoad(dir: string, source: string): Promise<{ bytes: number; chunks: { path: string; bytes: number }[] }>;
