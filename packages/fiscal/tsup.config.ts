import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared";

export default defineConfig(packageBuild(["src/index.ts", "src/spec.ts", "src/node.ts"], {}, { firstLoad: ["src/index.ts"], pure: ["src/positions.ts"] }));
