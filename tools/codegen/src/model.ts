// Reads a bundled spec into what the emitters write: per operation, its table row (method, path,
// where each parameter goes, security, envelope, unwrap, codecs, chain, ...), the schema of the
// caller's input and of the result, and per webhook the schema of its body. Every fact comes from
// the spec; what the spec cannot say fails generation with a message that names the place.

import type { ChainDefinition, SchemeFacts } from "@paysys/core/internal";
import { deref, escapePointer, type Json, readUnwrap, resolveRef, operations as specOperations, walk } from "@paysys/spec-tools";
import { parsePointer } from "../../../packages/core/src/internal/pointer.js";

/** `reports.payments` → `ReportsPayments`. */
export const typeName = (id: string): string =>
  id
    .split(/[.\-_]/)
    .map((p) => p[0]!.toUpperCase() + p.slice(1))
    .join("");

/** `reports.payments` → `reports_payments`. */
export const ident = (id: string): string => id.replace(/[.-]/g, "_");

export interface OperationModel {
  id: string;
  method: string;
  path: string;
  summary: string;
  /** The table row, without validators (the emitter adds their names). */
  row: Record<string, unknown>;
  /** The caller's input as the validator checks it (after codecs, wire form). */
  inputSchema: Json;
  /** The caller's input as TypeScript shows it (codec'd values take what the codec accepts). */
  inputType: Json;
  /** Top-level parameters known by a name prefix: `[prefix, TypeScript type]`. */
  prefixParams: [string, string][];
  /** Whether the input has required members (then the method's params are not optional). */
  inputRequired: boolean;
  resultSchema: Json;
  /** The whole JSON request body as sent (for the sandbox's wire validators). */
  requestSchema?: Json;
  /** The whole 200 JSON answer. */
  responseSchema?: Json;
  fileWhen?: Record<string, string>;
  openParams: boolean;
  /** The operation is journaled (x-outcome): its methods take an idempotency key. */
  journaled: boolean;
  /** The answer is a list of rows (`x-unwrap` with `list`): the method takes a row schema. */
  list: boolean;
  retryNote: string;
}

export interface WebhookModel {
  id: string;
  summary: string;
  bodySchema: Json;
  /** What the receiver answers to acknowledge. */
  ackSchema?: Json;
  /** Addresses the spec says the service sends it from (`x-source-ip`), for the receiver's allow-list. */
  sources: string[];
}

export interface SpecModel {
  doc: Json;
  /** The interface's envelope (rows whose envelope is the same refer to it). */
  envelope: Json;
  operations: OperationModel[];
  webhooks: WebhookModel[];
  chain?: ChainDefinition;
  sensitiveKeys: string[];
  /** Security schemes and the lifecycle the spec gives each (`x-obtained-by`, `x-token-lifetime`, ...). */
  schemes: Record<string, SchemeModel>;
  /** How card data is encrypted (`x-cryptogram`), without its prose and plaintext schemas. */
  cryptogram?: Record<string, unknown>;
  /** The cryptogram's plaintext schemas by name (`payment`, `payout`), for the sandbox that decrypts it. */
  cryptogramPlaintext: Record<string, Json>;
  /** The addresses of the spec's servers (templates such as `{fiscal_url}` stay as they are). */
  servers: string[];
  /**
   * The property names of the request bodies, when the spec says the service reads body keys
   * regardless of case (`x-key-case: { request-bodies: insensitive }`): what a key in another case
   * stands for. Undefined otherwise.
   */
  caseInsensitiveBodyKeys?: string[];
}

/** What the spec says of a security scheme: the runtime's own type, so the two cannot drift. */
export type SchemeModel = SchemeFacts;

/** A codec's TypeScript input type, by codec name (the target lists them). */
export type CodecTypes = Readonly<Record<string, { type: string }>>;

const fail = (where: string, what: string): never => {
  throw new Error(`codegen: ${where}: ${what}`);
};

/** Every schema a node stands for, through `$ref`s and `allOf` branches. */
function parts(doc: Json, schema: Json): Json[] {
  const s = deref(doc, schema);
  if (!s || typeof s !== "object") return [];
  return [s, ...(s.allOf ?? []).flatMap((p: Json) => parts(doc, p))];
}

