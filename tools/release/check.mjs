#!/usr/bin/env node
// `pnpm release:check`: a release made the way the release workflow makes it, through a real
// registry, then installed by name the way users install it:
//   1. build; start a local registry (Verdaccio, tools/release/registry.mjs) on a free port
//   2. on a throwaway copy of the repository: `changeset version` (no package left at 0.0.0, every
//      one with a CHANGELOG.md) and `changeset publish` to that registry (tools/release/publish.mjs)
//   3. start the sandbox the way a user does: `npx @paysys/sandbox --port 0`, from the registry
//   4. per published package, a fresh consumer project that runs `npm install <name>`; the package's
//      smoke call (tools/release/smokes.mjs) from ESM, CJS, TypeScript with moduleResolution node16
//      and bundler, and, for packages that run in browsers, an esbuild bundle in headless Chromium
//   5. the same smoke calls on the other runtimes users run: Node 22 and 24, Bun, Deno and workerd
//      (tools/release/runtimes.mjs), each from the npm registry into .tools/
//   6. publint + arethetypeswrong + browser-bundle check (tools/package-check.mjs)
//   7. minified+gzipped sizes against each package's own budgets ("size-limit" in its package.json),
//      and what a page loads before its first fiscal or portal call (tools/initial-load.mjs)
// A failing step stops the check at once: whatever it started (registry, sandbox, browser, scratch
// folders) is closed and the process exits non-zero; nothing is left to hang.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { launchChromium } from "../chromium.mjs";
import { firstCallPages, INITIAL_LOAD_BUDGET, initialLoad } from "../initial-load.mjs";
import { ensureRuntime, ensureVerdaccio, runtimes } from "../npm-tools.mjs";
import { publishedPackages } from "../packages.mjs";
import { checkedRun } from "./checked-run.mjs";
import { expectOk, program } from "./programs.mjs";
import { changelogHead, checkOnRegistry, copyRepository, versionAndPublish } from "./publish.mjs";
import { npmrcFor, startRegistry } from "./registry.mjs";
import { runtimeSmokes } from "./runtimes.mjs";
import { smokes } from "./smokes.mjs";

const root = new URL("../..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
const work = mkdtempSync(join(tmpdir(), "paysys-release-"));
const started = Date.now();

/** Runs a command; `env` adds to the environment. Output is returned; a non-zero exit throws with it. */
const sh = (cmd, args, cwd, env = {}) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000, env: { ...process.env, ...env } });

