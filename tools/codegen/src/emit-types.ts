// schema.ts: openapi-typescript's types of the spec (paths, components, webhooks: what `raw`
// and the sandbox use), plus one named component per operation for its params and its result and
// per webhook for its event, so method signatures read as names. In params, a value with a codec
// takes what the codec accepts (a `Date` for a portal date); answers keep their wire types.
import type { Json } from "@paysys/spec-tools";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import type { CodecTypes, SpecModel } from "./model.js";
import { typeName } from "./model.js";

export interface TypeNames {
  params: (id: string) => string;
  result: (id: string) => string;
  event: (id: string) => string;
}

export const names: TypeNames = {
  params: (id) => `${typeName(id)}Params`,
  result: (id) => `${typeName(id)}Result`,
  event: (id) => `${typeName(id)}Event`,
};

/** Names a generated alias must not take: they would shadow TypeScript's own types inside the module. */
const reserved = new Set([
  "Record",
  "Partial",
  "Required",
  "Readonly",
  "Pick",
  "Omit",
  "Exclude",
  "Extract",
  "Array",
  "Date",
  "String",
  "Number",
  "Boolean",
  "Object",
  "Function",
  "Error",
  "Promise",
  "Map",
  "Set",
  "JSON",
  "Symbol",
  "components",
  "paths",
  "webhooks",
  "operations",
  "$defs",
]);

/** A TypeScript name for a component: `Kkm`; a shared one by its last part (`portal.User` → `User`) unless that is taken. */
function aliasNames(components: string[], taken: Set<string>): Map<string, string> {
  const out = new Map<string, string>();
  const used = new Set([...taken, ...reserved]);
  // The spec's own components first: they keep their names.
  for (const c of components.filter((c) => !c.includes("."))) {
    const name = used.has(c) ? `${c}Schema` : c;
    out.set(c, name);
    used.add(name);
  }
  for (const c of components.filter((c) => c.includes("."))) {
    const short = c.split(".").pop()!;
    const name = used.has(short) ? typeName(c) : short;
    out.set(c, name);
    used.add(name);
  }
  return out;
}

export async function emitTypes(model: SpecModel, codecTypes: CodecTypes, codecImports: string, head: string): Promise<string> {
  const schemas: Record<string, Json> = { ...model.doc.components?.schemas };
  const synthesized: string[] = [];
  const add = (name: string, schema: Json) => {
    if (name in schemas) throw new Error(`codegen: the component name ${name} is taken; rename the spec's component`);
    schemas[name] = schema;
    synthesized.push(name);
  };
  for (const op of model.operations) {
    add(names.params(op.id), op.inputType);
    add(names.result(op.id), op.resultSchema);
  }
  for (const w of model.webhooks) add(names.event(w.id), w.bodySchema);
  const doc = { ...model.doc, components: { ...model.doc.components, schemas } };
  const ast = await openapiTS(doc, {
    alphabetize: false,
    exportType: false,
    // A default is what the service assumes when a value is left out: the caller may still leave it out.
    defaultNonNullable: false,
    transform(schema) {
      const codec = (schema as Json)["x-codec-input"];
      if (typeof codec !== "string") return undefined;
      const type = codecTypes[codec]?.type;
      if (!type) throw new Error(`codegen: no TypeScript type for codec ${codec}`);
      return ts.factory.createTypeReferenceNode(type);
    },
  });

  const prefixParams = new Map(model.operations.map((op) => [op.id, op.prefixParams]));
  const aliases: string[] = [];
  for (const op of model.operations) {
    const prefixes = prefixParams.get(op.id) ?? [];
    const extra = prefixes.length ? ` & { [key: \`${prefixes[0]![0]}\${string}\`]: ${prefixes[0]![1]} }` : "";
    if (prefixes.length > 1) throw new Error(`codegen: ${op.id}: one prefix parameter at most`);
    aliases.push(`/** What \`${op.id}\` takes: ${op.summary}. */\nexport type ${names.params(op.id)} = components["schemas"]["${names.params(op.id)}"]${extra};`);
    aliases.push(`/** What \`${op.id}\` resolves to. */\nexport type ${names.result(op.id)} = components["schemas"]["${names.result(op.id)}"];`);
  }
  for (const w of model.webhooks) aliases.push(`/** The body of \`${w.id}\`: ${w.summary}. */\nexport type ${names.event(w.id)} = components["schemas"]["${names.event(w.id)}"];`);
  const own = Object.keys(schemas).filter((c) => !synthesized.includes(c));
  for (const [component, alias] of aliasNames(own, new Set(synthesized))) {
    const description = deDoc(schemas[component]?.title ?? schemas[component]?.description);
    aliases.push(`${description ? `/** ${description} */\n` : ""}export type ${alias} = components["schemas"]["${component}"];`);
  }
  return `${head}${codecImports}${astToString(ast)}\n${aliases.join("\n")}\n`;
}

/** The first sentence of a description, safe inside a JSDoc comment. */
function deDoc(text: unknown): string {
  if (typeof text !== "string") return "";
  return text
    .split(/(?<=\.)\s/)[0]!
    .replace(/\*\//g, "* /")
    .replace(/\s+/g, " ")
    .trim();
}
