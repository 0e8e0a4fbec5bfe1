// `npm run release:pack`: the published packages as tarballs in artifacts/packages/, and the line
// that installs them into another project. The packages are not on a registry yet; this is how a
// user tries them. `release:check` packs with the same function and installs the result into a
// scratch project, so the line printed here is the one that check proves.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { publishedPackages } from "../packages.mjs";

/** Packs every published package into `dest` (pnpm pack rewrites workspace: ranges to versions); returns the tarballs' paths. */
export function packPublished(root, dest) {
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  for (const { path } of publishedPackages(root)) {
    execFileSync("pnpm", ["pack", "--pack-destination", dest], { cwd: path, stdio: ["ignore", "ignore", "pipe"], timeout: 180_000 });
  }
  return readdirSync(dest)
    .filter((f) => f.endsWith(".tgz"))
    .map((f) => join(dest, f));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = new URL("../..", import.meta.url).pathname;
  const tarballs = packPublished(root, join(root, "artifacts", "packages"));
  for (const t of tarballs) console.log(`packed ${t}`);
  // Every client depends on @paysys/core, which is not on a registry either: its tarball goes in the same install.
  console.log("\nIn your project (Node 20.19+, ESM or CommonJS), install the clients you use together with the core tarball:\n");
  console.log(`  npm install ${tarballs.join(" ")}\n`);
}
