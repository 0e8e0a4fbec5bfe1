// Makes a spec's own facts visible on its reference page. Redoc renders descriptions, not vendor
// extensions, so a copy of the bundled spec gets each x-gap, x-source and x-note written into
// the description of the object that carries it: the reader sees what is unknown, and where each
// fact came from, at the place it concerns.
import { retryDefaults } from "@paysys/core/internal";
import { classifySource, httpMethods, type Json } from "@paysys/spec-tools";
import { codeSample, type SdkEntry } from "./samples.js";

const seconds = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);
const { maxRetries, baseDelayMs, maxDelayMs, retryAfterCapMs } = retryDefaults;
/** The retry policy with its default numbers (client option `retry` changes them). */
const retryNote = `the SDK retries it on network errors, timeouts, 408, 429 and 5xx: at most ${maxRetries} more attempts, waiting ${seconds(baseDelayMs)} doubled each time up to ${seconds(maxDelayMs)} (with jitter), or the \`Retry-After\` the service sends up to ${seconds(retryAfterCapMs)}; client option \`retry\``;

const sourceLabel = (value: string): string => {
  switch (classifySource(value)) {
    case "document":
      return "interface document";
    case "official":
      return `[official page](${value})`;
    case "third-party":
      return `third-party code (${value.slice("third-party: ".length)})`;
    case "server-sample":
      return `server sample (${value.slice("server-sample: ".length)})`;
    default:
      return value;
  }
};

/** The notes one object carries, as Markdown lines. */
export function notesOf(node: Json): string[] {
  const lines: string[] = [];
  const sources = node["x-source"] === undefined ? [] : [node["x-source"]].flat();
  if (sources.length) lines.push(`<small>**Source:** ${sources.map(sourceLabel).join("; ")}</small>`);
  if (typeof node["x-gap"] === "string") lines.push(`> ⚠ **Gap:** ${node["x-gap"].trim()}`);
  if (typeof node["x-note"] === "string") lines.push(`> **Note:** ${node["x-note"].trim()}`);
  if (node["x-sensitive"] === true) lines.push("<small>**Secret:** never logged by the SDK.</small>");
  return lines;
}

function operationNotes(op: Json, chain: Json): string[] {
  const lines: string[] = [];
  if (op["x-chain-key"] && chain) {
    const presents = (op.parameters ?? []).some((p: Json) => p.$ref?.endsWith("/UidRequest") || p.name === chain.header);
    lines.push(
      `> **${chain.header} chain:** ${presents ? `presents the register's current \`${chain.header}\`` : `starts the chain`}${op["x-gap"]?.includes(chain.header) ? "" : ` and takes the next one from the answer's \`${chain.header}\` header`}; calls on one \`${op["x-chain-key"]}\` run one at a time.`,
    );
  }
  if (op["x-path-default"] === true) lines.push("> **Path:** the SDK's default; no source shows the real one (client option `paths`).");
  if (op["x-moves-money"] === true) lines.push("> **Moves money:** the SDK never retries it automatically.");
  else if (op["x-idempotent"] === true) lines.push(`<small>**Retries:** ${retryNote}.</small>`);
  else if (op["x-idempotent"] === false) lines.push(`<small>**Not retried automatically:** ${op["x-idempotent-reason"] ?? "not idempotent."}</small>`);
  return lines;
}

/** Keys whose values are data or extension payloads, not OpenAPI objects to annotate. */
const skip = (key: string) => key === "example" || key === "examples" || key === "enum" || key === "const" || key === "default" || key.startsWith("x-");

/** A copy of the bundled spec with notes written into descriptions, the SDK call of each operation among them. */
export function annotate(doc: Json, sdk?: SdkEntry): Json {
  const chain = doc["x-chain"];
  const visit = (node: Json, isOperation: boolean): Json => {
    if (Array.isArray(node)) return node.map((n) => visit(n, false));
    if (node === null || typeof node !== "object") return node;
    const out: Json = {};
    for (const [k, v] of Object.entries<Json>(node)) {
      out[k] = skip(k) ? v : visit(v, isPathItem(node) && (httpMethods as readonly string[]).includes(k));
    }
    // The SDK call goes into the description: the page renderer (redocly build-docs) does not display x-codeSamples.
    const sample = isOperation && sdk && node.operationId ? [`**With the SDK** (\`${sdk.package}\`):\n\n\`\`\`ts\n${codeSample(doc, node, sdk)}\`\`\``] : [];
    const lines = [...(isOperation ? operationNotes(node, chain) : []), ...notesOf(node), ...rulesOf(node), ...sample];
    if (lines.length && !node.$ref) {
      // Server descriptions are shown as plain text, the rest as Markdown.
      const plain = typeof node.url === "string";
      const text = plain ? lines.map((l) => l.replace(/<\/?small>|\*\*|^> /g, "")) : lines;
      out.description = [node.description?.trim(), ...text].filter(Boolean).join(plain ? " " : "\n\n");
    }
    return out;
  };
  const annotated = visit(doc, false);
  annotated.info.description = [annotated.info.description, ...infoSections(doc.info, chain), ...cryptogramSection(doc), ...vocabularySection(doc)].filter(Boolean).join("\n\n");
  return annotated;
}

