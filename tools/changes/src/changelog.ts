// The "Changes" section of an interface's reference page: the spec diff between each release of
// the package and the one before (the first against nothing), and what is not released yet.
import { join } from "node:path";
import { repoRoot, specs } from "@paysys/spec-tools";
import { releasesOf } from "../../release/changesets.mjs";
import { type Change, levelOf, levels } from "./spec-diff.js";
import { specDiffs, type Version } from "./versions.js";

export interface ChangesEntry {
  /** `0.2.0 (2026-11-30)`, or `Unreleased (since 0.1.0)`. */
  heading: string;
  changes: Change[];
  first: boolean;
}

/** The entries for one spec, newest first. */
export async function specHistory(specName: string, root = repoRoot): Promise<ChangesEntry[]> {
  const spec = specs.find((s) => s.name === specName);
  if (!spec) throw new Error(`no spec named ${specName}`);
  const name = `@paysys/${spec.iface}`;
  const releases = releasesOf(root, join("packages", spec.iface));
  const entries: ChangesEntry[] = [];
  let previous: Version = null;
  for (const release of releases) {
    const [diff] = await specDiffs(name, previous, release.commit, root, specName);
    entries.push({ heading: `${release.version} (${release.date})`, changes: diff?.changes ?? [], first: previous === null });
    previous = release.commit;
  }
  const [pendingDiff] = await specDiffs(name, previous, undefined, root, specName);
  const pending = pendingDiff?.changes ?? [];
  const last = releases.at(-1);
  entries.push({ heading: last ? `Unreleased (since ${last.version})` : "Unreleased (never released)", changes: pending, first: previous === null });
  return entries.reverse();
}

const MAX_LINES = 12;

/** The section as Markdown, for the page's description. */
export function renderHistory(entries: ChangesEntry[]): string {
  const out = ["## Changes", "", "What changed in this document between releases of its package, as `pnpm spec:diff` classifies it for callers."];
  for (const { heading, changes, first } of entries) {
    out.push("", `### ${heading}`, "");
    if (first) {
      out.push(`First release of this interface's client: ${changes.filter((c) => c.kind === "added" && c.where.startsWith("paths ›")).length} paths.`);
      continue;
    }
    if (!changes.length) {
      out.push("No change to this document.");
      continue;
    }
    out.push(`Overall: **${levelOf(changes)}**.`, "");
    for (const level of [...levels].reverse()) {
      const some = changes.filter((c) => c.level === level);
      if (!some.length) continue;
      const gaps = some.filter((c) => c.kind.startsWith("gap "));
      const summary =
        level === "documentation" ? ` (gaps closed ${gaps.filter((c) => c.kind === "gap closed").length}, opened ${gaps.filter((c) => c.kind === "gap opened").length})` : "";
      out.push(`- ${level}: ${some.length} change(s)${summary}`);
      if (level === "documentation") continue;
      for (const c of some.slice(0, MAX_LINES)) out.push(`  - \`${c.where}\`: ${c.what}`);
      if (some.length > MAX_LINES) out.push(`  - … ${some.length - MAX_LINES} more (\`pnpm spec:diff\`)`);
    }
  }
  return out.join("\n");
}