/** The schemas a pointer reaches inside a schema (`*` steps into `items`). */
function resolveIn(doc: Json, schema: Json, keys: readonly string[]): Json[] {
  if (keys.length === 0) return [schema];
  const [key, ...rest] = keys as [string, ...string[]];
  const next = parts(doc, schema)
    .map((p) => (key === "*" ? p.items : p.properties?.[key]))
    .filter((x) => x !== undefined);
  return next.flatMap((n) => resolveIn(doc, n, rest));
}

/** A schema written in place that says nothing beyond its type (an envelope's open `Data`); a named one (`$ref`) never is. */
const isBare = (s: Json) => s && typeof s === "object" && !s.properties && !s.items && !s.allOf && !s.anyOf && !s.oneOf && !s.$ref;

const dedupe = (schemas: Json[]): Json[] => {
  const seen = new Map<string, Json>();
  for (const s of schemas) seen.set(JSON.stringify(s), s);
  return [...seen.values()];
};

/** One schema for several candidates: the specific ones win over a bare object; several make an `allOf`. */
function pick(candidates: Json[]): Json {
  const specific = candidates.filter((c) => !isBare(c));
  const chosen = dedupe(specific.length ? specific : candidates);
  return chosen.length === 1 ? chosen[0] : { allOf: chosen };
}

const union = (schemas: Json[]): Json => {
  const d = dedupe(schemas);
  return d.length === 1 ? d[0] : { anyOf: d };
};

const itemsOf = (doc: Json, s: Json): Json | undefined => {
  const d = deref(doc, s);
  return d?.type === "array" ? (d.items ?? {}) : undefined;
};

/** `x-unwrap` as the runtime reads it, or a failure that names the operation. */
function normaliseUnwrap(where: string, raw: Json): ReturnType<typeof readUnwrap> {
  try {
    return readUnwrap(raw);
  } catch (e) {
    return fail(where, (e as Error).message);
  }
}

function jsonSchemaOf(doc: Json, holder: Json): Json | undefined {
  const h = typeof holder?.$ref === "string" ? resolveRef(doc, holder.$ref) : holder;
  return h?.content?.["application/json"]?.schema;
}

/** The result schema: what the answer holds at the unwrap pointer(s), shaped as list or one item. */
function resultOf(doc: Json, where: string, response: Json | undefined, unwrap: ReturnType<typeof normaliseUnwrap>): Json {
  if (!response) return {};
  const reached = unwrap.at.map((p) => {
    const keys = parsePointer(p);
    const found = resolveIn(doc, response, keys);
    if (found.length === 0) fail(where, `x-unwrap ${JSON.stringify(p)} reaches nothing in the schema of the 200 answer`);
    return { schema: pick(found), fanned: keys.includes("*") };
  });
  if (!unwrap.list && !unwrap.one) return union(reached.map((r) => r.schema));
  const items = union(reached.map((r) => (r.fanned ? r.schema : (itemsOf(doc, r.schema) ?? r.schema))));
  return unwrap.list ? { type: "array", items } : items;
}

/** Codecs of a schema by JSON pointer (`/Positions/*\/Price`), through `$ref`, items and compositions. */
function codecsIn(doc: Json, node: Json, path: string, out: Record<string, string>, stack: string[] = []): void {
  if (!node || typeof node !== "object") return;
  if (typeof node["x-codec"] === "string") {
    out[path] = node["x-codec"];
    return;
  }
  if (typeof node.$ref === "string") {
    if (stack.includes(node.$ref)) return;
    codecsIn(doc, resolveRef(doc, node.$ref), path, out, [...stack, node.$ref]);
    return;
  }
  for (const [name, s] of Object.entries<Json>(node.properties ?? {})) codecsIn(doc, s, `${path}/${escapePointer(name)}`, out, stack);
  if (node.items) codecsIn(doc, node.items, `${path}/*`, out, stack);
  for (const k of ["allOf", "anyOf", "oneOf"]) for (const s of node[k] ?? []) codecsIn(doc, s, path, out, stack);
}

