// The build every published package shares: ESM and CJS with declarations, for Node 20+ and
// browsers. `node:` specifiers are kept: clearer, and bundlers then refuse them for the browser.
import type { Options } from "tsup";

export const packageBuild = (entry: string[], extra: Partial<Options> = {}): Options => ({
  entry,
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  removeNodeProtocol: false,
  ...extra,
});
