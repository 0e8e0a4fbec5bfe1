import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/spec.ts", "src/node.ts"],
  format: ["esm", "cjs"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "es2022",
  // Keep `node:` specifiers: clearer, and bundlers then refuse them for the browser.
  removeNodeProtocol: false,
});