/**
 * Where the input holds objects that take any property (`x-open`, or a body whose fields are not
 * shown), by JSON pointer: the only places a name the spec does not know can be, which the card
 * guard searches for card data.
 */
function openObjectsIn(doc: Json, node: Json, path: string, out: Record<string, string[]>, stack: string[] = []): void {
  if (!node || typeof node !== "object") return;
  if (typeof node.$ref === "string") {
    if (stack.includes(node.$ref)) return;
    openObjectsIn(doc, resolveRef(doc, node.$ref), path, out, [...stack, node.$ref]);
    return;
  }
  const isObject = node.type === "object" || node.properties !== undefined || node.additionalProperties !== undefined;
  // The names the object declares are left to their own schemas (a barcode may pass the Luhn check).
  if (isObject && node.additionalProperties !== false && !(path in out)) out[path] = Object.keys(node.properties ?? {});
  for (const [name, s] of Object.entries<Json>(node.properties ?? {})) openObjectsIn(doc, s, `${path}/${escapePointer(name)}`, out, stack);
  if (node.items) openObjectsIn(doc, node.items, `${path}/*`, out, stack);
}

/** Whether a schema reaches a codec (then its type variant differs from the wire type). */
function reachesCodec(doc: Json, node: Json): boolean {
  const out: Record<string, string> = {};
  codecsIn(doc, node, "", out);
  return Object.keys(out).length > 0;
}

/**
 * The TypeScript variant of an input schema: a codec'd node becomes a marker the type emitter
 * turns into the codec's input type, and components that reach a codec are copied as `<Name>Input`.
 */
function typeVariant(doc: Json, node: Json, inputCopies: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((n) => typeVariant(doc, n, inputCopies));
  if (!node || typeof node !== "object") return node;
  if (typeof node["x-codec"] === "string") return { "x-codec-input": node["x-codec"], ...(node.description ? { description: node.description } : {}) };
  if (typeof node.$ref === "string") {
    const target = resolveRef(doc, node.$ref);
    if (typeof target?.["x-codec"] === "string") return { "x-codec-input": target["x-codec"], ...(node.description ? { description: node.description } : {}) };
    if (!node.$ref.startsWith("#/components/schemas/") || !reachesCodec(doc, node)) return node;
    const name = `${node.$ref.slice("#/components/schemas/".length).replace(/\./g, "_")}Input`;
    if (!(name in inputCopies)) {
      inputCopies[name] = {}; // placeholder first: a recursive schema must not recurse here forever
      inputCopies[name] = typeVariant(doc, target, inputCopies);
    }
    const { $ref: _, ...siblings } = node;
    return { ...siblings, $ref: `#/components/schemas/${name}` };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(node))
    out[k] = ["properties", "patternProperties", "$defs"].includes(k)
      ? Object.fromEntries(Object.entries<Json>(v).map(([n, s]) => [n, typeVariant(doc, s, inputCopies)]))
      : typeVariant(doc, v, inputCopies);
  return out;
}

/** Prefix parameters are typed by the emitter as template-literal keys, not as an index signature. */
function withoutPatterns(schema: Json): Json {
  const { patternProperties: _, ...rest } = schema;
  return rest;
}

const simpleTypes: Record<string, string> = { boolean: "boolean", string: "string", number: "number", integer: "number" };

/**
 * `x-file-signature` on the schema of a file answer: the hex bytes every such file begins with (an
 * xlsx is a zip, `504b0304`), so bytes of another kind are an error and not the file.
 */
function signatureOf(doc: Json, where: string, ok: Json | undefined, binaryWhen: Json | undefined): string | undefined {
  const marks = Object.values<Json>(ok?.content ?? {}).flatMap((m) => deref(doc, m.schema)?.["x-file-signature"] ?? []);
  if (marks.length === 0) return undefined;
  const [signature] = marks;
  if (!binaryWhen) fail(where, "x-file-signature on an operation that answers no file (no x-binary-when)");
  if (marks.length > 1 || typeof signature !== "string" || !/^([0-9a-f]{2})+$/.test(signature)) fail(where, "x-file-signature must be one string of lowercase hex bytes");
  return signature;
}

