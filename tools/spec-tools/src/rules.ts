// Our own spec rules, beyond what Redocly's configurable rules can express. Each returns a list of
// problems ("<spec>: <where>: <what>"); `pnpm lint:specs` fails when any list is non-empty.
import { checkExamples } from "./examples.js";
import { unexplainedOpenRequests } from "./requests.js";
import { bundle, classifySource, commonSchemaFiles, type Json, loadFile, loadSpec, operations, type SpecInfo, specs, walk } from "./specs.js";
import { envelopeProblems, readUnwrap } from "./vocabulary.js";

const worded = /^[A-Z`{"(].{18,}[.)]$/s;
const placeholder = /\b(TODO|TBD|FIXME|XXX)\b|\?\?/;

/** x-gap and x-note are sentences a reader can act on, not markers. */
export function checkWording(label: string, doc: Json): string[] {
  const problems: string[] = [];
  walk(doc, (node, pointer) => {
    for (const key of ["x-gap", "x-note", "x-open"]) {
      if (!(key in node)) continue;
      const text = node[key];
      if (typeof text !== "string" || !worded.test(text.trim()) || placeholder.test(text)) {
        problems.push(`${label}: ${pointer}/${key}: must be a sentence of 20+ characters ending with a full stop, got ${JSON.stringify(text)}`);
      }
    }
  });
  return problems;
}

/** Every x-source value names a known kind of source. */
export function checkSources(label: string, doc: Json): string[] {
  const problems: string[] = [];
  walk(doc, (node, pointer) => {
    if (!("x-source" in node)) return;
    const values = Array.isArray(node["x-source"]) ? node["x-source"] : [node["x-source"]];
    for (const v of values) {
      if (typeof v !== "string" || classifySource(v) === undefined) {
        problems.push(`${label}: ${pointer}/x-source: ${JSON.stringify(v)} is not "seed", an official address, "third-party: …" or "server-sample: github.com/…@<commit> …"`);
      }
    }
  });
  return problems;
}

/** Operation-level rules: money never retried, sensitive marks well-formed, a reason for every non-idempotent call. */
export function checkOperations(spec: SpecInfo, doc: Json): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  // Operations that obtain, renew or revoke a credential: the token manager runs them, never twice at once.
  const lifecycle = new Set(Object.values<Json>(doc.components?.securitySchemes ?? {}).flatMap((s) => [s["x-obtained-by"], s["x-renewed-by"], s["x-revoked-by"]].filter(Boolean)));
  for (const { method, path, op, webhook } of operations(doc)) {
    const where = `${spec.name}: ${method.toUpperCase()} ${path}`;
    if (ids.has(op.operationId)) problems.push(`${where}: duplicate operationId ${op.operationId}`);
    ids.add(op.operationId);
    if (typeof op["x-idempotent"] !== "boolean") problems.push(`${where}: x-idempotent must be true or false`);
    if (op["x-moves-money"] === true && op["x-idempotent"] !== false) problems.push(`${where}: moves money, so x-idempotent must be false`);
    if (op["x-idempotent"] === false && op["x-moves-money"] !== true && !op["x-idempotent-reason"]) {
      problems.push(`${where}: not idempotent and moves no money: say why in x-idempotent-reason`);
    }
    if (!webhook) {
      try {
        readUnwrap(op["x-unwrap"]);
      } catch (e) {
        problems.push(`${where}: ${(e as Error).message}`);
      }
      if (!op.responses?.["200"]) problems.push(`${where}: no 200 response`);
    }
    if (op["x-chain-key"] !== undefined && !doc["x-chain"]) problems.push(`${where}: x-chain-key without an x-chain at the root`);
    if (!webhook) problems.push(...outcomeProblems(where, op, lifecycle));
  }
  problems.push(...envelopeProblems(doc["x-envelope"]).map((p) => `${spec.name}: ${p}`));
  for (const [name, scheme] of Object.entries<Json>(doc.components?.securitySchemes ?? {})) {
    for (const k of ["x-obtained-by", "x-renewed-by", "x-revoked-by"]) {
      const id = scheme[k];
      if (id !== undefined && !operations(doc).some(({ op }) => op.operationId === id))
        problems.push(`${spec.name}: security scheme ${name}: ${k} names ${id}, which is not an operation`);
    }
  }
  walk(doc, (node, pointer) => {
    if ("x-sensitive" in node && node["x-sensitive"] !== true) problems.push(`${spec.name}: ${pointer}: x-sensitive is only ever true`);
    if ("x-sensitive-extras" in node && (node["x-sensitive-extras"] !== true || typeof node["x-open"] !== "string"))
      problems.push(`${spec.name}: ${pointer}: x-sensitive-extras is only ever true, on an open request object (x-open)`);
  });
  return problems;
}

/**
 * Every operation that is not idempotent (money, a register's documents and shifts) is journaled,
 * so it must say how a lost answer's outcome is learnt (`x-outcome`); so must every operation on
 * the chain. Where nothing can tell, `by: none` says why in an x-gap.
 */
function outcomeProblems(where: string, op: Json, lifecycle: ReadonlySet<string>): string[] {
  const outcome = op["x-outcome"];
  const needs = (op["x-idempotent"] === false && !lifecycle.has(op.operationId)) || op["x-chain-key"] !== undefined;
  if (outcome === undefined) return needs ? [`${where}: not idempotent or on the chain, so it is journaled: say how a lost answer's outcome is learnt in x-outcome`] : [];
  if (!needs) return [`${where}: x-outcome on an operation that is not journaled (idempotent, or a sign-in)`];
  if (!["chain", "query", "none"].includes(outcome.by)) return [`${where}: x-outcome by must be chain, query or none`];
  if (outcome.by === "none" && typeof outcome["x-gap"] !== "string") return [`${where}: x-outcome by none must say in an x-gap why nothing can tell`];
  return [];
}

