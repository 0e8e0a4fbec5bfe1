#!/usr/bin/env node
// `pnpm release:check`: what users will install, tried the way they will use it, for every
// package tools/packages.mjs lists as published:
//   1. pack each one (pnpm pack rewrites workspace: ranges to versions)
//   2. install the tarballs into a scratch consumer project, outside the workspace
//   3. run each package's smoke call (tools/release/smokes.mjs) from ESM, CJS, TypeScript with
//      moduleResolution node16 and bundler, and, for packages that run in browsers, an esbuild
//      bundle in headless Chromium, against a sandbox started from the packed @paysys/sandbox
//   4. publint + arethetypeswrong + browser-bundle check (tools/package-check.mjs)
//   5. minified+gzipped sizes against each package's own budgets ("size-limit" in its package.json)
// A failing step stops the check at once: whatever it started (sandboxes, browsers, the scratch
// folder) is closed and the process exits non-zero; nothing is left to hang.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { launchChromium } from "../chromium.mjs";
import { publishedPackages } from "../packages.mjs";
import { checkedRun } from "./checked-run.mjs";
import { packPublished } from "./pack.mjs";
import { smokes } from "./smokes.mjs";

const root = new URL("../..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const work = mkdtempSync(join(tmpdir(), "paysys-release-"));
const consumer = join(work, "consumer");
const sh = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 180_000 });

/** The smoke as an ESM module, a CJS script or TypeScript: import lines, then the body run against a sandbox. */
function program(pkg, smoke, flavour) {
  const names = smoke.imports.join(", ");
  const typed = flavour === "ts";
  const imports =
    flavour === "cjs"
      ? `const { ${names} } = require("${pkg}");\nconst { startSandbox: startSmokeSandbox } = require("@paysys/sandbox");`
      : `import { ${names} } from "${pkg}";\nimport { startSandbox as startSmokeSandbox } from "@paysys/sandbox";${typed ? "\ndeclare const process: { exit(code: number): never };" : ""}`;
  return `${imports}
async function smoke(sandbox${typed ? ": { url: string }" : ""}) {
${smoke.body}
}
async function main() {
  const sandbox = await startSmokeSandbox();
  try {
    console.log("smoke: " + (await smoke(sandbox)));
  } finally {
    await sandbox.close();
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
`;
}

function expectOk(label, smoke, output) {
  const line = output.split("\n").find((l) => l.startsWith("smoke: "));
  if (!line || !smoke.expect.test(line.slice("smoke: ".length))) throw new Error(`${label}: unexpected output:\n${output}`);
}

