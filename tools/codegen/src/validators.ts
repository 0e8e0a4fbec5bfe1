// Ajv standalone validators: compiled here, at generation time, into plain ESM functions, so a
// client never compiles a schema at start-up and never needs `eval` (CSP-safe in browsers).
import { createAjv, type Json } from "@paysys/spec-tools";
import type Ajv2020 from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";

const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ?? standaloneModule) as (ajv: Ajv2020, refs: Record<string, string>) => string;

/** Keywords that only document a schema; dropped so the generated code does not embed prose. `x-decimals` checks. */
const docOnly = (key: string) =>
  (key.startsWith("x-") && key !== "x-decimals") || ["description", "title", "examples", "example", "deprecated", "default", "contentMediaType", "summary"].includes(key);
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

/**
 * Compiles named schemas (which may `$ref` `#/components/schemas/...` of `components`) into one
 * ESM module exporting one validator per name.
 */
export function compileValidators(components: Json, schemas: Record<string, Json>): string {
  const ajv = createAjv({ standalone: true });
  ajv.addSchema({ $id: "spec", components: { schemas: stripDocs(components ?? {}) } });
  const refs: Record<string, string> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const id = `op-${name}`;
    // `#/components/...` inside a spec schema means the spec's components.
    const rebased = JSON.parse(JSON.stringify(stripDocs(schema)).replace(/"\$ref":"#\/components\//g, '"$ref":"spec#/components/'));
    ajv.addSchema({ ...rebased, $id: id });
    refs[name] = id;
  }
  const code = standaloneCode(ajv, refs);
  if (/\brequire\(/.test(code)) throw new Error("standalone validator code needs a runtime require(); adjust the Ajv options or the schema");
  return code;
}

/** The `.js` and `.d.ts` pair of a validator module. */
export function validatorModule(head: string, components: Json, schemas: Record<string, Json>): { js: string; dts: string } {
  return {
    js: `${head}/* eslint-disable */\n${compileValidators(components, schemas)}\n`,
    dts: `${head}import type { Validator } from "@paysys/core/internal";\n${Object.keys(schemas)
      .map((n) => `export declare const ${n}: Validator;`)
      .join("\n")}\n`,
  };
}