/** Secrets the rules expect to be marked: a password or token property not marked is a leak waiting to happen. */
export function checkSensitiveNames(label: string, doc: Json): string[] {
  const problems: string[] = [];
  const secret = /^(psw|password|captcha|token|refreshToken|accessToken|cardData|cardToken|cvv|pan)$/i;
  walk(doc, (node, pointer) => {
    if (node.properties && typeof node.properties === "object") {
      for (const [name, schema] of Object.entries<Json>(node.properties)) {
        if (secret.test(name) && schema?.["x-sensitive"] !== true) problems.push(`${label}: ${pointer}/properties/${name}: a secret must carry x-sensitive: true`);
      }
    }
  });
  return problems;
}

/** Keywords the SDK's validators do not enforce: they are compiled without evaluation tracking (see ajv.ts). */
const unenforced = ["unevaluatedProperties", "unevaluatedItems"];

/** No schema uses a keyword the generated validators would silently skip. */
export function checkKeywords(label: string, doc: Json): string[] {
  const problems: string[] = [];
  walk(doc, (node, pointer) => {
    for (const key of unenforced) {
      if (key in node) problems.push(`${label}: ${pointer}/${key}: not enforced by the generated validators (compiled without evaluation tracking); use additionalProperties`);
    }
  });
  return problems;
}

/** All rules over all specs and the common schemas. */
export function lintAll(): string[] {
  const problems: string[] = [];
  for (const spec of specs) {
    const doc = loadSpec(spec);
    problems.push(
      ...checkWording(spec.name, doc),
      ...checkSources(spec.name, doc),
      ...checkOperations(spec, doc),
      ...checkSensitiveNames(spec.name, doc),
      ...checkKeywords(spec.name, doc),
      ...unexplainedOpenRequests(bundle(spec)).map((p) => `${spec.name}: ${p}`),
    );
    problems.push(...checkExamples(spec.name, bundle(spec)));
  }
  for (const file of commonSchemaFiles) {
    const label = `common/${file.split("/").pop()}`;
    const doc = loadFile(file);
    problems.push(...checkWording(label, doc), ...checkSources(label, doc), ...checkSensitiveNames(label, doc), ...checkKeywords(label, doc));
  }
  return problems;
}
