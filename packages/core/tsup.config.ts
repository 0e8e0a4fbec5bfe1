// Core's build. The CommonJS build and the declarations are as every package's (tsup.shared.ts).
// The ESM build, which Node, Bun, Deno and bundlers load, comes in two layers
// (tools/first-load-layer.ts): src/first-load.ts as one file, then the rest importing it, so a cold
// import of a client reads a few files rather than a dozen.
import { defineConfig } from "tsup";
import { besideFirstLoad, checkedFirstLoad, type FirstLoadLayer, writeFacades } from "../../tools/first-load-layer";
import { packageBuild } from "../../tsup.shared";

const layer: FirstLoadLayer = {
  dir: import.meta.dirname,
  name: "@paysys/core",
  facades: { calls: "src/calls.ts", shell: "src/shell.ts", helpers: "src/helpers.ts" },
  list: "src/first-load.ts",
  pure: ["src/decimal.ts", "src/shown.ts", "src/internal/zone.ts", "src/internal/token-answer.ts"],
};
const entries = ["src/index.ts", "src/internal/index.ts", "src/shell.ts", "src/calls.ts", "src/helpers.ts", "src/node.ts", "src/testing.ts", "src/first-load.ts"];
// Every config writes into dist: the package script empties it first, not one config after another.
const shared = { clean: false };

export default defineConfig([
  packageBuild(["src/first-load.ts"], {
    ...shared,
    format: ["esm"],
    dts: false,
    splitting: false,
    esbuildPlugins: [checkedFirstLoad(layer)],
    onSuccess: () => writeFacades(layer),
  }),
  packageBuild(["src/index.ts", "src/internal/index.ts", "src/node.ts", "src/testing.ts"], { ...shared, format: ["esm"], dts: false, esbuildPlugins: [besideFirstLoad(layer)] }),
  // CommonJS is Node's (and Node's bundles'): no page's first load to spare, so no runtime copies.
  packageBuild(entries, { ...shared, format: ["cjs"], dts: false }),
  packageBuild(entries, { ...shared, dts: { only: true } }),
]);
