// The build every published package shares: ESM and CJS with declarations, for Node 20+ and
// browsers. `node:` specifiers are kept: clearer, and bundlers then refuse them for the browser.
// Code shared by several entry points goes into one chunk in both formats (`splitting`): two
// copies of a module would mean two copies of each error class, and `instanceof` would fail
// between an error thrown by one entry and the class imported from another.
import type { Options } from "tsup";

export const packageBuild = (entry: string[], extra: Partial<Options> = {}): Options => ({
  entry,
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  removeNodeProtocol: false,
  splitting: true,
  ...extra,
});
