#!/usr/bin/env tsx
// `pnpm api:report` writes each published package's API reports (review/*.api.md);
// `pnpm api:check` (in the test suite) fails when one is out of date, naming what changed.
// `--only <package>` limits either to one package. The packages must be built.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@paysys/spec-tools";
import { publishedPackages } from "../../packages.mjs";
import { apiReport, compareReports, entryPointsOf, reviewFolder } from "./api-report.js";

const check = process.argv.includes("--check");
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const problems: string[] = [];
for (const { path, pkg } of publishedPackages(repoRoot).filter(({ pkg }) => only === undefined || pkg.name === only)) {
  const entries = entryPointsOf(path);
  const wanted = new Set(entries.map((e) => e.report));
  for (const entry of entries) {
    const file = join(reviewFolder(path), entry.report);
    const report = apiReport(path, entry);
    const committed = existsSync(file) ? readFileSync(file, "utf8") : undefined;
    if (committed === report) continue;
    if (check) {
      const change = compareReports(committed, report);
      const lines = [...(change?.removed ?? []).map((l) => `  - ${l.trim()}`), ...(change?.added ?? []).map((l) => `  + ${l.trim()}`)].slice(0, 12);
      problems.push(`${pkg.name} ${entry.subpath}: the public API changed and review/${entry.report} was not updated (pnpm api:report)\n${lines.join("\n")}`);
    } else {
      mkdirSync(reviewFolder(path), { recursive: true });
      writeFileSync(file, report);
      console.log(`wrote ${pkg.name} review/${entry.report}`);
    }
  }
  // A report whose entry point is gone goes too.
  for (const stale of existsSync(reviewFolder(path)) ? readdirSync(reviewFolder(path)).filter((f) => f.endsWith(".api.md") && !wanted.has(f)) : []) {
    if (check) problems.push(`${pkg.name}: review/${stale} has no entry point any more (pnpm api:report)`);
    else rmSync(join(reviewFolder(path), stale));
  }
}
for (const p of problems) console.error(`error  ${p}`);
if (problems.length) process.exit(1);
console.log(check ? "API reports: every published package's surface matches its review/*.api.md" : "API reports written");