/**
 * `x-file-end` beside `x-file-signature`: the record every such file's last `within` bytes hold whole
 * (`record` bytes from its hex `signature` on: a zip's end record), so a file cut off where nothing
 * declared its length is an error and not the file.
 */
function fileEndOf(doc: Json, where: string, ok: Json | undefined, signature: string | undefined): { signature: string; record: number; within: number } | undefined {
  const marks = Object.values<Json>(ok?.content ?? {}).flatMap((m) => deref(doc, m.schema)?.["x-file-end"] ?? []);
  if (marks.length === 0) return undefined;
  const [end] = marks;
  if (!signature) fail(where, "x-file-end without an x-file-signature");
  const bytes = typeof end?.signature === "string" && /^([0-9a-f]{2})+$/.test(end.signature) ? end.signature.length / 2 : 0;
  if (marks.length > 1 || !bytes || !Number.isInteger(end.record) || end.record < bytes || !Number.isInteger(end.within) || end.within < end.record)
    fail(
      where,
      "x-file-end must be one { signature: lowercase hex bytes, record: its record's length (at least the signature's), within: the last bytes it is in (at least the record's) }",
    );
  return { signature: end.signature, record: end.record, within: end.within };
}

/** Reads the spec's security requirement of an operation into scheme names. */
function securityOf(doc: Json, op: Json): string[] {
  const requirements: Json[] = op.security ?? doc.security ?? [];
  return [...new Set(requirements.flatMap((r) => Object.keys(r)))];
}

/**
 * `x-outcome`: how the SDK learns whether a journaled call whose answer was lost took effect. The
 * facts only (prose stays in the spec); a status query must be an idempotent operation of the spec,
 * its parameters taken from this operation's by pointer.
 */
function outcomeOf(doc: Json, where: string, op: Json, properties: Record<string, Json>, presentsChain: boolean): Json | undefined {
  const spec = op["x-outcome"];
  if (spec === undefined) return undefined;
  // `key`: the parameter that names the request, the idempotency key when the caller gives none.
  const key = spec.key === undefined ? {} : { key: spec.key };
  if (spec.key !== undefined && !properties[parsePointer(spec.key)[0] ?? ""]) fail(where, `x-outcome key ${spec.key} is not a parameter`);
  if (spec.by === "none") return { by: "none", ...key };
  if (spec.by === "chain") {
    if (!op["x-chain-key"] || !presentsChain) fail(where, "x-outcome by chain needs an operation that presents the chain (x-chain-key and the chain header)");
    return { by: "chain", ...key };
  }
  if (spec.by !== "query") fail(where, `x-outcome by must be chain, query or none, got ${JSON.stringify(spec.by)}`);
  const query = specOperations(doc).find(({ op: o }) => o.operationId === spec.operation)?.op;
  if (query?.["x-idempotent"] !== true) fail(where, `x-outcome queries ${spec.operation}, which is not an idempotent operation of the spec`);
  for (const pointer of Object.values<string>(spec.params ?? {})) {
    const name = parsePointer(pointer)[0];
    if (!name || !properties[name]) fail(where, `x-outcome takes ${pointer}, which is not a parameter`);
  }
  // Where the status answer names what it was asked (the query's x-answer-names, for the parameters
  // the outcome gives it); without it, an answer about another order could settle this one. An
  // answer that names nothing (a bare link) must say so in an x-gap: then it is taken at its word.
  if (spec.identifies !== undefined) fail(where, "x-outcome identifies is now the query operation's x-answer-names");
  // (The runtime reads them from the query's own row: they are not copied here.)
  const identifies = Object.values<string>(query["x-answer-names"] ?? {}).filter((name) => name in (spec.params ?? {}));
  if (identifies.length === 0 && typeof spec["x-gap"] !== "string") {
    fail(
      where,
      `x-outcome by query needs ${spec.operation} to have x-answer-names for one of its params (where its answer names what was asked), or an x-gap saying why its answer names nothing`,
    );
  }
  const applied = withoutExtensions(spec.applied ?? {});
  const kinds = ["found", "equals", "changed"].filter((k) => k in applied);
  if (kinds.length !== 1 || (kinds[0] === "equals" && typeof applied.at !== "string"))
    fail(where, "x-outcome applied must be { found: true }, { at, equals, notAppliedWhen } or { changed }");
  // Without it, every other value would read as "not applied": a status no source explains, which
  // the call itself may have set, would free its key to be sent again.
  if (kinds[0] === "equals" && (!Array.isArray(applied.notAppliedWhen) || applied.notAppliedWhen.length === 0 || applied.notAppliedWhen.includes(applied.equals))) {
    fail(where, "x-outcome applied { at, equals } needs notAppliedWhen: the values (not equals) that say the call did not take effect; any other value says neither");
  }
  return { by: "query", operation: spec.operation, params: spec.params ?? {}, applied, ...key };
}

