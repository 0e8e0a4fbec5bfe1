// Which runtime the SDK runs on, where its fast paths differ (platform.ts, http.ts).

/**
 * Node itself, not a runtime that offers Node's builtins for compatibility: Bun and Deno have
 * `process` and node:http too, and so has workerd (Cloudflare Workers) with recent compatibility
 * dates, even without `nodejs_compat` (`process.versions.node` set, node:http built on its fetch);
 * their own `fetch` is their fast path. Workers say who they are in `navigator.userAgent`.
 */
export function isNode(): boolean {
  const g = globalThis as {
    process?: { versions?: { node?: string; bun?: string; deno?: string } };
    Bun?: unknown;
    Deno?: unknown;
    navigator?: { userAgent?: unknown };
  };
  const versions = g.process?.versions;
  return typeof versions?.node === "string" && !versions.bun && !versions.deno && g.Bun === undefined && g.Deno === undefined && g.navigator?.userAgent !== "Cloudflare-Workers";
}
