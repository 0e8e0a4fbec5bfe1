#!/usr/bin/env tsx
// `pnpm spec:diff [git-ref]`: what changed in each interface's spec since `git-ref` (default: the
// last release of the package generated from it), classified for the client's callers, with the
// bump that requires. Compares with the working tree.
import { join } from "node:path";
import { repoRoot } from "@paysys/spec-tools";
import { publishedPackages } from "../../packages.mjs";
import { lastReleaseCommit } from "../../release/changesets.mjs";
import { requiredBump } from "./bump.js";
import { type Change, levelOf, levels } from "./spec-diff.js";
import { specDiffs, specsOfPackage } from "./versions.js";

const ref = process.argv[2];
const MAX_DOCUMENTATION_LINES = 15;

function print(changes: Change[]): void {
  for (const level of [...levels].reverse()) {
    const some = changes.filter((c) => c.level === level);
    if (!some.length) continue;
    console.log(`  ${level} (${some.length})`);
    const shown = level === "documentation" ? some.slice(0, MAX_DOCUMENTATION_LINES) : some;
    for (const c of shown) console.log(`    ${c.where}: ${c.what}${c.by === "paysys" ? " [paysys rule]" : ""}`);
    if (shown.length < some.length) console.log(`    … ${some.length - shown.length} more`);
  }
}

try {
  for (const { dir, pkg } of publishedPackages(repoRoot)) {
    if (!specsOfPackage(pkg.name).length) continue;
    const from = ref ?? (lastReleaseCommit(repoRoot, join("packages", dir)) || null);
    const since = ref ? ref : from ? `its last release (${pkg.version}, ${from.slice(0, 7)})` : "nothing (never released: every operation is new)";
    for (const { spec, changes } of await specDiffs(pkg.name, from)) {
      const level = levelOf(changes);
      console.log(`\n${spec} (${pkg.name}) since ${since}: ${level ?? "no change"}${level ? `, requires ${requiredBump(level, pkg.version)}` : ""}`);
      print(changes);
    }
  }
} catch (e) {
  console.error(`spec:diff: ${(e as Error).message}`);
  process.exit(1);
}
