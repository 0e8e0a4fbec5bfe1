#!/usr/bin/env tsx
// Part of `pnpm changeset:check`: fails when a published package's pending changesets bump it less
// than its changes since the last release require. The requirement comes from the spec diff of
// each interface the package is generated from and from its API reports (bump.ts has the policy).
import { join } from "node:path";
import { repoRoot } from "@paysys/spec-tools";
import { publishedPackages } from "../../packages.mjs";
import { lastReleaseCommit, readRepository } from "../../release/changesets.mjs";
import { lowerThan, pendingBump, requiredBump } from "./bump.js";
import { levelOf } from "./spec-diff.js";
import { overallLevel, reportDiffs, specDiffs } from "./versions.js";

const { changesets } = readRepository(repoRoot);
const problems: string[] = [];
for (const { dir, path, pkg } of publishedPackages(repoRoot)) {
  const from = lastReleaseCommit(repoRoot, join("packages", dir)) || null;
  const diffs = await specDiffs(pkg.name, from);
  const reports = reportDiffs(path, from);
  const required = requiredBump(overallLevel(diffs, reports), pkg.version);
  const given = pendingBump(changesets, pkg.name);
  const why = [
    ...diffs.filter((d) => d.changes.length).map((d) => `spec ${d.spec}: ${levelOf(d.changes)}`),
    ...reports.map((r) => `API report ${r.report}: ${r.change.level} (${r.change.removed.length} line(s) removed, ${r.change.added.length} added)`),
  ];
  const line = `${pkg.name} ${pkg.version}: requires ${required}, changesets give ${given}${why.length ? ` (${why.join("; ")})` : ""}`;
  if (lowerThan(given, required)) problems.push(`${line}; raise the bump in a changeset (pnpm changeset), or run pnpm spec:diff to see why`);
  else console.log(`bump ok  ${line}`);
}
for (const p of problems) console.error(`error  ${p}`);
if (problems.length) process.exit(1);
