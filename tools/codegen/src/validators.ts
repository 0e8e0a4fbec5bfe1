// Ajv standalone validators: compiled here, at generation time, into plain ESM functions, so a
// client never compiles a schema at start-up and never needs `eval` (CSP-safe in browsers).
import { createAjv, type Json } from "@paysys/spec-tools";
import type Ajv2020 from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";

const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ?? standaloneModule) as (ajv: Ajv2020, refs: Record<string, string>) => string;

/** Keywords that only document a schema; dropped so the generated code does not embed prose. `x-decimals` and `x-calendar` check. */
const docOnly = (key: string) =>
  (key.startsWith("x-") && key !== "x-decimals" && key !== "x-calendar") ||
  ["description", "title", "examples", "example", "deprecated", "default", "contentMediaType", "summary"].includes(key);
/** Keywords whose values are maps of names to schemas (the names are data, not keywords). */
const schemaMaps = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** A copy of a schema with documentation keywords removed at every schema level. */
export function stripDocs(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(stripDocs);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Json = {};
  for (const [k, v] of Object.entries<Json>(schema)) {
    if (docOnly(k)) continue;
    if (schemaMaps.has(k) && v && typeof v === "object") {
      out[k] = Object.fromEntries(Object.entries<Json>(v).map(([name, s]) => [name, stripDocs(s)]));
    } else {
      out[k] = stripDocs(v);
    }
  }
  return out;
}

const COMPONENT = "#/components/schemas/";

/**
 * The schema with every reference to a component replaced by the component itself, so Ajv compiles
 * one function per validator: a referenced schema that has references of its own becomes a function
 * Ajv calls with an options object and a path string for every value it checks (a list of 20,000
 * registers checks ten times faster inlined). A component inside its own definition (a recursive
 * schema) stays a reference.
 */
export function inlineComponents(components: Record<string, Json>, node: Json, open: readonly string[] = []): Json {
  if (Array.isArray(node)) return node.map((n) => inlineComponents(components, n, open));
  if (node === null || typeof node !== "object") return node;
  const ref: unknown = node.$ref;
  const name = typeof ref === "string" && ref.startsWith(COMPONENT) ? ref.slice(COMPONENT.length) : undefined;
  if (name !== undefined && components[name] !== undefined && !open.includes(name)) {
    const { $ref: _, ...siblings } = node;
    const target = inlineComponents(components, components[name], [...open, name]);
    // Keywords beside a reference apply as well as the referenced schema (JSON Schema 2020-12).
    return Object.keys(siblings).length ? { allOf: [target], ...inlineComponents(components, siblings, open) } : target;
  }
  return Object.fromEntries(Object.entries<Json>(node).map(([k, v]) => [k, inlineComponents(components, v, open)]));
}

/**
 * Compiles named schemas (which may `$ref` `#/components/schemas/...` of `components`) into one
 * ESM module exporting one validator per name.
 */
export function compileValidators(components: Json, schemas: Record<string, Json>, inline: (name: string) => boolean = () => true): string {
  const ajv = createAjv({ standalone: true });
  const stripped = stripDocs(components ?? {});
  ajv.addSchema({ $id: "spec", components: { schemas: stripped } });
  const refs: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const id = `op-${name}`;
    // `#/components/...` inside a spec schema means the spec's components (after inlining, only in
    // schemas left as they are and in components that refer back to themselves).
    const own = inline(name) ? inlineComponents(stripped, stripDocs(schema)) : stripDocs(schema);
    const rebased = JSON.parse(JSON.stringify(own).replace(/"\$ref":"#\/components\//g, '"$ref":"spec#/components/'));
    ajv.addSchema({ ...rebased, $id: id });
    refs[name] = id;
  }
  // An integer is one JSON.parse read exactly: past 2^53 it was rounded (an id of 9007199254740993
  // reads as ...992), which Ajv's own check (`x % 1`) cannot see.
  // (Ajv's whole integer test, typeof and isFinite included, is that one call.)
  const code = standaloneCode(ajv, refs)
    .replace(/\(\(typeof (\w+) == "number"\) && \(!\(\1 % 1\) && !isNaN\(\1\)\)\) && \(isFinite\(\1\)\)/g, "Number.isSafeInteger($1)")
    .replace(/!\((\w+) % 1\) && !isNaN\(\1\)/g, "Number.isSafeInteger($1)");
  if (/\brequire\(/.test(code)) throw new Error("standalone validator code needs a runtime require(); adjust the Ajv options or the schema");
  if (/ % 1\b/.test(code)) throw new Error("an integer check in the validator code is not the safe-integer one; adjust the replacement to Ajv's code");
  return code;
}

/** The `.js` and `.d.ts` pair of a validator module. */
export function validatorModule(head: string, components: Json, schemas: Record<string, Json>, inline?: (name: string) => boolean): { js: string; dts: string } {
  return {
    js: `${head}/* eslint-disable */\n${compileValidators(components, schemas, inline)}\n`,
    dts: `${head}import type { Validator } from "@paysys/core/internal";\n${Object.keys(schemas)
      .map((n) => `export declare const ${n}: Validator;`)
      .join("\n")}\n`,
  };
}
