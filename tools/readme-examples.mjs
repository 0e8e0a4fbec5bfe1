#!/usr/bin/env node
// Copies the first ```ts block of every published package's README into
// packages/integration-tests/readme-examples/, where `tsc` type-checks them and a test runs
// them against the sandbox: a README that stops compiling or working fails CI.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publishedPackages } from "./packages.mjs";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "packages/integration-tests/readme-examples");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const { dir, path, pkg } of publishedPackages(root)) {
  const readme = readFileSync(join(path, "README.md"), "utf8");
  const block = readme.match(/```ts\n([\s\S]*?)```/);
  const firstSection = readme.indexOf("\n## ");
  if (!block || (firstSection >= 0 && readme.indexOf("```ts") > firstSection)) throw new Error(`${pkg.name}: README must start with a \`\`\`ts example before its first section`);
  writeFileSync(join(out, `${dir}.ts`), `// From packages/${dir}/README.md (tools/readme-examples.mjs). Do not edit here.\n${block[1]}export {};\n`);
}
