// Closed requests. Every object a request carries is closed (`additionalProperties: false`) unless
// the spec marks it open with `x-open`, which says why (a list the document calls open, a field
// the caller fills with anything): a misspelt field at any depth (`customerData.carddata`) is then
// refused by the types and by the validator, never sent. Answers stay as the spec says: what a
// service sends back is read, not refused.
//
// The lint rule and the code generator walk requests the same way, here.
import { type Json, operations, resolveRef } from "./specs.js";

const COMPONENT = "#/components/schemas/";

/** An object node: one that has properties of its own, or says what its other properties are. */
const isObject = (node: Json) => node?.type === "object" || node?.properties !== undefined || node?.additionalProperties !== undefined;

/** The schemas of every request the spec sends (bodies and parameters), not of the webhooks it receives. */
function requestRoots(doc: Json): { where: string; schema: Json }[] {
  const roots: { where: string; schema: Json }[] = [];
  for (const { method, path, op, webhook } of operations(doc)) {
    if (webhook) continue;
    const where = `${method.toUpperCase()} ${path}`;
    const body = op.requestBody?.$ref ? resolveRef(doc, op.requestBody.$ref) : op.requestBody;
    const schema = body?.content?.["application/json"]?.schema;
    if (schema) roots.push({ where: `${where} body`, schema });
    for (const p of op.parameters ?? []) {
      const param = p.$ref ? resolveRef(doc, p.$ref) : p;
      if (param?.schema) roots.push({ where: `${where} parameter ${param.name}`, schema: param.schema });
    }
  }
  return roots;
}

/** Every object node a request reaches, once each, with where it is (components by name). */
export function requestObjects(doc: Json): { where: string; node: Json }[] {
  const found: { where: string; node: Json }[] = [];
  const seen = new Set<Json>();
  const visit = (node: Json, where: string) => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === "string") {
      if (node.$ref.startsWith(COMPONENT)) visit(resolveRef(doc, node.$ref), `components/${node.$ref.slice(COMPONENT.length)}`);
      return;
    }
    if (isObject(node)) found.push({ where, node });
    for (const [name, s] of Object.entries<Json>(node.properties ?? {})) visit(s, `${where}/${name}`);
    if (node.items) visit(node.items, `${where}/items`);
    if (node.additionalProperties && typeof node.additionalProperties === "object") visit(node.additionalProperties, `${where}/additionalProperties`);
    for (const s of Object.values<Json>(node.patternProperties ?? {})) visit(s, `${where}/patternProperties`);
  };
  for (const { where, schema } of requestRoots(doc)) visit(schema, where);
  return found;
}

/** Request objects left open without saying why: what the lint rule refuses. */
export function unexplainedOpenRequests(doc: Json): string[] {
  return requestObjects(doc)
    .filter(({ node }) => node.additionalProperties !== undefined && node.additionalProperties !== false && typeof node["x-open"] !== "string")
    .map(({ where }) => `${where}: a request object left open must say why in x-open (or be closed: additionalProperties false)`);
}

/**
 * The spec with every request object closed unless marked `x-open`. A component that answers
 * reach too is copied (`<Name>Request`) for the requests, so answers keep reading it open.
 */
export function closeRequests(spec: Json): Json {
  const doc: Json = structuredClone(spec);
  const schemas: Record<string, Json> = doc.components?.schemas ?? {};
  const inRequests = new Set(requestObjects(doc).map(({ node }) => node));
  // Components some answer reaches: they stay as they are, and requests get a closed copy.
  const shared = new Set<string>();
  const mark = (node: Json, stack: Set<string>) => {
    if (!node || typeof node !== "object") return;
    if (Array.isArray(node)) {
      for (const n of node) mark(n, stack);
      return;
    }
    if (typeof node.$ref === "string" && node.$ref.startsWith(COMPONENT)) {
      const name = node.$ref.slice(COMPONENT.length);
      if (stack.has(name) || shared.has(name)) return;
      shared.add(name);
      return mark(schemas[name], new Set([...stack, name]));
    }
    for (const v of Object.values(node)) mark(v, stack);
  };
  for (const { op, webhook } of operations(doc)) {
    if (webhook) mark(op.requestBody, new Set());
    for (const answer of Object.values<Json>(op.responses ?? {})) mark(answer, new Set());
  }
  const copies: Record<string, Json> = {};
  const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);
  // Whether closing a component changes it (a scalar, or one already closed, is used as it is).
  const changes = new Map<string, boolean>();
  const changesComponent = (name: string): boolean => {
    if (!changes.has(name)) {
      changes.set(name, false); // a recursive schema answers "no change" to itself while it is asked
      changes.set(name, !same(close(structuredClone(schemas[name])), schemas[name]));
    }
    return changes.get(name)!;
  };
  const close = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(close);
    if (!node || typeof node !== "object") return node;
    if (typeof node.$ref === "string" && node.$ref.startsWith(COMPONENT)) {
      const name = node.$ref.slice(COMPONENT.length);
      if (!shared.has(name) || !changesComponent(name)) return node; // closed in place below, or needs nothing
      const copy = `${name}Request`;
      if (!(copy in copies)) {
        copies[copy] = {}; // placeholder first: a recursive schema must not recurse forever
        copies[copy] = close(structuredClone(schemas[name]));
      }
      return { ...node, $ref: `${COMPONENT}${copy}` };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries<Json>(node)) {
      // Examples are data, not schemas: left as they are.
      if (k === "example" || k === "examples") out[k] = v;
      else out[k] = k === "properties" || k === "patternProperties" ? Object.fromEntries(Object.entries<Json>(v).map(([n, s]) => [n, close(s)])) : close(v);
    }
    if (isObject(node) && typeof node["x-open"] !== "string") out.additionalProperties = false;
    else if (typeof node["x-open"] === "string" && out.additionalProperties === undefined) out.additionalProperties = true;
    return same(out, node) ? node : out;
  };
  /** A request's body or parameter, closed; a `$ref` to one stays a reference when nothing in it changes. */
  const closeHolder = (holder: Json): Json => {
    const resolved = holder.$ref ? resolveRef(doc, holder.$ref) : holder;
    const closed = close(resolved);
    return closed === resolved ? holder : closed;
  };
  for (const { op, webhook } of operations(doc)) {
    if (webhook) continue;
    if (op.requestBody) op.requestBody = closeHolder(op.requestBody);
    if (op.parameters) op.parameters = op.parameters.map(closeHolder);
  }
  for (const [name, schema] of Object.entries(schemas)) {
    if (!shared.has(name) && inRequests.has(schema)) schemas[name] = close(schema);
  }
  doc.components = { ...doc.components, schemas: { ...schemas, ...copies } };
  return doc;
}
