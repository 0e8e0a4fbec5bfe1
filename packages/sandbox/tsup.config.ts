import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

// Both builds write to dist/, so neither cleans it (the build script does, first).
export default defineConfig([
  packageBuild(["src/index.ts"], { clean: false }),
  // The CLI uses top-level await, so it is ESM only.
  packageBuild(["src/cli.ts"], { format: ["esm"], dts: false, clean: false }),
]);