/**
 * The chain the runtime keeps (`x-chain`): its header, the read of a key's current link, and the
 * pattern a link must match, from the header's own schema (`components.headers`): a link that does
 * not match (two `Uid` headers joined into one) is not kept, and the next call reads the current one.
 */
function chainOf(doc: Json, chainSpec: Json, specPath: string): ChainDefinition {
  const current = { operation: chainSpec.current.operation, param: chainSpec.current.param };
  const headerSpec = doc.components?.headers?.[chainSpec.header];
  const schema = headerSpec?.schema ? deref(doc, headerSpec.schema) : undefined;
  if (schema?.pattern !== undefined && typeof schema.pattern !== "string") fail(specPath, `the pattern of the chain header ${chainSpec.header} is not a string`);
  return { header: chainSpec.header, current, ...(schema?.pattern ? { pattern: schema.pattern } : {}) };
}

export function buildModel(doc: Json, codecTypes: CodecTypes, specPath: string): SpecModel {
  const inputCopies: Record<string, Json> = {};
  // Its prose (x-gap, x-note) stays in the spec; the runtime gets the facts.
  const docEnvelope = withoutExtensions(doc["x-envelope"] ?? fail(specPath, "x-envelope is missing at the root (where params go, and the answer's code and message)"));
  const schemes: Record<string, Json> = doc.components?.securitySchemes ?? {};
  const chainSpec = doc["x-chain"];
  const chain = chainSpec ? chainOf(doc, chainSpec, specPath) : undefined;
  const models: OperationModel[] = [];
  const webhooks: WebhookModel[] = [];

  for (const { method, path, op, webhook } of specOperations(doc)) {
    const id: string = op.operationId;
    const where = `${specPath} ${method.toUpperCase()} ${path} (${id})`;
    if (webhook) {
      webhooks.push({
        id,
        summary: op.summary ?? id,
        bodySchema: jsonSchemaOf(doc, op.requestBody) ?? fail(where, "a webhook needs a JSON request body"),
        ackSchema: jsonSchemaOf(doc, op.responses?.["200"]),
        sources: [op["x-source-ip"] ?? []].flat().map((ip: Json) => (typeof ip === "string" ? ip : ip.address)),
      });
      continue;
    }
    const envelope = { ...docEnvelope, ...withoutExtensions(op["x-envelope"] ?? {}) };
    const unwrap = normaliseUnwrap(where, op["x-unwrap"]);
    const parameters: Json[] = (op.parameters ?? []).map((p: Json) => deref(doc, p));
    const byIn = (kind: string) => parameters.filter((p) => p.in === kind && !(kind === "header" && chain && p.name === chain.header));
    const presentsChain = parameters.some((p) => p.in === "header" && chain && p.name === chain.header);

    // The caller's input: path, query and header parameters beside the body's parameters.
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    const headerDefaults: Record<string, string> = {};
    for (const p of [...byIn("path"), ...byIn("query"), ...byIn("header")]) {
      properties[p.name] = { ...p.schema, ...(p.description ? { description: p.description } : {}) };
      const dflt = p.schema?.default;
      if (p.in === "header" && dflt !== undefined) headerDefaults[p.name] = String(dflt);
      else if (p.required) required.push(p.name);
    }
    const requestSchema = jsonSchemaOf(doc, op.requestBody);
    let openParams = false;
    let patternProperties: Json | undefined;
    let period: Json | undefined;
    let checks: string[] = [];
    let additional: Json = false;
    let bodyNames: string[] = [];
    let secretExtras = false;
    if (requestSchema) {
      const keys = parsePointer(envelope.params);
      const found = resolveIn(doc, requestSchema, keys);
      if (found.length !== 1) fail(where, `x-envelope params ${JSON.stringify(envelope.params)} must reach one object schema in the request body`);
      const params = deref(doc, found[0]);
      if (params.allOf || params.anyOf || params.oneOf) fail(where, "the parameters object must list its properties (no allOf/anyOf/oneOf at that level)");
      for (const [name, s] of Object.entries<Json>(params.properties ?? {})) {
        if (name in properties) fail(where, `parameter ${name} is both a ${parameters.find((p) => p.name === name)?.in} parameter and a body field`);
        properties[name] = s;
      }
      bodyNames = Object.keys(params.properties ?? {});
      required.push(...(params.required ?? []));
      patternProperties = params.patternProperties;
      period = params["x-period"];
      checks = params["x-checks"] ?? [];
      const known = Object.keys(params.properties ?? {}).length > 0;
      // Known parameters are checked strictly; where the document calls the list open, the
      // unknown ones go through the named escape hatch `extraParams`, never beside the known ones.
      openParams = known && params.additionalProperties === true;
      secretExtras = openParams && params["x-sensitive-extras"] === true;
      additional = known ? false : (params.additionalProperties ?? true);
    }
    const inputSchema: Json = {
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      ...(patternProperties ? { patternProperties } : {}),
      additionalProperties: additional,
    };
    const codecs: Record<string, string> = {};
    codecsIn(doc, inputSchema, "", codecs);
    const openAt: Record<string, string[]> = {};
    openObjectsIn(doc, inputSchema, "", openAt);
    const patternCodecs: Record<string, string> = {};
    const prefixParams: [string, string][] = [];
    for (const [pattern, s] of Object.entries<Json>(patternProperties ?? {})) {
      const found: Record<string, string> = {};
      codecsIn(doc, s, "", found);
      if (found[""]) patternCodecs[pattern] = found[""];
      const prefix = /^\^([A-Za-z0-9_]+)$/.exec(pattern)?.[1] ?? fail(where, `pattern property ${pattern} must be a plain prefix (^name) to be typed`);
      const codec = found[""];
      const tsType = codec ? (codecTypes[codec]?.type ?? fail(where, `no TypeScript type for codec ${codec}`)) : (simpleTypes[deref(doc, s)?.type] ?? "unknown");
      prefixParams.push([prefix, tsType]);
    }
    for (const name of Object.values({ ...codecs, ...patternCodecs })) if (!codecTypes[name]) fail(where, `codec ${name} is not one the package provides`);
    if (period && (!properties[period.from] || !properties[period.to])) fail(where, `x-period names ${period.from} and ${period.to}, which are not both parameters`);
    const chainKey = op["x-chain-key"];
    if ((presentsChain || chainKey) && !chain) fail(where, "the operation uses a chain, but the spec has no x-chain");
    if (presentsChain && !chainKey) fail(where, `presents the chain header ${chain?.header} but has no x-chain-key`);
    if (chainKey && !properties[chainKey]) fail(where, `x-chain-key ${chainKey} is not a parameter`);

    const outcome = outcomeOf(doc, where, op, properties, presentsChain);

    const ok = typeof op.responses?.["200"]?.$ref === "string" ? resolveRef(doc, op.responses["200"].$ref) : op.responses?.["200"];
    const returnsChain = Boolean(chain && Object.keys(ok?.headers ?? {}).some((h) => h.toLowerCase() === chain.header.toLowerCase()));
    const response = jsonSchemaOf(doc, ok);
    // An answer that is text (a PEM key) rather than JSON.
    const textAnswer = !response && Object.values<Json>(ok?.content ?? {}).some((m) => deref(doc, m.schema)?.type === "string");
    const binaryWhen = op["x-binary-when"];
    const fileSignature = signatureOf(doc, where, ok, binaryWhen);
    const fileEnd = fileEndOf(doc, where, ok, fileSignature);
    const answerNames: Record<string, string> | undefined = op["x-answer-names"];
    for (const [pointer, name] of Object.entries(answerNames ?? {})) {
      // `$account`: the client's own account (the merchant whose credentials ask), not a parameter.
      if (!pointer.startsWith("/") || (!properties[name] && name !== "$account"))
        fail(where, `x-answer-names ${pointer}: ${name}, which is not one of its parameters (nor $account)`);
    }
    const security = securityOf(doc, op);
    const signsIn = Object.values<Json>(schemes).some((s) => s["x-obtained-by"] === id);
    const row: Record<string, unknown> = {
      id,
      method,
      path,
      security,
      ...(signsIn ? { signsIn: true } : {}),
      idempotent: op["x-idempotent"] === true,
      movesMoney: op["x-moves-money"] === true,
      ...(byIn("path").length || byIn("query").length || byIn("header").length
        ? {
            in: {
              ...(byIn("path").length ? { path: byIn("path").map((p) => p.name) } : {}),
              ...(byIn("query").length ? { query: byIn("query").map((p) => p.name) } : {}),
              ...(byIn("header").length ? { header: byIn("header").map((p) => p.name) } : {}),
            },
          }
        : {}),
      ...(Object.keys(headerDefaults).length ? { headerDefaults } : {}),
      body: requestSchema !== undefined,
      envelope,
      unwrap,
      ...(binaryWhen ? { binaryWhen } : {}),
      ...(fileSignature ? { fileSignature } : {}),
      ...(fileEnd ? { fileEnd } : {}),
      ...(answerNames ? { answerNames } : {}),
      ...(textAnswer ? { textAnswer: true } : {}),
      ...(Object.keys(codecs).length ? { codecs } : {}),
      ...(Object.keys(patternCodecs).length ? { patternCodecs } : {}),
      ...(period ? { period } : {}),
      ...(openParams ? { openParams: true, names: Object.keys(properties), ...(patternProperties ? { namePatterns: Object.keys(patternProperties) } : {}) } : {}),
      ...(Object.keys(openAt).length ? { openAt } : {}),
      ...(checks.length ? { checks } : {}),
      ...(chainKey ? { chain: { key: chainKey, presents: presentsChain, returns: returnsChain } } : {}),
      ...(outcome ? { outcome } : {}),
      // Where the service reads body keys regardless of case, an open parameter in another case is one of these.
      ...(doc["x-key-case"]?.["request-bodies"] === "insensitive" && openParams && bodyNames.length ? { namesIgnoreCase: bodyNames.map((n) => n.toLowerCase()) } : {}),
      ...(op["x-path-default"] === true ? { pathIsDefault: true } : {}),
      ...(reachesSensitive(doc, response) ? { secretAnswer: true } : {}),
      ...(secretExtras ? { secretExtras: true } : {}),
    };
    models.push({
      id,
      method,
      path,
      summary: op.summary ?? id,
      row,
      inputSchema,
      inputType: typeVariant(doc, withoutPatterns(inputSchema), inputCopies),
      prefixParams,
      inputRequired: required.length > 0,
      resultSchema: textAnswer ? { type: "string" } : resultOf(doc, where, response, unwrap),
      requestSchema,
      responseSchema: response,
      fileWhen: binaryWhen,
      openParams,
      journaled: outcome !== undefined,
      list: unwrap.list === true,
      retryNote: op["x-moves-money"]
        ? "Moves money: never retried automatically"
        : op["x-idempotent"]
          ? "Retried on network errors, timeouts, 408, 429 and 5xx"
          : "Not retried automatically",
    });
  }

  // The reads that decide a lost call's outcome (a status query, the chain's current link): their
  // answers are checked like those of money operations (a key given twice read as its last value
  // settled a Z-report that never happened as applied).
  const deciders = new Set([...models.map((m) => (m.row.outcome as { operation?: string } | undefined)?.operation), chain?.current.operation]);
  for (const m of models) if (deciders.has(m.id)) m.row.decidesOutcome = true;

  // The input copies (`<Name>Input`) join the document's components, for the type emitter.
  const augmented = { ...doc, components: { ...doc.components, schemas: { ...doc.components?.schemas, ...inputCopies } } };
  const schemeModels = Object.fromEntries(
    Object.entries<Json>(schemes).map(([name, s]) => [
      name,
      {
        type: s.type,
        ...(s.scheme ? { scheme: s.scheme } : {}),
        ...(s["x-obtained-by"] ? { obtainedBy: s["x-obtained-by"] } : {}),
        ...(s["x-renewed-by"] ? { renewedBy: s["x-renewed-by"] } : {}),
        ...(s["x-revoked-by"] ? { revokedBy: s["x-revoked-by"] } : {}),
        ...(s["x-token-lifetime"] ? { tokenLifetime: s["x-token-lifetime"] } : {}),
        ...(s["x-single-token"] ? { singleToken: true } : {}),
      },
    ]),
  );
  const { description: _d, plaintext, ...cryptogram } = Object.fromEntries(Object.entries<Json>(doc["x-cryptogram"] ?? {}).filter(([k]) => !k.startsWith("x-")));
  return {
    doc: augmented,
    envelope: docEnvelope,
    operations: models,
    webhooks,
    chain,
    sensitiveKeys: sensitiveKeys(doc),
    schemes: schemeModels,
    servers: (doc.servers ?? []).map((server: Json) => server.url),
    cryptogramPlaintext: (plaintext ?? {}) as Record<string, Json>,
    ...(doc["x-cryptogram"] ? { cryptogram } : {}),
    ...(doc["x-key-case"]?.["request-bodies"] === "insensitive" ? { caseInsensitiveBodyKeys: bodyKeys(doc, models, specPath) } : {}),
  };
}

