#!/usr/bin/env node
// Entry point of `npm start` and `npm test`: a fresh machine has Node and npm only, so this
// makes sure the pinned pnpm is available, installs the workspace from the lockfile, then runs
// one root script with pnpm. pnpm goes into .tools/ (git-ignored) rather than the global prefix,
// so nothing outside the checkout changes and no root rights are needed.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const script = process.argv[2];
if (!script) {
  console.error("usage: node tools/bootstrap.mjs <root script> [its arguments]");
  process.exit(2);
}
const pinned = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.split("@")[1];
const localBin = join(root, ".tools", "pnpm", "node_modules", ".bin");
const env = {
  ...process.env,
  PATH: `${localBin}${delimiter}${process.env.PATH}`,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  REDOCLY_TELEMETRY: "off",
  REDOCLY_SUPPRESS_UPDATE_NOTICE: "true",
};

function pnpmVersion() {
  try {
    return execFileSync("pnpm", ["--version"], { env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return undefined;
  }
}

if (pnpmVersion() !== pinned) {
  console.log(`bootstrap: installing pnpm ${pinned} into .tools/pnpm`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["install", "--prefix", join(root, ".tools", "pnpm"), "--no-save", "--no-audit", "--no-fund", `pnpm@${pinned}`], { stdio: "inherit", env });
  if (r.status !== 0 || pnpmVersion() !== pinned) {
    console.error(`bootstrap: could not install pnpm ${pinned}`);
    process.exit(1);
  }
}

function run(args) {
  console.log(`bootstrap: pnpm ${args.join(" ")}`);
  const r = spawnSync("pnpm", args, { stdio: "inherit", env, cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * The Redis store's tests run Debian's redis-server (never a mock). Best effort: installed when
 * missing and we are root; otherwise a line saying what to install (those tests then fail naming it).
 */
function ensureRedisServer() {
  const has = (name) => spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
  if (process.platform !== "linux" || has("redis-server") || has("valkey-server")) return;
  if (process.getuid?.() === 0 && has("apt-get")) {
    console.log("bootstrap: installing Debian redis-server for the Redis store's tests");
    const aptEnv = { ...env, DEBIAN_FRONTEND: "noninteractive" };
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env: aptEnv });
    if (spawnSync("apt-get", ["install", "-y", "-qq", "redis-server"], { stdio: "inherit", env: aptEnv }).status === 0) return;
  }
  console.warn("bootstrap: redis-server is not installed and could not be installed here; the Redis store's tests need it: apt-get install -y redis-server");
}

if (script === "test" || script === "test:all") ensureRedisServer();
run(existsSync(join(root, "pnpm-lock.yaml")) ? ["install", "--frozen-lockfile"] : ["install"]);
// Anything after the script's name goes to it (`npm run sandbox -- --port 4011`).
run(["run", script, ...process.argv.slice(3)]);
