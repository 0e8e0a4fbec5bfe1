// What changed in one interface's spec, for the callers of its client. The comparison is Optic's
// (its OpenAPI differ, and its standard breaking-change rules: a response field removed, a request
// field made required, an enum narrowed, a type changed, an operation removed, …). Our rules add
// what only our extensions say, which Optic cannot know:
//   - a money operation (`x-moves-money`) that becomes retryable, or stops moving money: breaking,
//     since the client would then re-send it;
//   - an operation marked as moving money: breaking, since calls that were retried may now end in
//     OutcomeUnknownError;
//   - a field no longer `x-sensitive`: breaking (it would reach logs and error texts); newly
//     sensitive: compatible;
//   - a security requirement changed or removed: breaking; added alternatives: compatible;
//   - an extension the runtime reads (`x-unwrap`, `x-envelope`, `x-codec`, `x-chain`, …) changed or
//     removed: breaking (what a call returns or sends changes); added: compatible;
//   - `x-gap`, `x-source`, `x-note`, descriptions and examples: documentation only (gaps opened
//     or closed and sources are listed as such).

import { escapePointer } from "@paysys/spec-tools";
import { parseOpenAPIWithSourcemap } from "@useoptic/openapi-io";
import { compareSpecs, defaultEmptySpec } from "@useoptic/openapi-utilities";
import { RuleRunner } from "@useoptic/rulesets-base";
import { BreakingChangesRuleset } from "@useoptic/standard-rulesets";

export type Level = "breaking" | "compatible" | "documentation";
export const levels: readonly Level[] = ["documentation", "compatible", "breaking"];

export interface Change {
  level: Level;
  /** `optic` (its differ and breaking-change rules) or `paysys` (our extension rules). */
  by: "optic" | "paysys";
  /** What kind of change: `added`, `removed`, `changed`, `gap opened`, `gap closed`, `source`, or a rule's name. */
  kind: string;
  /** Where, readable: `POST /payment/create › responses › 200 › … › url` or `CreatePaymentResponse › url`. */
  where: string;
  /** One sentence for a reader. */
  what: string;
}

// biome-ignore lint/suspicious/noExplicitAny: specs are arbitrary documents
type Doc = any;
interface Parsed {
  jsonLike: Doc;
  sourcemap: Doc;
  isEmptySpec: boolean;
}

const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
/** Keys whose changes only touch the documentation. */
const documentationKeys = new Set([
  "description",
  "summary",
  "title",
  "example",
  "examples",
  "externalDocs",
  "tags",
  "x-source",
  "x-note",
  "x-gap",
  "x-missing-operations",
  "x-known-values",
  "x-seen-values",
  "x-idempotent-reason",
  "x-changelog",
]);
/**
 * Our extensions the runtime reads (codegen puts them in the operation table): changing or removing
 * one changes what a call returns or how it travels, so it is breaking; adding one is compatible.
 */
const runtimeKeys = new Set([
  "x-unwrap",
  "x-envelope",
  "x-codec",
  "x-chain",
  "x-chain-key",
  "x-binary-when",
  "x-file-signature",
  "x-answer-names",
  "x-cryptogram",
  "x-checks",
  "x-path-default",
  "x-sdk-default",
  "x-decimals",
  "x-calendar",
  "x-period",
]);

async function parse(file: string | undefined): Promise<Parsed> {
  if (file === undefined) return { jsonLike: defaultEmptySpec, sourcemap: { rootFilePath: "empty.json", files: [], refMappings: {} }, isEmptySpec: true };
  const { jsonLike, sourcemap } = await parseOpenAPIWithSourcemap(file);
  return { jsonLike, sourcemap: JSON.parse(JSON.stringify(sourcemap)), isEmptySpec: false };
}

const unescapeSegment = (segment: string) => segment.replace(/~1/g, "/").replace(/~0/g, "~");

/** A JSON pointer into a spec, as a reader would name the place. */
export function describePointer(pointer: string): string {
  const parts = pointer.split("/").slice(1).map(unescapeSegment);
  if (parts[0] === "paths" && parts.length >= 3 && httpMethods.includes(parts[2]!)) {
    return [`${parts[2]!.toUpperCase()} ${parts[1]}`, ...parts.slice(3).filter((p) => p !== "content" && p !== "properties" && p !== "schema")].join(" › ");
  }
  if (parts[0] === "components" && parts[1] === "schemas")
    return parts
      .slice(2)
      .filter((p) => p !== "properties")
      .join(" › ");
  return parts.join(" › ");
}

/** The operations of a dereferenced document, by `METHOD path`. */
function operationsOf(doc: Doc): Map<string, Doc> {
  const out = new Map<string, Doc>();
  for (const [path, item] of Object.entries<Doc>(doc?.paths ?? {})) {
    for (const method of httpMethods) if (item?.[method]) out.set(`${method.toUpperCase()} ${path}`, item[method]);
  }
  return out;
}

/** Names of the fields marked `x-sensitive` anywhere in the document, with one place each. */
function sensitiveFields(doc: Doc): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (node: Doc, pointer: string, seen: Set<Doc>) => {
    if (node === null || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (node.properties && typeof node.properties === "object") {
      for (const [name, schema] of Object.entries<Doc>(node.properties)) if (schema?.["x-sensitive"] === true && !out.has(name)) out.set(name, `${pointer}/properties/${name}`);
    }
    for (const [k, v] of Object.entries(node)) walk(v, `${pointer}/${escapePointer(k)}`, seen);
  };
  walk(doc, "", new Set());
  return out;
}

