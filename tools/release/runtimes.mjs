// The smoke calls on every runtime users run besides Node 20 (which the release check's consumers
// use) and Chromium (its browser step): Node 22 and 24, Bun, Deno and workerd, each from the npm
// registry into .tools/ (tools/npm-tools.mjs). They run in the same by-name consumers, against the
// same sandbox.
//
// Node 22/24 run each package's ESM smoke as it is. Bun, Deno and workerd run the clients (the
// packages that say `"paysys": { "browser": true }`; the sandbox is Node-only) through a probe: it
// wraps `globalThis.fetch` and `process.getBuiltinModule` before the package loads, and fails when
// the client reached the sandbox other than through the runtime's own fetch, or asked for
// node:http(s), net or tls (core's platform.ts must pick the runtime's fetch there).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { freePort } from "../free-port.mjs";
import { runtimes } from "../npm-tools.mjs";
import { expectOk } from "./programs.mjs";
import { smokes } from "./smokes.mjs";

const NODE_HTTP = /^(node:)?(http|https|http2|net|tls)$/;

/** A module: the probe's wrappers, then the package (imported after them), then `run()`. */
function probeModule(pkg, smoke, sandboxUrl) {
  return `const sandboxUrl = ${JSON.stringify(sandboxUrl)};
const fetchCalls = [];
const realFetch = globalThis.fetch;
globalThis.fetch = function (input, init) {
  fetchCalls.push(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
  return realFetch.call(this, input, init);
};
const builtins = [];
const proc = globalThis.process;
if (proc && typeof proc.getBuiltinModule === "function") {
  const get = proc.getBuiltinModule;
  proc.getBuiltinModule = (id) => {
    builtins.push(id);
    return get.call(proc, id);
  };
}
const { ${smoke.imports.join(", ")} } = await import(${JSON.stringify(pkg)});
async function smoke(sandbox) {
${smoke.body}
}
export async function run() {
  const line = await smoke({ url: sandboxUrl });
  // The smoke's own helper calls (the portal's captcha reader) go to /__sandbox/; the client's do not.
  const clientFetches = fetchCalls.filter((u) => u.startsWith(sandboxUrl) && !u.includes("/__sandbox/")).length;
  const nodeHttp = builtins.filter((id) => ${NODE_HTTP}.test(id));
  return { line, clientFetches, nodeHttp };
}
`;
}

function judge(label, dir, smoke, result) {
  expectOk(label, smoke, `smoke: ${result.line}`);
  if (result.nodeHttp.length) throw new Error(`${label}: the client asked for ${result.nodeHttp.join(", ")}; it must use the runtime's fetch`);
  // core's smoke makes no call; every client's does.
  if (dir !== "core" && result.clientFetches === 0) throw new Error(`${label}: the client's calls did not go through globalThis.fetch`);
  return `${result.line} (fetch calls: ${result.clientFetches})`;
}

const run = (cmd, args, cwd, env = {}) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 180_000, env: { ...process.env, ...env } });

/** Runs the probe as a script with a runtime's command (`args` before the file), parses the result it prints. */
function scriptProbe(cmd, args, cwd, pkg, smoke, sandboxUrl) {
  writeFileSync(join(cwd, "probe.mjs"), probeModule(pkg, smoke, sandboxUrl));
  writeFileSync(join(cwd, "probe-main.mjs"), `import { run } from "./probe.mjs";\nconsole.log("probe: " + JSON.stringify(await run()));\n`);
  const out = run(cmd, [...args, "probe-main.mjs"], cwd);
  const line = out.split("\n").find((l) => l.startsWith("probe: "));
  if (!line) throw new Error(`no result:\n${out}`);
  return JSON.parse(line.slice("probe: ".length));
}

/**
 * The probe as a Worker in workerd: bundled by esbuild with the conditions Cloudflare's tooling uses
 * (workerd, worker, browser), served on a loopback port; the Worker's outbound fetch may reach
 * loopback (the sandbox) and nothing else. `flags` are its compatibility flags.
 */