/**
 * Every property name of every request body, through references and nested objects and arrays.
 * Two names that differ only in case would make a key in a third case ambiguous: that fails.
 */
function bodyKeys(doc: Json, models: readonly OperationModel[], where: string): string[] {
  const names = new Map<string, string>();
  const seen = new Set<Json>();
  const visit = (node: Json) => {
    if (node === null || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === "string") visit(resolveRef(doc, node.$ref));
    for (const name of Object.keys(node.properties ?? {})) {
      const other = names.get(name.toLowerCase());
      if (other !== undefined && other !== name) fail(where, `x-key-case: the request-body keys ${other} and ${name} differ only in case`);
      names.set(name.toLowerCase(), name);
    }
    for (const v of Object.values<Json>(node)) visit(v);
  };
  for (const op of models) visit(op.requestSchema);
  return [...names.values()].sort();
}

/** Whether any schema reachable from `node` is marked x-sensitive (then no excerpt of the answer is ever shown). */
function reachesSensitive(doc: Json, node: Json, seen = new Set<Json>()): boolean {
  if (node === null || typeof node !== "object" || seen.has(node)) return false;
  seen.add(node);
  if (node["x-sensitive"] === true) return true;
  if (typeof node.$ref === "string" && reachesSensitive(doc, resolveRef(doc, node.$ref), seen)) return true;
  return Object.values(node).some((v) => reachesSensitive(doc, v, seen));
}

/** Names of scalar properties marked x-sensitive anywhere in the spec. */
function sensitiveKeys(doc: Json): string[] {
  const keys = new Set<string>();
  walk(doc, (node) => {
    for (const [name, schema] of Object.entries<Json>(node.properties ?? {})) {
      if (schema?.["x-sensitive"] === true && schema.type !== "object") keys.add(name);
    }
  });
  return [...keys].sort();
}

/** An object without its `x-` keys. */
const withoutExtensions = (o: Json): Json => Object.fromEntries(Object.entries<Json>(o).filter(([k]) => !k.startsWith("x-")));
