#!/usr/bin/env node
// Copies the first ```ts block of every published package's README into
// packages/integration-tests/readme-examples/, where `tsc` type-checks them and a test runs
// them against the sandbox: a README that stops compiling or working fails CI.
//
// The package's `test` and `typecheck` run this at the same time (turbo runs them in parallel), so
// it never empties the folder: each file is replaced whole (written aside, then renamed) only when
// it changed, and only files no README makes any more are removed.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publishedPackages } from "./packages.mjs";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "packages/integration-tests/readme-examples");
mkdirSync(out, { recursive: true });
const made = new Set();
for (const { dir, path, pkg } of publishedPackages(root)) {
  const readme = readFileSync(join(path, "README.md"), "utf8");
  const block = readme.match(/```ts\n([\s\S]*?)```/);
  const firstSection = readme.indexOf("\n## ");
  if (!block || (firstSection >= 0 && readme.indexOf("```ts") > firstSection)) throw new Error(`${pkg.name}: README must start with a \`\`\`ts example before its first section`);
  const file = join(out, `${dir}.ts`);
  const text = `// From packages/${dir}/README.md (tools/readme-examples.mjs). Do not edit here.\n${block[1]}export {};\n`;
  made.add(`${dir}.ts`);
  if (existsSync(file) && readFileSync(file, "utf8") === text) continue;
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, text);
  renameSync(aside, file);
}
for (const name of readdirSync(out)) if (name.endsWith(".ts") && !made.has(name)) rmSync(join(out, name), { force: true });