/** The card cryptogram's recipe (`x-cryptogram`): what the SDK's `encryptCard` does, step by step. */
function cryptogramSection(doc: Json): string[] {
  const c = doc["x-cryptogram"];
  if (!c) return [];
  const plaintext = Object.entries<Json>(c.plaintext ?? {})
    .map(([name, ref]) => `\`${name}\`: \`${String(ref.$ref).split("/").pop()}\``)
    .join(", ");
  return [
    `### The card cryptogram\n\n${c.description?.trim() ?? ""}\n\n| | |\n|---|---|\n| goes into | \`${c.field}\` |\n| algorithm | ${c.algorithm}, ${c.hash} for OAEP, ${c.mgf1Hash} for MGF1, label ${c.label === "" ? "empty" : `\`${c.label}\``} |\n| encoding | standard Base64 |\n| plaintext | ${plaintext} |\n| key | \`${c.key.pem}\` (PEM) or \`${c.key.jwk}\` (JWK), kept at most ${c.key.cacheMaxAge} |\n\nThe SDK: \`encryptCard(card, key)\` in \`@paysys/ecommerce\` and \`@paysys/ecommerce/card\` (the payment form's entry).${notesOf(
      { "x-source": c["x-source"], "x-gap": c["x-gap"] },
    )
      .map((l) => `\n\n${l}`)
      .join("")}`,
  ];
}

/** Vocabularies that share numbers with different meanings (`x-status-vocabularies`), side by side. */
function vocabularySection(doc: Json): string[] {
  const v = doc["x-status-vocabularies"];
  if (!v) return [];
  const schemas = doc.components?.schemas ?? {};
  const rows = Object.entries<Json>(v)
    .filter(([k]) => k !== "description")
    .map(([name, ref]) => {
      const schema = schemas[String(ref.$ref).split("/").pop() ?? ""] ?? {};
      const values = (schema["x-known-values"] ?? []).map((x: Json) => `${x.value} ${x.name}`).join(", ");
      return `| ${name} | ${schema.title ?? ""} | ${values} |`;
    });
  return [`### Status vocabularies\n\n${v.description ?? ""}\n\n| vocabulary | schema | values |\n|---|---|---|\n${rows.join("\n")}`];
}

function isPathItem(node: Json): boolean {
  return httpMethods.some((m) => node[m]?.responses !== undefined);
}

/** The rules a service applies to a schema (`x-rules`), as a list with the message each failure gets. */
function rulesOf(node: Json): string[] {
  const rules = node["x-rules"];
  if (!Array.isArray(rules)) return [];
  return [
    `**Rules the service applies** (the SDK checks the first three before sending):\n\n${rules.map((r: Json) => `- ${r.rule}${r.message ? ` Refused with "${r.message}".` : ""}`).join("\n")}`,
  ];
}

/** Extension blocks of `info` and the root (chain, missing operations, limits, autonomous mode, change log) as Markdown. */
function infoSections(info: Json, chain: Json): string[] {
  const out: string[] = [];
  if (chain) {
    out.push(
      `### The ${chain.header} chain\n\n${chain.description?.trim() ?? ""}\n\nThe SDK keeps the current \`${chain.header}\` of each key in a store, runs the calls on one key one at a time, recovers a refused link once through \`${chain.current.operation}\`, and never re-sends a call whose answer was lost (its error tells whether it took effect).${chain["x-gap"] ? `\n\n⚠ Gap: ${chain["x-gap"]}` : ""}`,
    );
  }
  const missing = info["x-missing-operations"];
  if (Array.isArray(missing)) {
    out.push(`### Known to exist, not shown anywhere\n\n${missing.map((m: Json) => `- **${m.name}.** ⚠ Gap: ${m["x-gap"]}`).join("\n")}`);
  }
  const limits = info["x-limits"];
  if (limits) {
    out.push(
      `### Limits\n\n| limit | value | note |\n|---|---|---|\n${Object.entries<Json>(limits)
        .map(([k, l]) => `| ${k} | ${l.value ?? "⚠ not shown"} | ${l.note ?? ""}${l["x-gap"] ? ` ⚠ Gap: ${l["x-gap"]}` : ""} |`)
        .join("\n")}`,
    );
  }
  const auto = info["x-autonomous-mode"];
  if (auto) {
    const list = (xs: string[]) => xs.map((x) => `- ${x}`).join("\n");
    out.push(
      `### Autonomous mode\n\n${auto.description}\n\n**Older version of the official page**\n\n${list(auto["older-version"])}\n\n**Newer version**\n\n${list(auto["newer-version"])}\n\n**Both versions**\n\n${list(auto["both-versions"])}`,
    );
  }
  const changelog = info["x-changelog"];
  if (Array.isArray(changelog)) out.push(`### Change log\n\n${changelog.map((c: Json) => `- **${c.date}:** ${c.change}`).join("\n")}`);
  return out;
}
