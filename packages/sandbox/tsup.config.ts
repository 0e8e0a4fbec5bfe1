import { defineConfig } from "tsup";

export default defineConfig([
  { entry: ["src/index.ts"], format: ["esm", "cjs"], dts: true, clean: true, sourcemap: true, target: "es2022", removeNodeProtocol: false },
  // The CLI uses top-level await, so it is ESM only.
  { entry: ["src/cli.ts"], format: ["esm"], sourcemap: true, target: "es2022", removeNodeProtocol: false },
]);