await checkedRun("release check", async ({ step, opened }) => {
  opened(() => rmSync(work, { recursive: true, force: true }));
  await step("build", () => sh("pnpm", ["exec", "turbo", "run", "build", "--filter=./packages/*"], root));
  const packages = publishedPackages(root);
  const missing = packages.filter(({ dir }) => !smokes[dir]).map(({ pkg }) => pkg.name);
  if (missing.length) throw new Error(`no smoke call in tools/release/smokes.mjs for ${missing.join(", ")}`);
  const tarballs = await step(`pack ${packages.map(({ pkg }) => pkg.name).join(", ")} (as npm run release:pack does)`, () => packPublished(root, join(work, "tarballs")));

  mkdirSync(consumer, { recursive: true });
  writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "paysys-consumer", private: true, version: "0.0.0" }, null, 2));
  await step("install the tarballs into a scratch consumer (npm, outside the workspace)", () =>
    sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs], consumer),
  );

  // TypeScript: the published declarations must compile in a strict project (skipLibCheck off).
  const tsBase = { strict: true, target: "ES2022", lib: ["ES2022", "DOM", "ESNext.Disposable"], types: [], skipLibCheck: false };
  for (const { dir, pkg } of packages) {
    const smoke = smokes[dir];
    const base = join(consumer, dir);
    mkdirSync(base, { recursive: true });
    writeFileSync(join(base, "esm.mjs"), program(pkg.name, smoke, "esm"));
    await step(`${pkg.name}: ESM smoke call`, () => expectOk("esm", smoke, sh(process.execPath, ["esm.mjs"], base)));
    writeFileSync(join(base, "cjs.cjs"), program(pkg.name, smoke, "cjs"));
    await step(`${pkg.name}: CJS smoke call`, () => expectOk("cjs", smoke, sh(process.execPath, ["cjs.cjs"], base)));
    for (const [label, options] of [
      ["ts-node16", { module: "Node16", moduleResolution: "Node16", outDir: "out-node16" }],
      ["ts-bundler", { module: "ESNext", moduleResolution: "Bundler", noEmit: true }],
    ]) {
      const tsDir = join(base, label);
      mkdirSync(tsDir, { recursive: true });
      writeFileSync(join(tsDir, "index.mts"), program(pkg.name, smoke, "ts"));
      writeFileSync(join(tsDir, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...tsBase, ...options, rootDir: "." }, include: ["index.mts"] }, null, 2));
      await step(`${pkg.name}: ${label} (tsc strict, skipLibCheck off) and smoke call`, () => {
        sh(bin("tsc"), ["-p", "tsconfig.json"], tsDir);
        if (label === "ts-node16") return expectOk(label, smoke, sh(process.execPath, [join("out-node16", "index.mjs")], tsDir));
        // With moduleResolution bundler, a bundler builds it: esbuild, then run.
        sh(bin("esbuild"), ["index.mts", "--bundle", "--platform=node", "--format=esm", "--packages=external", "--outfile=bundle.mjs"], tsDir);
        return expectOk(label, smoke, sh(process.execPath, ["bundle.mjs"], tsDir));
      });
    }
  }

  // Browsers: esbuild bundles each browser package's smoke; Chromium runs it against a sandbox
  // started from the packed @paysys/sandbox (CORS lets the page call it).
  const browserPackages = packages.filter(({ pkg }) => pkg.paysys?.browser);
  if (browserPackages.length) {
    const { startSandbox } = await import(pathToFileURL(join(consumer, "node_modules/@paysys/sandbox/dist/index.js")).href);
    const sandbox = await startSandbox();
    opened(() => sandbox.close());
    const browser = await launchChromium();
    opened(() => browser.close());
    // The page comes from its own loopback origin: a secure context (WebCrypto exists there, as on
    // any HTTPS page, but not on about:blank) that calls the sandbox cross-origin, as a shop's page would.
    const pageServer = createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>paysys browser smoke</title>"));
    await new Promise((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
    opened(() => new Promise((resolve) => pageServer.close(resolve)));
    const pageUrl = `http://127.0.0.1:${pageServer.address().port}/`;
    for (const { dir, pkg } of browserPackages) {
      const smoke = smokes[dir];
      await step(`${pkg.name}: browser bundle, smoke call in headless Chromium`, async () => {
        const entry = join(consumer, dir, "browser.mjs");
        writeFileSync(entry, `import { ${smoke.imports.join(", ")} } from "${pkg.name}";\nwindow.smoke = async (sandbox) => {\n${smoke.body}\n};\n`);
        const bundle = await build({ entryPoints: [entry], bundle: true, platform: "browser", format: "iife", minify: true, write: false, absWorkingDir: consumer });
        const page = await browser.newPage();
        await page.goto(pageUrl);
        await page.addScriptTag({ content: bundle.outputFiles[0].text });
        expectOk("browser", smoke, `smoke: ${await page.evaluate((url) => window.smoke({ url }), sandbox.url)}`);
        await page.close();
      });
    }
  }

  await step("publint, arethetypeswrong, browser-bundle check", () => sh(process.execPath, [join(root, "tools/package-check.mjs")], root));

  const sizes = await step("sizes (minified + gzipped) within each package's budgets", () => {
    const list = packages.flatMap(({ path }) => {
      let out;
      try {
        out = sh(bin("size-limit"), ["--json"], path);
      } catch (e) {
        out = e.stdout;
      }
      return JSON.parse(out);
    });
    const over = list.filter((s) => !s.passed);
    if (over.length) throw new Error(`over budget: ${over.map((s) => `${s.name} ${s.size} B > ${s.sizeLimit} B`).join("; ")}`);
    return list;
  });
  mkdirSync(join(root, "artifacts"), { recursive: true });
  writeFileSync(join(root, "artifacts/sizes.json"), `${JSON.stringify(sizes, null, 2)}\n`);
  console.log("\n  entry                                                    min+gzip   budget");
  for (const s of sizes) console.log(`  ${s.name.padEnd(56)} ${(s.size / 1000).toFixed(2).padStart(6)} kB ${(s.sizeLimit / 1000).toFixed(0).padStart(5)} kB`);
});
