// Specs as they were at a git commit, and what changed in a package since a given commit: the
// spec diff of each interface it is generated from, and its API reports.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { repoRoot, specs, specsDir } from "@paysys/spec-tools";
import { compareReports, entryPointsOf, type ReportChange, reviewFolder } from "./api-report.js";
import { type Change, diffSpec, highest, type Level } from "./spec-diff.js";

const git = (root: string, args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, stdio: ["ignore", "pipe", "pipe"] });

/**
 * A point in history: a commit, `undefined` for the working tree, or `null` for "nothing yet" (a
 * package never released).
 */
export type Version = string | undefined | null;

/**
 * The `specs/` folder as it was at `version`: the working tree's own for `undefined`, otherwise
 * extracted into a scratch folder that `dispose()` removes. A ref git does not know is an error that
 * says so.
 */
export function specsAt(commit: Version, root = repoRoot): { dir: string; dispose: () => void } {
  if (commit === undefined) return { dir: join(root, "specs"), dispose: () => {} };
  const scratch = mkdtempSync(join(tmpdir(), "paysys-specs-"));
  const dispose = () => rmSync(scratch, { recursive: true, force: true });
  if (commit !== null) {
    try {
      // Read from git object by object (no archive, no tar): a CI run once failed in tar under load,
      // and its message was lost; every step here reports what git says.
      const resolved = git(root, ["rev-parse", "--verify", "--end-of-options", `${commit}^{commit}`]).trim();
      const files = git(root, ["ls-tree", "-r", "-z", "--name-only", resolved, "--", "specs"]).split("\0").filter(Boolean);
      for (const file of files) {
        mkdirSync(dirname(join(scratch, file)), { recursive: true });
        writeFileSync(join(scratch, file), git(root, ["cat-file", "blob", `${resolved}:${file}`]));
      }
    } catch (e) {
      dispose();
      throw new Error(`cannot read the specs at ${commit}: ${String((e as { stderr?: unknown }).stderr ?? "").trim() || (e as Error).message}`);
    }
  }
  return { dir: join(scratch, "specs"), dispose };
}

/** A file as it was at `commit` (undefined: it did not exist); the working tree's when `commit` is undefined. */
export function fileAt(commit: Version, path: string, root = repoRoot): string | undefined {
  if (commit === null) return undefined;
  if (commit === undefined) return existsSync(join(root, path)) ? readFileSync(join(root, path), "utf8") : undefined;
  try {
    return git(root, ["show", `${commit}:${path}`]);
  } catch {
    return undefined;
  }
}

/** The specs a package is generated from (`@paysys/portal` ← portal-v1 and portal-v2). */
export const specsOfPackage = (name: string) => specs.filter((s) => `@paysys/${s.iface}` === name);

export interface SpecDiff {
  spec: string;
  changes: Change[];
}

/** Each spec of a package (or only `only`), compared between two versions (by default the second is the working tree). */
export async function specDiffs(name: string, from: Version, to: Version = undefined, root = repoRoot, only?: string): Promise<SpecDiff[]> {
  const before = specsAt(from, root);
  const after = specsAt(to, root);
  try {
    const out: SpecDiff[] = [];
    for (const spec of specsOfPackage(name).filter((s) => only === undefined || s.name === only)) {
      const file = relative(specsDir, spec.file);
      const at = (dir: string) => (existsSync(join(dir, file)) ? join(dir, file) : undefined);
      out.push({ spec: spec.name, changes: await diffSpec(at(before.dir), at(after.dir)) });
    }
    return out;
  } finally {
    before.dispose();
    after.dispose();
  }
}

export interface ReportDiff {
  report: string;
  change: ReportChange;
}

/** How the committed API reports of a package differ between a commit and the working tree. */
export function reportDiffs(packageDir: string, from: Version, root = repoRoot): ReportDiff[] {
  return entryPointsOf(packageDir).flatMap((entry) => {
    const path = relative(root, join(reviewFolder(packageDir), entry.report));
    const change = compareReports(fileAt(from, path, root), fileAt(undefined, path, root));
    return change ? [{ report: entry.report, change }] : [];
  });
}

/** The highest level among spec and report changes. */
export const overallLevel = (diffs: SpecDiff[], reports: ReportDiff[]): Level | undefined =>
  highest([...diffs.flatMap((d) => d.changes.map((c) => c.level)), ...reports.map((r) => r.change.level)]);
