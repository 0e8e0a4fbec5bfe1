// The whole path a maintainer takes, on a scratch git worktree of this commit: real edits to the
// e-commerce spec, `pnpm generate`, a build, a fresh API report. The report change of each edit is
// the one expected (and an edit that changes no type changes no line), and the spec diff, the report
// and the bump agree. One regeneration for all edits keeps it to one build. The worktree is HEAD:
// commit a change to the tools before this test can see it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repoRoot } from "@paysys/spec-tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiReport, compareReports, entryPointsOf, type ReportChange } from "../src/api-report.js";
import { requiredBump } from "../src/bump.js";
import { diffSpec, levelOf } from "../src/spec-diff.js";
import { edits } from "./edits.js";

const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
/** pnpm as the test was started with (turbo runs it through pnpm), or the one on PATH. */
const pnpm = (args: string[], cwd: string) => {
  const exec = process.env.npm_execpath;
  return exec?.includes("pnpm") ? run(process.execPath, [exec, ...args], cwd) : run("pnpm", args, cwd);
};

let worktree: string;
let report: ReportChange | undefined;
let specChanges: Awaited<ReturnType<typeof diffSpec>>;

beforeAll(async () => {
  worktree = join(mkdtempSync(join(tmpdir(), "paysys-worktree-")), "repo");
  run("git", ["worktree", "add", "--detach", worktree, "HEAD"], repoRoot);
  pnpm(["install", "--offline", "--frozen-lockfile", "--config.confirmModulesPurge=false"], worktree);
  const spec = join(worktree, "specs", edits.answerFieldRemoved.spec);
  const original = readFileSync(spec, "utf8");
  writeFileSync(
    spec,
    Object.values(edits).reduce((text, edit) => edit.apply(text), original),
  );
  run(join(worktree, "node_modules/.bin/tsx"), ["tools/codegen/src/main.ts"], worktree);
  for (const pkg of ["core", "ecommerce"]) pnpm(["exec", "tsup"], join(worktree, "packages", pkg));
  const dir = join(worktree, "packages/ecommerce");
  const entry = entryPointsOf(dir).find((e) => e.subpath === ".")!;
  report = compareReports(readFileSync(join(dir, "review", entry.report), "utf8"), apiReport(dir, entry));
  // Optic resolves `../common/…` next to the file: the unedited copy sits beside the edited one.
  const before = join(worktree, "specs/ecommerce/before.openapi.yaml");
  writeFileSync(before, original);
  specChanges = await diffSpec(before, spec);
}, 600_000);

// The worktree holds a whole install: deleting it took more than vitest's 10 s default on a loaded
// CI machine, so the files go first with a generous limit and git then forgets the worktree.
afterAll(() => {
  if (!worktree) return;
  rmSync(dirname(worktree), { recursive: true, force: true });
  run("git", ["worktree", "prune"], repoRoot);
}, 300_000);

describe("a spec edit, regenerated and built: the report change of each edit", () => {
  const lines = (side: "removed" | "added") => (report?.[side] ?? []).map((l) => l.trim());

  it("a field removed from an answer: its line leaves the report, the new one comes in", () => {
    expect(lines("removed")).toContain("url: string;");
    expect(lines("added")).toContain("link?: string;");
  });

  it("a request field made required: optional becomes required", () => {
    expect(lines("removed")).toContain("description?: string;");
    expect(lines("added")).toContain("description: string;");
  });

  it("a request enum value added: the union widens (a changed line, so the report alone calls it breaking)", () => {
    expect(lines("removed")).toContain("type?: 1;");
    expect(lines("added")).toContain("type?: 1 | 2;");
  });

  it("a gap filled and an operation marked as moving money change no type: nothing else moved in the report", () => {
    // Distinct lines: a request schema shows twice (as a component and in the method's params).
    const distinct = (side: "removed" | "added") => [...new Set(lines(side))].sort();
    expect(distinct("removed")).toEqual(["description?: string;", "type?: 1;", "url: string;"].sort());
    expect(distinct("added")).toEqual(["description: string;", "link?: string;", "type?: 1 | 2;"].sort());
  });

  it("spec diff and report agree: breaking, so a 0.x package needs a minor", () => {
    expect(report?.level).toBe("breaking");
    expect(levelOf(specChanges)).toBe("breaking");
    expect(specChanges.map((c) => c.what)).toEqual(
      expect.arrayContaining([
        expect.stringContaining("cannot remove response property 'url'"),
        expect.stringContaining("cannot make a request property required"),
        expect.stringContaining("now moves money"),
        "gap closed",
      ]),
    );
    expect(requiredBump("breaking", "0.1.0")).toBe("minor");
  });
});

describe("api:check on the same worktree", () => {
  it("fails while the committed report is stale, naming the package, the entry point and the lines", { timeout: 240_000 }, () => {
    const check = () => run(join(worktree, "node_modules/.bin/tsx"), ["tools/changes/src/api-reports.ts", "--check", "--only", "@paysys/ecommerce"], worktree);
    const stale = (() => {
      try {
        check();
        return { code: 0, out: "" };
      } catch (e) {
        const { status, stderr } = e as { status: number; stderr: string };
        return { code: status, out: stderr };
      }
    })();
    expect(stale.code).toBe(1);
    expect(stale.out).toContain("@paysys/ecommerce .: the public API changed and review/index.api.md was not updated (pnpm api:report)");
    expect(stale.out).toContain("- url: string;");
    // After `api:report` (as a maintainer runs it), the check passes.
    run(join(worktree, "node_modules/.bin/tsx"), ["tools/changes/src/api-reports.ts", "--only", "@paysys/ecommerce"], worktree);
    expect(check()).toContain("API reports: every published package's surface matches");
  });
});

describe("changeset:check on the same worktree", () => {
  /** Runs the bump check with exactly one pending changeset; its exit code and output. */
  const bumpCheck = (changeset: string) => {
    const dir = join(worktree, ".changeset");
    for (const f of readdirSync(dir)) if (f.endsWith(".md") && f !== "README.md") rmSync(join(dir, f));
    writeFileSync(join(dir, "only-one.md"), changeset);
    try {
      return { code: 0, out: run(join(worktree, "node_modules/.bin/tsx"), ["tools/changes/src/bump-check.ts"], worktree) };
    } catch (e) {
      const { status, stdout, stderr } = e as { status: number; stdout: string; stderr: string };
      return { code: status, out: `${stdout}${stderr}` };
    }
  };

  it("fails when a pending bump is lower than the changes require, and passes when it is not", { timeout: 240_000 }, () => {
    // The portal's specs changed in breaking ways since its 0.1.0 release (pnpm spec:diff shows them).
    const low = bumpCheck('---\n"@paysys/portal": patch\n---\n\nA fix.\n');
    expect(low.code).toBe(1);
    expect(low.out).toMatch(/error {2}@paysys\/portal 0\.1\.0: requires minor, changesets give patch \(spec portal-v2: breaking/);
    // The e-commerce edits of this worktree count too: never released, so everything in it is new (compatible).
    expect(low.out).toMatch(/error {2}@paysys\/ecommerce 0\.0\.0: requires patch, changesets give none/);
    const enough = bumpCheck('---\n"@paysys/portal": minor\n"@paysys/ecommerce": patch\n---\n\nBreaking: see the spec diff.\n');
    expect(enough.out).toContain("bump ok  @paysys/portal 0.1.0: requires minor, changesets give minor");
    expect(enough.out).toContain("bump ok  @paysys/ecommerce 0.0.0: requires patch, changesets give patch");
  });
});
