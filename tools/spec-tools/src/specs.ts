// Loading and walking the specs: shared by the spec lint, the gap report, the coverage test
// and the code generator, so that every tool reads the specs the same way.
import { readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const specsDir = join(repoRoot, "specs");

/** One OpenAPI document of one interface. */
export interface SpecInfo {
  /** Key used everywhere else: `portal-v1`, `portal-v2`, `cashout`, `fiscal`, `ecommerce`. */
  name: string;
  /** Interface the spec belongs to (portal has two specs). */
  iface: "portal" | "cashout" | "fiscal" | "ecommerce";
  file: string;
}

export const specs: readonly SpecInfo[] = [
  { name: "portal-v2", iface: "portal", file: join(specsDir, "portal/v2.openapi.yaml") },
  { name: "portal-v1", iface: "portal", file: join(specsDir, "portal/v1.openapi.yaml") },
  { name: "cashout", iface: "cashout", file: join(specsDir, "cashout/openapi.yaml") },
  { name: "fiscal", iface: "fiscal", file: join(specsDir, "fiscal/openapi.yaml") },
  { name: "ecommerce", iface: "ecommerce", file: join(specsDir, "ecommerce/openapi.yaml") },
];

export const commonSchemaFiles = ["dates.json", "money.json", "envelopes.json", "portal.json"].map((f) => join(specsDir, "common", f));

// biome-ignore lint/suspicious/noExplicitAny: specs are arbitrary YAML documents
export type Json = any;

const fileCache = new Map<string, Json>();
/** Parses a YAML or JSON file once per process. */
export function loadFile(file: string): Json {
  let doc = fileCache.get(file);
  if (doc === undefined) {
    doc = parse(readFileSync(file, "utf8"));
    fileCache.set(file, doc);
  }
  return doc;
}

export function loadSpec(spec: SpecInfo): Json {
  return loadFile(spec.file);
}

/** Follows a reference inside one document (`#/components/...`). */
export function resolveRef(doc: Json, ref: string): Json {
  return pointerGet(doc, ref, "document");
}

/** The schema a node stands for: `$ref`s followed (within the document) until a schema without one. */
export function deref(doc: Json, node: Json): Json {
  return typeof node?.$ref === "string" ? deref(doc, resolveRef(doc, node.$ref)) : node;
}

/** Escapes one key for a JSON pointer (RFC 6901). */
export const escapePointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** The value at a JSON pointer (`#/a/b` or `/a/b`); throws when it does not exist. */
export function pointerGet(doc: Json, pointer: string, where = "document"): Json {
  let node = doc;
  for (const raw of pointer
    .replace(/^#?\/?/, "")
    .split("/")
    .filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (node == null || !(key in node)) throw new Error(`unresolvable $ref ${pointer} (from ${where})`);
    node = node[key];
  }
  return node;
}

/**
 * Returns the spec as one self-contained document: each schema of another file that the spec
 * references (`../common/dates.json#/$defs/PortalDate`) becomes a component named after its file
 * and definition (`dates.PortalDate`), and the reference points there. Shared shapes stay shared:
 * openapi-typescript names them once and Ajv compiles each once.
 */
export function bundle(spec: SpecInfo): Json {
  const rootFile = spec.file;
  const hoisted: Record<string, Json> = {};
  const visit = (node: Json, file: string): Json => {
    if (Array.isArray(node)) return node.map((n) => visit(n, file));
    if (node === null || typeof node !== "object") return node;
    if (typeof node.$ref === "string") {
      const [target, pointer = ""] = node.$ref.split("#");
      const targetFile = target ? join(dirname(file), target) : file;
      const { $ref: _ref, ...siblings } = node;
      if (targetFile === rootFile) return { $ref: `#${pointer}`, ...visit(siblings, file) };
      const name = `${basename(targetFile).replace(/\.(json|ya?ml)$/, "")}.${pointer.split("/").pop()}`;
      if (!(name in hoisted)) {
        hoisted[name] = {}; // placeholder first, so a cycle cannot recurse forever
        hoisted[name] = visit(pointerGet(loadFile(targetFile), pointer, file), targetFile);
      }
      // Keywords next to the $ref (a description, an x-note) refine it at this place.
      return { $ref: `#/components/schemas/${name}`, ...visit(siblings, file) };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      // `$schema` of a JSON Schema file has no place inside an OpenAPI schema object.
      if (k === "$schema" && file !== rootFile) continue;
      out[k] = visit(v, file);
    }
    return out;
  };
  const doc = visit(loadSpec(spec), rootFile);
  doc.components = { ...doc.components, schemas: { ...doc.components?.schemas, ...Object.fromEntries(Object.entries(hoisted).sort(([a], [b]) => a.localeCompare(b))) } };
  return doc;
}

/** The operation keys of an OpenAPI path item. */
export const httpMethods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface OperationRef {
  method: string;
  path: string;
  op: Json;
  /** `webhooks` entries are operations the gateway sends to the merchant. */
  webhook: boolean;
}

/** Every operation of a document, webhooks included. */
export function operations(doc: Json): OperationRef[] {
  const out: OperationRef[] = [];
  for (const [section, webhook] of [
    ["paths", false],
    ["webhooks", true],
  ] as const) {
    for (const [path, item] of Object.entries<Json>(doc[section] ?? {})) {
      for (const method of httpMethods) {
        if (item[method]) out.push({ method, path, op: item[method], webhook });
      }
    }
  }
  return out;
}

/** Calls `visit` for every object node with its JSON pointer. */
export function walk(node: Json, visit: (node: Json, pointer: string) => void, pointer = ""): void {
  if (node === null || typeof node !== "object") return;
  if (!Array.isArray(node)) visit(node, pointer);
  for (const [k, v] of Object.entries(node)) {
    walk(v, visit, `${pointer}/${escapePointer(String(k))}`);
  }
}

export type SourceKind = "document" | "official" | "third-party" | "server-sample";

/**
 * What kind of source an `x-source` value names. The grammar is strict so the gap report can
 * count facts by origin: `seed` (the interface document), an address on the official
 * documentation sites, `third-party: <repository or path hint>`, or `server-sample: <repo@commit path>`.
 */
export function classifySource(value: string): SourceKind | undefined {
  if (value === "seed") return "document";
  if (/^https:\/\/(docs|business)\.kassa24\.kz\/\S+$/.test(value)) return "official";
  if (/^third-party: \S.{3,}$/.test(value)) return "third-party";
  if (/^server-sample: github\.com\/\S+@[0-9a-f]{40}( \S.*)?$/.test(value)) return "server-sample";
  return undefined;
}

/** `x-source` may be one string or a list. */
export function sourcesOf(node: Json): string[] {
  const s = node?.["x-source"];
  if (s === undefined) return [];
  return Array.isArray(s) ? s : [s];
}

/** Property names and pattern properties of an object schema, through `$ref`s and `allOf`. */
export function objectProperties(doc: Json, schema: Json): { names: Set<string>; patterns: string[] } {
  const s = deref(doc, schema);
  const names = new Set<string>(Object.keys(s?.properties ?? {}));
  const patterns = Object.keys(s?.patternProperties ?? {});
  for (const part of s?.allOf ?? []) {
    const p = objectProperties(doc, part);
    for (const n of p.names) names.add(n);
    patterns.push(...p.patterns);
  }
  return { names, patterns };
}
