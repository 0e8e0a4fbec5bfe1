import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

export default defineConfig(packageBuild(["src/index.ts", "src/internal/index.ts", "src/shell.ts", "src/calls.ts", "src/helpers.ts", "src/node.ts", "src/testing.ts"]));
