import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { missingChangesets, packagesIn, readRepository } from "../changesets.mjs";

describe("changeset check", () => {
  it("reads the packages a changeset bumps", () => {
    expect(packagesIn("---\n\"@paysys/portal\": minor\n'@paysys/core': patch\n---\n\nText")).toEqual(["@paysys/portal", "@paysys/core"]);
    expect(packagesIn("no front matter")).toEqual([]);
  });

  it("flags a changed package without a changeset, and only that one", () => {
    const problems = missingChangesets({ "@paysys/portal": ["packages/portal/src/client.ts"], "@paysys/core": [], "@paysys/sandbox": ["packages/sandbox/src/x.ts"] }, [
      '---\n"@paysys/sandbox": patch\n---\nfix',
    ]);
    expect(problems).toEqual([expect.stringContaining("@paysys/portal changed since its last release without a changeset (packages/portal/src/client.ts)")]);
  });

  it("reads a real repository: changes after the last release (CHANGELOG.md written) count", () => {
    const repo = mkdtempSync(join(tmpdir(), "changeset-check-"));
    const sh = (...args) => execFileSync("git", args, { cwd: repo });
    sh("init", "-q", "-b", "main");
    sh("config", "user.email", "t@example.com");
    sh("config", "user.name", "t");
    mkdirSync(join(repo, "packages/a/src"), { recursive: true });
    mkdirSync(join(repo, ".changeset"));
    writeFileSync(join(repo, "packages/a/package.json"), JSON.stringify({ name: "a", version: "1.0.0" }, null, 2));
    writeFileSync(join(repo, "packages/a/src/index.ts"), "export const x = 1;\n");
    sh("add", "-A");
    sh("commit", "-qm", "a, never released");
    expect(readRepository(repo).changed.a).toEqual(["packages/a/package.json", "packages/a/src/index.ts"]);
    writeFileSync(join(repo, "packages/a/CHANGELOG.md"), "# a\n\n## 1.0.0\n");
    sh("add", "-A");
    sh("commit", "-qm", "release a 1.0.0");
    expect(readRepository(repo).changed).toEqual({ a: [] });
    writeFileSync(join(repo, "packages/a/src/index.ts"), "export const x = 2;\n");
    sh("commit", "-qam", "change a");
    const { changed, changesets } = readRepository(repo);
    expect(missingChangesets(changed, changesets)).toHaveLength(1);
    writeFileSync(join(repo, ".changeset/x.md"), "---\na: patch\n---\nx is 2\n");
    const again = readRepository(repo);
    expect(missingChangesets(again.changed, again.changesets)).toEqual([]);
  });
});
