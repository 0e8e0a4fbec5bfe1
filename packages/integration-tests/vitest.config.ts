import { defineConfig } from "vitest/config";

// Hooks start sandboxes, bundle fixtures and launch Chromium; on a loaded 2-core CI machine the
// 10 s default was seen to run out in setup and teardown that were only slow, not stuck.
export default defineConfig({ test: { include: ["test/**/*.test.ts"], hookTimeout: 60_000 } });
