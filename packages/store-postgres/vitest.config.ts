import { defineConfig } from "vitest/config";
import { testDefaults } from "../../tools/vitest-defaults.mjs";

export default defineConfig({ test: testDefaults });
