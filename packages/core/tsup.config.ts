import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

export default defineConfig(
  packageBuild(
    ["src/index.ts", "src/internal/index.ts", "src/shell.ts", "src/calls.ts", "src/helpers.ts", "src/node.ts", "src/testing.ts"],
    {},
    {
      // What a client's entry reaches (it re-exports /calls and imports /shell and /helpers), and @paysys/core itself.
      firstLoad: ["src/shell.ts", "src/helpers.ts", "src/calls.ts", "src/index.ts"],
      pure: ["src/decimal.ts", "src/shown.ts", "src/internal/zone.ts", "src/internal/token-answer.ts"],
    },
  ),
);