const movesMoney = (op: Doc) => op?.["x-moves-money"] === true;
/** Retried automatically: declared idempotent, or a read (GET/HEAD) not declared otherwise. */
const retryable = (key: string, op: Doc) => op?.["x-idempotent"] ?? (key.startsWith("GET ") || key.startsWith("HEAD "));
const securityOf = (doc: Doc, op: Doc) => JSON.stringify(op?.security ?? doc?.security ?? []);

/** Our extension rules, on the dereferenced documents. */
function ourRules(before: Doc, after: Doc): Change[] {
  const changes: Change[] = [];
  const rule = (level: Level, kind: string, where: string, what: string) => changes.push({ level, by: "paysys", kind, where, what });
  const beforeOps = operationsOf(before);
  for (const [key, op] of operationsOf(after)) {
    const old = beforeOps.get(key);
    if (!old) continue;
    if (movesMoney(old) && !movesMoney(op)) rule("breaking", "money operation", key, "no longer marked as moving money: the client would retry it and could send it twice");
    else if (movesMoney(old) && retryable(key, op) && !retryable(key, old))
      rule("breaking", "money operation", key, "a money operation became retryable: the client would re-send it");
    else if (!movesMoney(old) && movesMoney(op))
      rule("breaking", "money operation", key, "now moves money: it is never retried, and a lost answer ends in OutcomeUnknownError where it used to be retried");
    const [was, is] = [securityOf(before, old), securityOf(after, op)];
    if (was !== is) {
      const wasSet: Doc[] = JSON.parse(was);
      const isSet = new Set((JSON.parse(is) as Doc[]).map((s) => JSON.stringify(s)));
      const kept = wasSet.every((s) => isSet.has(JSON.stringify(s)));
      rule(kept ? "compatible" : "breaking", "security", key, `security ${was} → ${is}`);
    }
  }
  const [wasSensitive, isSensitive] = [sensitiveFields(before), sensitiveFields(after)];
  for (const [name, where] of wasSensitive) {
    if (!isSensitive.has(name)) rule("breaking", "x-sensitive", describePointer(where), `\`${name}\` is no longer x-sensitive: its values would reach logs and error texts`);
  }
  for (const [name, where] of isSensitive)
    if (!wasSensitive.has(name)) rule("compatible", "x-sensitive", describePointer(where), `\`${name}\` is now x-sensitive: redacted from logs and errors`);
  return changes;
}

/** A change Optic's differ found, at its place in the source, classified by where it is. */
function listed(diff: { before?: string; after?: string }): Change {
  const pointer = (diff.after ?? diff.before)!;
  const parts = pointer.split("/").slice(1).map(unescapeSegment);
  const kind = diff.before && diff.after ? "changed" : diff.after ? "added" : "removed";
  const docKey = parts.find((p) => documentationKeys.has(p));
  if (docKey === "x-gap") {
    const gapKind = kind === "added" ? "gap opened" : kind === "removed" ? "gap closed" : "gap changed";
    return { level: "documentation", by: "optic", kind: gapKind, where: describePointer(pointer.slice(0, pointer.lastIndexOf("/x-gap"))), what: gapKind };
  }
  if (docKey === "x-source") return { level: "documentation", by: "optic", kind: "source", where: describePointer(pointer), what: `source ${kind}` };
  if (docKey) return { level: "documentation", by: "optic", kind, where: describePointer(pointer), what: `${docKey} ${kind}` };
  const runtimeKey = parts.find((p) => runtimeKeys.has(p));
  if (runtimeKey) {
    const level = kind === "added" ? "compatible" : "breaking";
    return { level, by: "paysys", kind, where: describePointer(pointer), what: `${runtimeKey} ${kind}${level === "breaking" ? ": what the call returns or sends changes" : ""}` };
  }
  return { level: "compatible", by: "optic", kind, where: describePointer(pointer), what: `${parts.at(-1)} ${kind}` };
}

/**
 * Compares two versions of one interface's spec (files; `undefined` is "no spec": a new or a removed
 * interface). Every change is listed once; a change Optic's rules call breaking, or one of ours, is
 * breaking; other changes to what the client sends or reads are compatible.
 */
export async function diffSpec(beforeFile: string | undefined, afterFile: string | undefined): Promise<Change[]> {
  const [before, after] = await Promise.all([parse(beforeFile), parse(afterFile)]);
  const { diffs, results } = await compareSpecs(before, after, new RuleRunner([new BreakingChangesRuleset()]), {});
  const breaking: Change[] = results
    .filter((r: Doc) => !r.passed && !r.exempted)
    .map((r: Doc) => ({ level: "breaking" as const, by: "optic" as const, kind: r.name, where: describePointer(r.location.jsonPath), what: r.error ?? r.name }));
  const listing = diffs.map(listed);
  const all = [...breaking, ...ourRules(before.jsonLike, after.jsonLike), ...listing];
  const byKey = new Map(all.map((c) => [`${c.level}|${c.where}|${c.what}`, c]));
  return [...byKey.values()];
}

/** The highest of some levels (`undefined`: none). */
export function highest(some: readonly (Level | undefined)[]): Level | undefined {
  return some.reduce<Level | undefined>((top, l) => (l !== undefined && (top === undefined || levels.indexOf(l) > levels.indexOf(top)) ? l : top), undefined);
}

/** The highest level among the changes (`undefined`: nothing changed). */
export const levelOf = (changes: readonly Change[]): Level | undefined => highest(changes.map((c) => c.level));
