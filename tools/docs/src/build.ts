// `pnpm docs`: offline reference pages in artifacts/docs/: one Redoc page per interface (scripts
// inlined, so nothing loads from a CDN), an index with the gap report per interface, and the
// TypeDoc API reference of each published package.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { renderHistory, specHistory } from "@paysys/changes";
import { bundle, gapReport, operations, repoRoot, specs } from "@paysys/spec-tools";
import { publishedPackages } from "../../packages.mjs";
import { annotate } from "./annotate.js";
import { sdkEntries } from "./samples.js";

const out = join(repoRoot, "artifacts/docs");
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, "specs"), { recursive: true });

const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" };
const bin = (name: string) => join(repoRoot, "node_modules/.bin", name);

const published = publishedPackages(repoRoot);
/** Each operation's anchor on its page (Redoc's `#/<tag>/<operationId>`), for the index. */
const anchors = new Map<string, string>();
for (const spec of specs) {
  const file = join(out, "specs", `${spec.name}.json`);
  const sdk = sdkEntries[spec.name];
  if (!sdk) throw new Error(`docs: no SDK entry for ${spec.name} (tools/docs/src/build.ts)`);
  const doc = annotate(bundle(spec), sdk);
  // Redoc shows the version beside the title; "Partner portal API v2 (2)" says nothing, the package that implements it does.
  doc.info.version = `${sdk.package} ${published.find(({ pkg }) => pkg.name === sdk.package)?.pkg.version}`;
  // What changed in the document between releases (pnpm spec:diff), at the end of the introduction.
  doc.info.description = `${doc.info.description}\n\n${renderHistory(await specHistory(spec.name))}`;
  for (const { op, webhook } of operations(doc)) if (!webhook) anchors.set(`${spec.name} ${op.operationId}`, `${spec.name}.html#/${op.tags?.[0] ?? ""}/${op.operationId}`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  execFileSync(bin("redocly"), ["build-docs", file, "--inlineBundle", "-o", join(out, `${spec.name}.html`), "--openapi.expandResponses=200", "--openapi.jsonSampleExpandLevel=3"], {
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  console.log(`docs: ${spec.name}.html`);
}

for (const { dir, path: cwd, pkg } of published) {
  execFileSync(
    bin("typedoc"),
    [
      "--entryPoints",
      "src/index.ts",
      "--tsconfig",
      "tsconfig.json",
      "--out",
      join(out, "api", dir),
      "--name",
      pkg.name,
      "--readme",
      "README.md",
      // The guides go with core's reference: they are about what every client shares (the stores).
      ...(dir === "core" ? ["--projectDocuments", join(repoRoot, "docs", "fleets.md")] : []),
      "--excludePrivate",
      "--logLevel",
      "Error",
    ],
    { cwd, stdio: ["ignore", "inherit", "inherit"] },
  );
  console.log(`docs: api/${dir}/`);
}

/** An operation's id, linked to its place on the page (webhooks have no anchor of that form). */
const operationCell = (spec: string, id: string) => {
  const href = anchors.get(`${spec} ${id}`);
  return href ? `<a href="${href}"><code>${id}</code></a>` : `<code>${id}</code>`;
};
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const report = gapReport();
const rows = report
  .map((r) => {
    const f = r.factsBySource;
    return `<tr><td><a href="${r.spec}.html">${esc(r.title)}</a></td><td>${r.operations.length}</td><td>${r.missingOperations.length}</td><td>${r.gaps.length}</td><td>${f.document}</td><td>${f.official}</td><td>${f["third-party"]}</td><td>${f["server-sample"]}</td></tr>`;
  })
  .join("\n");
const details = report
  .map(
    (r) => `<section><h3 id="${r.spec}">${esc(r.title)}</h3>
<table><thead><tr><th>operation</th><th>method and path</th><th>facts from</th><th>gaps it reaches</th></tr></thead><tbody>
${r.operations.map((o) => `<tr><td>${operationCell(r.spec, o.id)}</td><td><code>${o.method} ${esc(o.path)}</code></td><td>${o.sources.join(", ")}</td><td>${o.gaps}</td></tr>`).join("\n")}
${r.missingOperations.map((m) => `<tr class="missing"><td colspan="4">not shown anywhere: ${esc(m)}</td></tr>`).join("\n")}
</tbody></table></section>`,
  )
  .join("\n");
writeFileSync(
  join(out, "index.html"),
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>paysys SDK reference</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:1100px;margin:2rem auto;padding:0 1rem;color:#222}table{border-collapse:collapse;width:100%;margin:1rem 0}th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}tr.missing td{color:#a33}code{font-size:90%}</style></head>
<body><h1>paysys SDK reference</h1>
<p>Reference pages built from the specs in <code>specs/</code>. On every page, <b>⚠ Gap</b> marks what no source shows and <b>Source</b> says where each fact comes from: the interface document, an official page, third-party code or a public server sample.</p>
<h2>Interfaces</h2>
<ul>${report.map((r) => `<li><a href="${r.spec}.html">${esc(r.title)}</a></li>`).join("")}</ul>
<h2>Guides</h2>
<ul><li><a href="api/core/documents/fleets.html">Running a fleet</a> — which store when (memory, file, PostgreSQL, Redis), migrations, key layout, expiry, failover, sizing</li></ul>
<h2>API reference of the packages</h2>
<ul>${published.map(({ dir, pkg }) => `<li><a href="api/${dir}/index.html">${pkg.name}</a> — ${esc(pkg.description)}</li>`).join("")}</ul>
<h2 id="gaps">Gap report</h2>
<table><thead><tr><th>interface</th><th>operations known</th><th>known to exist, not shown</th><th>gaps open</th><th>facts: document</th><th>official page</th><th>third-party code</th><th>server sample</th></tr></thead><tbody>
${rows}
</tbody></table>
${details}
</body></html>
`,
);
console.log("docs: index.html");
console.log(`docs: open ${pathToFileURL(join(out, "index.html")).href}`);
