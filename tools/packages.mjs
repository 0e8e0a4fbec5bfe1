// The packages this repository publishes: every folder of packages/ whose package.json is not
// private. One list for every tool that packs, checks, documents or versions them.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Published packages: `dir` (folder name), `path` (absolute), `pkg` (parsed package.json). */
export function publishedPackages(root) {
  return readdirSync(join(root, "packages"))
    .map((dir) => ({ dir, path: join(root, "packages", dir), pkg: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) }))
    .filter(({ pkg }) => !pkg.private);
}
