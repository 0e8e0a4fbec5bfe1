import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

// `shims`: the CommonJS build finds the migration files through import.meta.url like the ESM one.
export default defineConfig(packageBuild(["src/index.ts"], { shims: true }));