async function workerdProbe(workerd, cwd, pkg, smoke, sandboxUrl, flags) {
  writeFileSync(join(cwd, "probe.mjs"), probeModule(pkg, smoke, sandboxUrl));
  writeFileSync(
    join(cwd, "worker-entry.mjs"),
    `import { run } from "./probe.mjs";
export default {
  async fetch() {
    try {
      return Response.json(await run());
    } catch (e) {
      return new Response(String(e && e.stack ? e.stack : e), { status: 500 });
    }
  },
};
`,
  );
  await build({
    entryPoints: [join(cwd, "worker-entry.mjs")],
    outfile: join(cwd, "worker.js"),
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    // With nodejs_compat, node: builtins are the runtime's; without it a client must not need any.
    external: flags.includes("nodejs_compat") ? ["node:*"] : [],
    logLevel: "silent",
  });
  const port = await freePort();
  writeFileSync(
    join(cwd, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .probe),
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const probe :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "worker.js")],
  compatibilityDate = "2026-11-01",
  compatibilityFlags = ${JSON.stringify(flags)},
  globalOutbound = "loopback",
);
`,
  );
  const child = spawn(workerd, ["serve", "config.capnp"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => {
    log += d;
  });
  child.stderr.on("data", (d) => {
    log += d;
  });
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exited) throw new Error(`workerd exited:\n${log}`);
      const answer = await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined);
      if (answer) {
        const text = await answer.text();
        if (!answer.ok) throw new Error(`the Worker failed (${answer.status}):\n${text}\n${log}`);
        return JSON.parse(text);
      }
      if (Date.now() > deadline) throw new Error(`workerd did not listen within 60 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    if (!exited) {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
  }
}

/** Adds the runtime steps to a release check. `tools` maps runtime names to promises of their binaries. */
export async function runtimeSmokes({ step, packages, consumers, tools, sandboxUrl }) {
  const env = { PAYSYS_SANDBOX_URL: sandboxUrl };
  const version = (name) => runtimes[name].spec.split("@")[1];
  for (const name of ["node22", "node24"]) {
    await step(`Node ${version(name)} (npm node@${version(name)}): ESM smoke call of ${packages.map(({ pkg }) => pkg.name).join(", ")}`, async () => {
      const node = await tools[name];
      for (const { dir, pkg } of packages) expectOk(`${pkg.name} on Node ${version(name)}`, smokes[dir], run(node, ["esm.mjs"], consumers[dir], env));
    });
  }
  const clients = packages.filter(({ pkg }) => pkg.paysys?.browser);
  const names = clients.map(({ pkg }) => pkg.name).join(", ");
  const lines = [];
  await step(`Bun ${version("bun")}: smoke calls of ${names} through Bun's fetch, no node:http`, async () => {
    const bun = await tools.bun;
    for (const { dir, pkg } of clients)
      lines.push(`bun     ${pkg.name}: ${judge(`${pkg.name} on Bun`, dir, smokes[dir], scriptProbe(bun, [], consumers[dir], pkg.name, smokes[dir], sandboxUrl))}`);
  });
  await step(`Deno ${version("deno")}: smoke calls of ${names} through Deno's fetch, no node:http`, async () => {
    const deno = await tools.deno;
    const host = new URL(sandboxUrl).host;
    // The consumer's package.json and node_modules, as npm installed them; only the sandbox's address on the network.
    const args = ["run", "--quiet", "--no-prompt", "--no-config", `--allow-net=${host}`, "--allow-read", "--node-modules-dir=manual"];
    for (const { dir, pkg } of clients)
      lines.push(`deno    ${pkg.name}: ${judge(`${pkg.name} on Deno`, dir, smokes[dir], scriptProbe(deno, args, consumers[dir], pkg.name, smokes[dir], sandboxUrl))}`);
  });
  for (const flags of [[], ["nodejs_compat"]]) {
    const label = flags.length ? `with ${flags.join(", ")}` : "no compatibility flags";
    await step(`workerd ${version("workerd")} (${label}): esbuild bundles of ${names} as Workers, fetch over loopback, no node:http`, async () => {
      const workerd = await tools.workerd;
      for (const { dir, pkg } of clients) {
        const cwd = join(consumers[dir], `workerd-${flags.join("-") || "plain"}`);
        mkdirSync(cwd, { recursive: true });
        const result = await workerdProbe(workerd, cwd, pkg.name, smokes[dir], sandboxUrl, flags);
        lines.push(`workerd ${pkg.name} (${label}): ${judge(`${pkg.name} on workerd`, dir, smokes[dir], result)}`);
      }
    });
  }
  for (const line of lines) console.log(`    ${line}`);
}
