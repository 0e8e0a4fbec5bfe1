// Programs the checks run that are not workspace dependencies: other JavaScript runtimes (Node 22
// and 24, Bun, Deno, workerd) and the local registry (Verdaccio). Every one comes from the npm
// registry, never from a download of its own: the `node`, `bun`, `deno` and `workerd` packages
// carry (or install, in their install script, as another npm package) the platform's binary.
// pnpm 10 would block those install scripts, so each goes into its own folder of .tools/ (git-ignored)
// with `npm install --prefix`, which runs them. A stamp file records what was installed; a folder
// whose stamp differs from the pin is installed again. Installs go to a temporary folder that is
// renamed into place, so a run stopped half-way leaves no folder that looks complete.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Runtimes from the npm registry, pinned to versions `npm view` lists. `bin` is the command in node_modules/.bin. */
export const runtimes = {
  node22: { spec: "node@22.23.3", bin: "node" },
  node24: { spec: "node@24.21.0", bin: "node" },
  bun: { spec: "bun@1.4.5", bin: "bun" },
  deno: { spec: "deno@2.9.6", bin: "deno" },
  workerd: { spec: "workerd@1.20261117.1", bin: "workerd" },
};

const STAMP = ".paysys-installed";

function run(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 300_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${cmd} ${args.join(" ")} (in ${cwd}) exited ${code}:\n${out}`));
    });
  });
}

const npmFlags = ["--no-audit", "--no-fund", "--loglevel=error", "--no-update-notifier"];

/** Installs into `<root>/.tools/<name>` unless its stamp already says `stamp`; `fill(dir)` does the install. */
async function cached(root, name, stamp, fill) {
  const dir = join(root, ".tools", name);
  const stampFile = join(dir, STAMP);
  if (existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp) return dir;
  const temp = `${dir}.installing-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp, { recursive: true });
  try {
    await fill(temp);
    writeFileSync(join(temp, STAMP), stamp);
    rmSync(dir, { recursive: true, force: true });
    renameSync(temp, dir);
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
  return dir;
}

/** The path of a runtime's binary (installed into .tools/<name> first if needed). */
export async function ensureRuntime(root, name) {
  const { spec, bin } = runtimes[name];
  const dir = await cached(root, name, spec, async (temp) => {
    writeFileSync(join(temp, "package.json"), `${JSON.stringify({ private: true }, null, 2)}\n`);
    await run("npm", ["install", ...npmFlags, spec], temp);
  });
  return join(dir, "node_modules", ".bin", bin);
}

/**
 * Verdaccio, from tools/release/registry/package.json and its lockfile (`npm ci`, so the same tree
 * every time), in .tools/verdaccio; returns the path of its entry script (run it with Node 22+).
 */
export async function ensureVerdaccio(root) {
  const source = join(root, "tools", "release", "registry");
  const lock = readFileSync(join(source, "package-lock.json"));
  const stamp = createHash("sha256")
    .update(readFileSync(join(source, "package.json")))
    .update(lock)
    .digest("hex");
  const dir = await cached(root, "verdaccio", stamp, async (temp) => {
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(source, file), join(temp, file));
    await run("npm", ["ci", ...npmFlags], temp);
  });
  return join(dir, "node_modules", "verdaccio", "bin", "verdaccio");
}