await checkedRun("release check", async ({ step, opened }) => {
  opened(() => rmSync(work, { recursive: true, force: true }));
  // The runtimes download while the build runs (each is cached in .tools/ after its first run).
  const tools = Object.fromEntries(Object.keys(runtimes).map((name) => [name, ensureRuntime(root, name)]));
  tools.verdaccio = ensureVerdaccio(root);
  for (const p of Object.values(tools)) p.catch(() => {}); // awaited (and reported) by the steps below

  await step("build", () => sh("pnpm", ["exec", "turbo", "run", "build", "--filter=./packages/*"], root));
  const packages = publishedPackages(root);
  const missing = packages.filter(({ dir }) => !smokes[dir]).map(({ pkg }) => pkg.name);
  if (missing.length) throw new Error(`no smoke call in tools/release/smokes.mjs for ${missing.join(", ")}`);

  const registry = await step("local registry: Verdaccio on Node 22, storage in artifacts/registry/", async () => {
    const [node, verdaccio] = await Promise.all([tools.node22, tools.verdaccio]);
    const r = await startRegistry({ node, verdaccio, dir: join(root, "artifacts", "registry") });
    opened(r.close);
    return r;
  });
  // Every npm call of the check goes to that registry, with a cache of this run only (an earlier
  // run's @paysys tarballs, same versions but other contents, must never be reused).
  const npmEnv = { npm_config_registry: registry.url, npm_config_cache: join(work, "npm-cache"), npm_config_update_notifier: "false" };

  const copy = join(work, "repo");
  const versions = await step("throwaway copy of the repository: changeset version, then changeset publish to the local registry", async () => {
    copyRepository(root, copy);
    const v = versionAndPublish(root, copy, registry);
    await checkOnRegistry(registry.url, v);
    return v;
  });
  for (const { dir, pkg } of packages) console.log(`    ${pkg.name}@${versions[pkg.name]}  (CHANGELOG.md: ${changelogHead(copy, dir)})`);

  const sandbox = await step("sandbox started by name: npx @paysys/sandbox --port 0", async () => {
    const cwd = join(work, "npx");
    mkdirSync(cwd, { recursive: true });
    const s = await startSandboxByName(cwd, { ...process.env, ...npmEnv });
    opened(s.close);
    return s;
  });
  const sandboxEnv = { PAYSYS_SANDBOX_URL: sandbox.url };

  // One fresh consumer per package: `npm install <name>` alone must bring everything it needs.
  const consumers = {};
  const tsBase = { strict: true, target: "ES2022", lib: ["ES2022", "DOM", "ESNext.Disposable"], types: [], skipLibCheck: false };
  for (const { dir, pkg } of packages) {
    const smoke = smokes[dir];
    const base = join(work, "consumers", dir);
    consumers[dir] = base;
    mkdirSync(base, { recursive: true });
    writeFileSync(join(base, "package.json"), JSON.stringify({ name: `paysys-consumer-${dir}`, private: true, version: "0.0.0" }, null, 2));
    writeFileSync(join(base, ".npmrc"), npmrcFor({ url: registry.url }));
    await step(`${pkg.name}: npm install ${pkg.name} (by name, from the registry)`, () => {
      sh("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", pkg.name], base, npmEnv);
      const installed = JSON.parse(sh("npm", ["ls", pkg.name, "--json"], base, npmEnv)).dependencies?.[pkg.name]?.version;
      if (installed !== versions[pkg.name]) throw new Error(`installed ${pkg.name}@${installed}, published ${versions[pkg.name]}`);
    });
    writeFileSync(join(base, "esm.mjs"), program(pkg.name, smoke, "esm"));
    await step(`${pkg.name}: ESM smoke call`, () => expectOk("esm", smoke, sh(process.execPath, ["esm.mjs"], base, sandboxEnv)));
    writeFileSync(join(base, "cjs.cjs"), program(pkg.name, smoke, "cjs"));
    await step(`${pkg.name}: CJS smoke call`, () => expectOk("cjs", smoke, sh(process.execPath, ["cjs.cjs"], base, sandboxEnv)));
    // TypeScript: the published declarations must compile in a strict project (skipLibCheck off).
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
        if (label === "ts-node16") return expectOk(label, smoke, sh(process.execPath, [join("out-node16", "index.mjs")], tsDir, sandboxEnv));
        // With moduleResolution bundler, a bundler builds it: esbuild, then run.
        sh(bin("esbuild"), ["index.mts", "--bundle", "--platform=node", "--format=esm", "--packages=external", "--outfile=bundle.mjs"], tsDir);
        return expectOk(label, smoke, sh(process.execPath, ["bundle.mjs"], tsDir, sandboxEnv));
      });
    }
  }

  // Browsers: esbuild bundles each browser package's smoke from its consumer; Chromium runs it
  // against the sandbox (CORS lets the page call it).
  const browserPackages = packages.filter(({ pkg }) => pkg.paysys?.browser);
  if (browserPackages.length) {
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
        const entry = join(consumers[dir], "browser.mjs");
        writeFileSync(entry, `import { ${smoke.imports.join(", ")} } from "${pkg.name}";\nwindow.smoke = async (sandbox) => {\n${smoke.body}\n};\n`);
        const bundle = await build({ entryPoints: [entry], bundle: true, platform: "browser", format: "iife", minify: true, write: false, absWorkingDir: consumers[dir] });
        const page = await browser.newPage();
        await page.goto(pageUrl);
        await page.addScriptTag({ content: bundle.outputFiles[0].text });
        expectOk("browser", smoke, `smoke: ${await page.evaluate((url) => window.smoke({ url }), sandbox.url)}`);
        await page.close();
      });
    }
  }

  await runtimeSmokes({ step, packages, consumers, tools, sandboxUrl: sandbox.url, work });

  await step("publint, arethetypeswrong, browser-bundle check", () => sh(process.execPath, [join(root, "tools/package-check.mjs")], root));

  const sizes = await step("sizes (minified + gzipped) within each package's budgets", async () => {
    const list = packages.flatMap(({ path }) => {
      let out;
      try {
        out = sh(bin("size-limit"), ["--json"], path);
      } catch (e) {
        out = e.stdout;
      }
      return JSON.parse(out);
    });
    for (const [name, page] of Object.entries(firstCallPages)) {
      const dir = packages.find((p) => p.pkg.name === name).path;
      list.push({ name: `${name}: a page before its first call`, size: (await initialLoad(dir, page)).bytes, sizeLimit: INITIAL_LOAD_BUDGET });
      list.at(-1).passed = list.at(-1).size <= INITIAL_LOAD_BUDGET;
    }
    const over = list.filter((s) => !s.passed);
    if (over.length) throw new Error(`over budget: ${over.map((s) => `${s.name} ${s.size} B > ${s.sizeLimit} B`).join("; ")}`);
    return list;
  });
  mkdirSync(join(root, "artifacts"), { recursive: true });
  writeFileSync(join(root, "artifacts/sizes.json"), `${JSON.stringify(sizes, null, 2)}\n`);
  console.log("\n  entry                                                    min+gzip   budget");
  for (const s of sizes) console.log(`  ${s.name.padEnd(56)} ${(s.size / 1000).toFixed(2).padStart(6)} kB ${(s.sizeLimit / 1000).toFixed(0).padStart(5)} kB`);
  console.log(`\n  release check took ${((Date.now() - started) / 1000).toFixed(0)} s`);
});

/**
 * `npx --yes @paysys/sandbox --port 0` in `cwd` (npx fetches it from the registry in `env`); resolves
 * with its URL once it printed "paysys sandbox on <url>". Its own process group, so closing it ends
 * npx and the sandbox under it.
 */
function startSandboxByName(cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["--yes", "@paysys/sandbox", "--port", "0"], { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    let out = "";
    let exited = false;
    const close = () =>
      new Promise((done) => {
        if (exited) return done();
        child.once("exit", () => done());
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          done();
        }
        setTimeout(() => {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {}
        }, 5_000).unref();
      });
    const timer = setTimeout(() => {
      close();
      reject(new Error(`npx @paysys/sandbox printed no address within 180 s:\n${out}`));
    }, 180_000);
    const onData = (d) => {
      out += d;
      const url = out.match(/paysys sandbox on (http:\/\/\S+)/)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, close });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) => {
      exited = true;
      clearTimeout(timer);
      reject(new Error(`npx @paysys/sandbox exited (${code}) before it printed its address:\n${out}`));
    });
  });
}
