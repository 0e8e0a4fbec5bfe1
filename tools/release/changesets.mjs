// Which published packages changed since their last release without a pending changeset.
// A package's last release is the last commit that wrote its CHANGELOG.md (`changeset version`
// always does; the version line alone can end a release commit unchanged). A change is any file
// under its folder since then, generated code included: the drift check ties it to the specs, so
// a spec change shows up here too. A package never released counts all its files as changed.
// Pending changesets are the .changeset/*.md files that name the package in their front matter.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { publishedPackages } from "../packages.mjs";

/** [package, bump] pairs a changeset file names in its front matter. */
export function bumpsIn(changeset) {
  const front = changeset.match(/^---\n([\s\S]*?)\n---/);
  if (!front) return [];
  return [...front[1].matchAll(/^\s*["']?(@?[\w@/.-]+)["']?\s*:\s*(major|minor|patch)\s*$/gm)].map((m) => [m[1], m[2]]);
}

/** Package names a changeset file bumps. */
export function packagesIn(changeset) {
  return bumpsIn(changeset).map(([name]) => name);
}

/** Problems: one line per package with changes and no changeset. */
export function missingChangesets(changedByPackage, changesets) {
  const covered = new Set(changesets.flatMap(packagesIn));
  return Object.entries(changedByPackage)
    .filter(([name, files]) => files.length > 0 && !covered.has(name))
    .map(([name, files]) => `${name} changed since its last release without a changeset (${files.slice(0, 5).join(", ")}${files.length > 5 ? ", …" : ""}); run pnpm changeset`);
}

const git = (root, args) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

/** The commit of a package's last release (the last one that wrote its CHANGELOG.md), or "" if never released. */
export function lastReleaseCommit(root, folder) {
  return git(root, ["log", "-1", "--format=%H", "--", join(folder, "CHANGELOG.md")]);
}

/** Every release of a package, oldest first: the commit, its date and the version it released. */
export function releasesOf(root, folder) {
  const commits = git(root, ["log", "--reverse", "--format=%H %cs", "--", join(folder, "CHANGELOG.md")])
    .split("\n")
    .filter(Boolean);
  return commits.map((line) => {
    const [commit, date] = line.split(" ");
    const { version } = JSON.parse(git(root, ["show", `${commit}:${folder}/package.json`]));
    return { commit, date, version };
  });
}

/** Reads the repository: changed files per published package, and pending changesets. */
export function readRepository(root) {
  const changed = {};
  for (const { dir, pkg } of publishedPackages(root)) {
    const folder = join("packages", dir);
    const release = lastReleaseCommit(root, folder);
    const since = release ? git(root, ["diff", "--name-only", release, "--", folder]) : git(root, ["ls-files", "--", folder]);
    const untracked = git(root, ["ls-files", "--others", "--exclude-standard", "--", folder]);
    changed[pkg.name] = [...since.split("\n"), ...untracked.split("\n")].filter(Boolean);
  }
  const changesets = readdirSync(join(root, ".changeset"))
    .filter((f) => f.endsWith(".md") && f !== "README.md")
    .map((f) => readFileSync(join(root, ".changeset", f), "utf8"));
  return { changed, changesets };
}
