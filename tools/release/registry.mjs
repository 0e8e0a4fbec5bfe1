// A local npm registry for the release check: Verdaccio 6 (tools/release/registry/package.json),
// run on Node 22 from .tools/node22 (Verdaccio 6 needs Node 22; the same binary runs the Node 22
// smokes). It listens on a free loopback port; its storage is artifacts/registry/ (git-ignored).
//
//   - `@paysys/*` is served from this registry only: published here by the check, never looked up
//     upstream (no `proxy` for the scope), so a name the check did not publish is a 404, not
//     somebody else's package.
//   - Everything else (openapi-fetch, exceljs, …) is proxied to the npm registry the machine's npm
//     uses, and cached in the storage, as a company registry in front of npmjs does.
//   - Publishing needs a user: the check registers a throwaway one (htpasswd in the storage folder,
//     random password) and gets its token.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../free-port.mjs";

/** The registry this machine's npm uses (the uplink for everything but @paysys/*). */
export function upstreamRegistry() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.toLowerCase() === "npm_config_registry") delete env[key];
  const url = execFileSync("npm", ["config", "get", "registry"], { cwd: tmpdir(), env, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  return url || "https://registry.npmjs.org/";
}

function config({ storage, htpasswd, upstream }) {
  // YAML, written by hand: JSON strings are valid YAML scalars.
  const q = JSON.stringify;
  return `# Written by tools/release/registry.mjs for one release check; rewritten on every run.
storage: ${q(storage)}
web:
  enable: false
auth:
  htpasswd:
    file: ${q(htpasswd)}
    max_users: 1
    # bcrypt's cheapest cost: the user lives for one run, and a loaded machine took seconds per check.
    rounds: 4
uplinks:
  npmjs:
    url: ${q(upstream)}
    timeout: 60s
    maxage: 30m
packages:
  "@paysys/*":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  "**":
    access: $all
    proxy: npmjs
# JWT tokens: the legacy token makes Verdaccio check the password again on every request.
security:
  api:
    legacy: false
    jwt:
      sign:
        expiresIn: 2h
server:
  keepAliveTimeout: 60
max_body_size: 100mb
log:
  type: stdout
  format: pretty
  level: warn
`;
}

/**
 * Starts Verdaccio with `node` (a Node 22+ binary) running `verdaccio` (its entry script), storage
 * in `dir`. Earlier runs' @paysys packages and user are removed first; other packages stay cached.
 * Returns `{ url, token, close }`.
 */
export async function startRegistry({ node, verdaccio, dir }) {
  const storage = join(dir, "storage");
  const htpasswd = join(dir, "htpasswd");
  rmSync(join(storage, "@paysys"), { recursive: true, force: true });
  rmSync(join(storage, ".verdaccio-db.json"), { force: true });
  rmSync(htpasswd, { force: true });
  mkdirSync(storage, { recursive: true });
  const configFile = join(dir, "config.yaml");
  writeFileSync(configFile, config({ storage, htpasswd, upstream: upstreamRegistry() }));

  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(node, [verdaccio, "--config", configFile, "--listen", `127.0.0.1:${port}`], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const keep = (d) => {
    log = (log + d).slice(-20_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });
  const close = () =>
    new Promise((resolve) => {
      if (exited) return resolve();
      child.once("exit", resolve);
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
    });

  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exited) throw new Error(`Verdaccio exited at start:\n${log}`);
      const ok = await fetch(`${url}-/ping`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`Verdaccio did not answer on ${url} within 60 s:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // The throwaway publisher: registering answers with its token.
    const name = "paysys-release-check";
    const answer = await fetch(`${url}-/user/org.couchdb.user:${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ _id: `org.couchdb.user:${name}`, name, password: randomBytes(18).toString("base64url"), type: "user", roles: [], date: new Date().toISOString() }),
    });
    const body = await answer.json().catch(() => ({}));
    if (!answer.ok || !body.token) throw new Error(`could not register the publishing user (${answer.status}): ${JSON.stringify(body)}`);
    return { url, token: body.token, close, log: () => log };
  } catch (e) {
    await close();
    throw e;
  }
}

/** The .npmrc lines that point npm and pnpm at `registry` for everything, with `token` for publishing. */
export function npmrcFor({ url, token }) {
  const hostPath = url.replace(/^https?:/, "");
  return `registry=${url}\n${token ? `${hostPath}:_authToken=${token}\n` : ""}`;
}
