#!/usr/bin/env node
// `pnpm release:check`: what users will install, tried the way they will use it.
//   1. pack every publishable package (pnpm pack rewrites workspace: ranges to versions)
//   2. install the tarballs into a scratch consumer project, outside the workspace
//   3. smoke call against the sandbox (from the tarball) from ESM, CJS, TypeScript with
//      moduleResolution node16 and bundler, and an esbuild browser bundle in headless Chromium
//   4. publint + arethetypeswrong + browser-bundle check (tools/package-check.mjs)
//   5. minified+gzipped sizes against the budgets in .size-limit.json (size-limit)
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { launchChromium } from "../chromium.mjs";
import { publishedPackages } from "../packages.mjs";

const root = new URL("../..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const work = mkdtempSync(join(tmpdir(), "paysys-release-"));
const consumer = join(work, "consumer");
const results = [];
const step = (name, fn) => {
  process.stdout.write(`… ${name}\n`);
  const out = fn();
  results.push(name);
  return out;
};
const sh = (cmd, args, cwd, extra = {}) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...extra });

try {
  step("build", () => sh("pnpm", ["exec", "turbo", "run", "build", "--filter=./packages/*"], root));
  const packages = publishedPackages(root);
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs, { recursive: true });
  step(`pack ${packages.map(({ pkg }) => pkg.name).join(", ")}`, () => {
    for (const { path } of packages) sh("pnpm", ["pack", "--pack-destination", tarballs], path);
  });

  mkdirSync(consumer, { recursive: true });
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "paysys-consumer", private: true, version: "0.0.0" }, null, 2));
  step("install the tarballs into a scratch consumer (npm, outside the workspace)", () =>
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...readdirSync(tarballs).map((t) => join(tarballs, t))], consumer),
  );

  const smoke = (importLine, label) => `${importLine}
async function main() {
  const sandbox = await startSandbox();
  const portal = createPortalClient({
    baseUrl: sandbox.portalUrl,
    credentials: { lgn: "dealer01", psw: "sandbox-password" },
    solveCaptcha: async ({ captchaSession }) => sandbox.portal.captchaText(captchaSession) ?? "",
  });
  const me = await portal.user.me();
  const rows = await portal.reports.payments({ dateFrom: "20240501", dateTo: "20240501", subOn: true });
  console.log("${label} ok " + me.lgn + " " + (Array.isArray(rows) ? rows.length : -1));
  await portal.close();
  await sandbox.close();
}
main().catch((e) => { console.error(e); process.exit(1); });
`;
  const expectOk = (label, output) => {
    if (!new RegExp(`^${label} ok dealer01 40$`, "m").test(output)) throw new Error(`${label}: unexpected output:\n${output}`);
  };

  writeFileSync(join(consumer, "esm.mjs"), smoke(`import { createPortalClient } from "@paysys/portal";\nimport { startSandbox } from "@paysys/sandbox";`, "esm"));
  step("ESM consumer: smoke call", () => expectOk("esm", sh(process.execPath, ["esm.mjs"], consumer)));

  writeFileSync(join(consumer, "cjs.cjs"), smoke(`const { createPortalClient } = require("@paysys/portal");\nconst { startSandbox } = require("@paysys/sandbox");`, "cjs"));
  step("CJS consumer: smoke call", () => expectOk("cjs", sh(process.execPath, ["cjs.cjs"], consumer)));

  // TypeScript: the published declarations must compile in a strict project (skipLibCheck off).
  const tsBase = { strict: true, target: "ES2022", lib: ["ES2022", "DOM", "ESNext.Disposable"], types: [], skipLibCheck: false };
  for (const [label, options] of [
    ["ts-node16", { module: "Node16", moduleResolution: "Node16", outDir: "out-node16" }],
    ["ts-bundler", { module: "ESNext", moduleResolution: "Bundler", noEmit: true }],
  ]) {
    const dir = join(consumer, label);
    mkdirSync(dir, { recursive: true });
    const source = smoke(
      `import { createPortalClient } from "@paysys/portal";\nimport { startSandbox } from "@paysys/sandbox";\ndeclare const process: { exit(code: number): never };`,
      label,
    );
    writeFileSync(join(dir, "index.mts"), source);
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...tsBase, ...options, rootDir: "." }, include: ["index.mts"] }, null, 2));
    step(`${label} consumer: tsc (strict, skipLibCheck off) and smoke call`, () => {
      sh(bin("tsc"), ["-p", "tsconfig.json"], dir);
      if (label === "ts-node16") return expectOk(label, sh(process.execPath, [join("out-node16", "index.mjs")], dir));
      // With moduleResolution bundler, a bundler builds it: esbuild, then run.
      sh(bin("esbuild"), ["index.mts", "--bundle", "--platform=node", "--format=esm", "--packages=external", "--outfile=bundle.mjs"], dir);
      return expectOk(label, sh(process.execPath, ["bundle.mjs"], dir));
    });
  }

  // Browser: esbuild bundles the client for the browser; Chromium runs it against a sandbox
  // started from the packed @paysys/sandbox (CORS lets the page call it).
  writeFileSync(
    join(consumer, "browser.mjs"),
    `import { createPortalClient } from "@paysys/portal";
window.smoke = async (root) => {
  const portal = createPortalClient({
    baseUrl: root + "/portal",
    credentials: { lgn: "dealer01", psw: "sandbox-password" },
    solveCaptcha: async ({ captchaSession }) => (await (await fetch(root + "/__sandbox/portal/captcha?session=" + captchaSession)).json()).text,
  });
  const me = await portal.user.me();
  const rows = await portal.reports.payments({ dateFrom: "20240501", dateTo: "20240501", subOn: true });
  await portal.close();
  return "browser ok " + me.lgn + " " + rows.length;
};
`,
  );
  await (async () => {
    process.stdout.write("… browser consumer: esbuild bundle, smoke call in headless Chromium\n");
    const bundle = await build({
      entryPoints: [join(consumer, "browser.mjs")],
      bundle: true,
      platform: "browser",
      format: "iife",
      minify: true,
      write: false,
      absWorkingDir: consumer,
    });
    const { startSandbox } = await import(pathToFileURL(join(consumer, "node_modules/@paysys/sandbox/dist/index.js")).href);
    const sandbox = await startSandbox();
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent("<!doctype html><title>paysys browser smoke</title>");
      await page.addScriptTag({ content: bundle.outputFiles[0].text });
      const output = await page.evaluate((url) => window.smoke(url), sandbox.url);
      expectOk("browser", output);
      results.push("browser consumer: esbuild bundle, smoke call in headless Chromium");
    } finally {
      await browser.close();
      await sandbox.close();
    }
  })();

  step("publint, arethetypeswrong, browser-bundle check", () => sh(process.execPath, [join(root, "tools/package-check.mjs")], root));

  const sizes = step("sizes (minified + gzipped) within budgets", () => {
    let out;
    try {
      out = sh(bin("size-limit"), ["--json"], root);
    } catch (e) {
      out = e.stdout;
    }
    const list = JSON.parse(out);
    const over = list.filter((s) => !s.passed);
    if (over.length) throw new Error(`over budget: ${over.map((s) => `${s.name} ${s.size} B > ${s.sizeLimit} B`).join("; ")}`);
    return list;
  });
  mkdirSync(join(root, "artifacts"), { recursive: true });
  writeFileSync(join(root, "artifacts/sizes.json"), `${JSON.stringify(sizes, null, 2)}\n`);
  console.log("\nrelease check passed:");
  for (const r of results) console.log(`  ok  ${r}`);
  console.log("\n  package                                              min+gzip   budget");
  for (const s of sizes) console.log(`  ${s.name.padEnd(52)} ${(s.size / 1000).toFixed(2).padStart(6)} kB ${(s.sizeLimit / 1000).toFixed(0).padStart(5)} kB`);
} catch (e) {
  console.error(`\nrelease check FAILED: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
