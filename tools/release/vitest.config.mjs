import { defineConfig } from "vitest/config";
import { testDefaults } from "../vitest-defaults.mjs";

export default defineConfig({ test: { ...testDefaults, include: ["test/**/*.test.mjs"] } });
