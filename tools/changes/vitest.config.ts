import { defineConfig } from "vitest/config";
import { testDefaults } from "../vitest-defaults.mjs";

// Optic parses each spec twice per comparison, and the end-to-end test regenerates and builds a
// package (its hooks carry their own, longer limits).
export default defineConfig({ test: { ...testDefaults, include: ["test/**/*.test.ts"], testTimeout: 60_000 } });
