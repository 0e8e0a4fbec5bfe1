// Regenerates src/generated/orval-portal-user.ts, the orval client section 1 of the bench measures
// against the portal client (same operation, same stub fetch). Committed, so the bench needs no orval:
//   npm install --prefix /tmp/orval orval@7.13.2   (runs on Node 20; orval 7.14 on asks for Node ≥ 22.18)
//   node tools/bench/orval/generate.mjs /tmp/orval
// The portal spec bundled by the workspace's redocly, cut to /v2/user/profile (user.profile), then
// given to orval in fetch client mode. orval 7.13.2 cannot read an array schema without `items`
// (the envelope's `data`), which OpenAPI 3.1 allows: such arrays get `items: {}` (any item), the
// same schema.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");
const orvalPrefix = process.argv[2];
if (!orvalPrefix) throw new Error("usage: node generate.mjs <folder where orval@7.13.2 is installed>");
const { generate } = createRequire(join(orvalPrefix, "package.json"))("orval");

const folder = mkdtempSync(join(tmpdir(), "orval-spec-"));
try {
  const bundled = join(folder, "portal-v2.json");
  execFileSync("pnpm", ["exec", "redocly", "bundle", "specs/portal/v2.openapi.yaml", "--dereferenced", "--ext", "json", "-o", bundled], { cwd: root, stdio: "inherit" });
  const spec = JSON.parse(readFileSync(bundled, "utf8"));
  const withItems = (node) => {
    if (Array.isArray(node)) return node.map(withItems);
    if (node === null || typeof node !== "object") return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, withItems(v)]));
    if (out.type === "array" && out.items === undefined && out.prefixItems === undefined) out.items = {};
    return out;
  };
  const target = withItems({ openapi: spec.openapi, info: spec.info, paths: { "/v2/user/profile": spec.paths["/v2/user/profile"] } });
  await generate({
    input: { target },
    output: { client: "fetch", mode: "single", target: join(here, "../src/generated/orval-portal-user.ts"), baseUrl: "http://stub.invalid" },
  });
} finally {
  rmSync(folder, { recursive: true, force: true });
}
