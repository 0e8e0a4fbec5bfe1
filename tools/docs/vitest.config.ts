import { defineConfig } from "vitest/config";

// Hooks launch Chromium; on a loaded 2-core CI machine that can take longer than the 10 s default.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], hookTimeout: 60_000 } });
