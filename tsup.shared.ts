// The build every published package shares: ESM and CJS with declarations, for Node 20+ and
// browsers. `node:` specifiers are kept: clearer, and bundlers then refuse them for the browser.
// Code shared by several entry points goes into one chunk in both formats (`splitting`): two
// copies of a module would mean two copies of each error class, and `instanceof` would fail
// between an error thrown by one entry and the class imported from another.
// A client's runtime gets its own copy of the pure helpers its entry exports (tools/runtime-copies.ts),
// so a page does not load them before its first call.
import type { Options } from "tsup";
import { type RuntimeCopies, runtimeCopies } from "./tools/runtime-copies";

export const packageBuild = (entry: string[], extra: Partial<Options> = {}, copies?: RuntimeCopies): Options => ({
  entry,
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  removeNodeProtocol: false,
  splitting: true,
  esbuildPlugins: copies ? [runtimeCopies(copies)] : [],
  ...extra,
});
