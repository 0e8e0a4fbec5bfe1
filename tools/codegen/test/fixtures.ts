// Generates every fixture spec (test/<feature>/schemas/<feature>.yaml) into
// test/<feature>/generated/, with the same emitters `pnpm generate` uses. Run before the type
// check and the tests (`pnpm --filter @paysys/codegen test`); the output is not committed.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle, type SpecInfo } from "@paysys/spec-tools";
import { generateSpecFiles } from "../src/generate-spec.js";

const here = fileURLToPath(new URL(".", import.meta.url));

/** Codec types for the fixtures: core's, and a flag type of the codecs fixture's own. */
const codecTypes = { tenge: { type: "TengeInput" }, rfc3339: { type: "DateTimeInput" }, flag: { type: "FlagInput" } };
const codecImports = `import type { DateTimeInput, TengeInput } from "@paysys/core";\nimport type { FlagInput } from "../../flag-input.js";\n`;

export const features = readdirSync(here, { withFileTypes: true })
  .filter((d) => d.isDirectory() && readdirSync(join(here, d.name)).includes("schemas"))
  .map((d) => d.name);

/** The bundled fixture spec of a feature. */
export function fixture(feature: string) {
  return bundle({ name: feature, iface: "portal", file: join(here, feature, "schemas", `${feature}.yaml`) } as SpecInfo);
}

export async function generateFixture(feature: string): Promise<Record<string, string>> {
  return generateSpecFiles(fixture(feature), { typePrefix: "Fixture", codecTypes, codecImports }, `tools/codegen/test/${feature}/schemas/${feature}.yaml`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const feature of features) {
    const out = join(here, feature, "generated");
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const [name, content] of Object.entries(await generateFixture(feature))) {
      mkdirSync(dirname(join(out, name)), { recursive: true });
      writeFileSync(join(out, name), content);
    }
  }
  console.log(`fixtures generated: ${features.join(", ")}`);
}
