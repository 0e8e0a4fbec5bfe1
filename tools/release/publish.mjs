// The release as the release workflow (.github/workflows/release.yml) makes it, on a throwaway
// copy of the repository: `changeset version` turns the pending changesets into versions and
// CHANGELOG.md files, then `changeset publish` publishes every package whose version is not on the
// registry yet, here to the local registry (tools/release/registry.mjs). The repository itself is
// never changed: no version, no changelog, no git tag (`--no-git-tag`; the copy has no .git).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { publishedPackages } from "../packages.mjs";
import { npmrcFor } from "./registry.mjs";

/**
 * Copies the working tree's files (tracked and untracked-but-not-ignored, as they are on disk, so
 * an uncommitted change is checked too) and the published packages' built dist/ into `dest`.
 * node_modules is the repository's, linked: the changesets CLI and its changelog module resolve from it.
 */
export function copyRepository(root, dest) {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    const from = join(root, file);
    if (!existsSync(from) || !statSync(from).isFile()) continue; // deleted in the working tree
    mkdirSync(dirname(join(dest, file)), { recursive: true });
    cpSync(from, join(dest, file));
  }
  for (const { dir, path } of publishedPackages(root)) {
    if (!existsSync(join(path, "dist"))) throw new Error(`${dir}: no dist/ (build first)`);
    cpSync(join(path, "dist"), join(dest, "packages", dir, "dist"), { recursive: true });
  }
  symlinkSync(join(root, "node_modules"), join(dest, "node_modules"), "dir");
}

/** What `changeset version` left: problems (a package still at 0.0.0, no CHANGELOG.md, a changeset not consumed), and the versions. */
export function checkVersioned(copy) {
  const problems = [];
  const versions = {};
  for (const { dir, path, pkg } of publishedPackages(copy)) {
    versions[pkg.name] = pkg.version;
    if (pkg.version === "0.0.0") problems.push(`${pkg.name} is still at 0.0.0 after changeset version (no changeset names it)`);
    if (!existsSync(join(path, "CHANGELOG.md"))) problems.push(`${pkg.name} has no CHANGELOG.md after changeset version (packages/${dir})`);
  }
  const left = readdirSync(join(copy, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
  if (left.length) problems.push(`changesets not consumed by changeset version: ${left.join(", ")}`);
  return { problems, versions };
}

/**
 * pnpm publish replaces a `workspace:` range with the version of the package installed under that
 * name; in the copy nothing is installed, so each package's workspace dependencies are linked to
 * their folders, as `pnpm install` links them.
 */
function linkWorkspaceDependencies(copy) {
  // Every workspace package (private ones too: devDependencies such as @paysys/codegen are rewritten as well).
  const folders = new Map();
  for (const group of ["packages", "tools"]) {
    for (const dir of readdirSync(join(copy, group))) {
      const file = join(copy, group, dir, "package.json");
      if (existsSync(file)) folders.set(JSON.parse(readFileSync(file, "utf8")).name, join(copy, group, dir));
    }
  }
  for (const { path, pkg } of publishedPackages(copy)) {
    const all = { ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
    for (const [name, range] of Object.entries(all)) {
      if (!String(range).startsWith("workspace:")) continue;
      const target = folders.get(name);
      if (!target) throw new Error(`${pkg.name} depends on ${name} (${range}), which is no workspace package`);
      const link = join(path, "node_modules", name);
      mkdirSync(dirname(link), { recursive: true });
      symlinkSync(target, link, "dir");
    }
  }
}

/**
 * `changeset version` then `changeset publish --no-git-tag` in `copy`, against `registry`
 * ({ url, token }). Returns the published versions by package name.
 */
export function versionAndPublish(root, copy, registry) {
  writeFileSync(join(copy, ".npmrc"), npmrcFor(registry));
  const env = { ...process.env, npm_config_registry: registry.url, CI: "true" };
  const changeset = join(root, "node_modules", ".bin", "changeset");
  const run = (args) => execFileSync(changeset, args, { cwd: copy, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });

  run(["version"]);
  const { problems, versions } = checkVersioned(copy);
  if (problems.length) throw new Error(problems.join("\n"));
  linkWorkspaceDependencies(copy);

  const output = run(["publish", "--no-git-tag"]);
  const notPublished = Object.entries(versions).filter(([name, version]) => !output.includes(`${name}@${version}`));
  if (notPublished.length) throw new Error(`changeset publish did not publish ${notPublished.map(([n, v]) => `${n}@${v}`).join(", ")}:\n${output}`);
  return versions;
}

/** The registry's own answer: every package at its version, `latest` pointing to it. */
export async function checkOnRegistry(url, versions) {
  const problems = [];
  for (const [name, version] of Object.entries(versions)) {
    const answer = await fetch(`${url}${name.replace("/", "%2f")}`);
    const doc = answer.ok ? await answer.json() : undefined;
    if (!doc?.versions?.[version]) problems.push(`${name}@${version} is not on the registry (${answer.status})`);
    else if (doc["dist-tags"]?.latest !== version) problems.push(`${name}: latest is ${doc["dist-tags"]?.latest}, not ${version}`);
    else if (JSON.stringify(doc.versions[version].dependencies ?? {}).includes("workspace:")) problems.push(`${name}@${version} was published with a workspace: range`);
  }
  if (problems.length) throw new Error(problems.join("\n"));
}

/** The CHANGELOG.md heading `changeset version` wrote for a package (for the check's summary). */
export function changelogHead(copy, dir) {
  const text = readFileSync(join(copy, "packages", dir, "CHANGELOG.md"), "utf8");
  return text.split("\n").find((l) => l.startsWith("## ")) ?? "";
}
