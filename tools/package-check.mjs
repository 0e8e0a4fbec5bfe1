#!/usr/bin/env node
// `pnpm lint:packages`: every publishable package passes publint and @arethetypeswrong/cli
// (ESM and CJS with types, node16 and bundler resolution), and every client entry point bundles
// for the browser with no Node built-in (the clients are fetch-only).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { build } from "esbuild";
import { publishedPackages } from "./packages.mjs";

const root = new URL("..", import.meta.url).pathname;
const packages = publishedPackages(root);

let failed = 0;
function run(label, cmd, args, cwd) {
  try {
    execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
    console.log(`ok    ${label}`);
  } catch (e) {
    failed++;
    console.error(`FAIL  ${label}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

for (const { path: dir, pkg } of packages) {
  run(`${pkg.name}: publint --strict`, "pnpm", ["exec", "publint", "--strict"], dir);
  run(`${pkg.name}: attw (node16, bundler)`, "pnpm", ["exec", "attw", "--pack", ".", "--profile", "node16"], dir);
}

// Client code must run in browsers: bundle the main entry of each package that says it does
// (`"paysys": { "browser": true }`). The sandbox and the `/node` subpaths are Node-only by design.
for (const { path: dir, pkg } of packages.filter(({ pkg }) => pkg.paysys?.browser)) {
  try {
    const result = await build({
      entryPoints: [join(dir, pkg.exports["."].import.default)],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
      metafile: true,
    });
    const nodeImports = Object.values(result.metafile.inputs).flatMap((i) => i.imports.filter((imp) => imp.path.startsWith("node:")));
    if (nodeImports.length) throw new Error(`imports ${nodeImports.map((i) => i.path).join(", ")}`);
    console.log(`ok    ${pkg.name}: bundles for the browser without Node built-ins`);
  } catch (e) {
    failed++;
    console.error(`FAIL  ${pkg.name}: browser bundle: ${e.message}`);
  }
}

if (failed) {
  console.error(`\n${failed} package check(s) failed`);
  process.exit(1);
}
