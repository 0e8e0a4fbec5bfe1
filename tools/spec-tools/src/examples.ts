// Finds every example in a bundled spec and checks it against its schema with Ajv, the same
// validator engine the generated clients use, so an example that passes here is one the SDK accepts.
import { createAjv } from "./ajv.js";
import { escapePointer, type Json, operations, walk } from "./specs.js";

/** One example and the schema it must satisfy, addressed by JSON pointers into the bundled spec. */
export interface ExampleCase {
  where: string;
  schemaPointer: string;
  value: unknown;
}

const ptr = (...keys: string[]) => `/${keys.map((k) => encodeURIComponent(escapePointer(k))).join("/")}`;

/** Examples of media types, parameters, headers and schemas (`examples: [...]`). */
export function collectExamples(doc: Json): ExampleCase[] {
  const cases: ExampleCase[] = [];
  const mediaExamples = (content: Json, base: string[], where: string) => {
    for (const [type, media] of Object.entries<Json>(content ?? {})) {
      if (!media?.schema) continue;
      const schemaPointer = ptr(...base, type, "schema");
      if (media.example !== undefined) cases.push({ where: `${where} ${type} example`, schemaPointer, value: media.example });
      for (const [name, ex] of Object.entries<Json>(media.examples ?? {})) {
        cases.push({ where: `${where} ${type} examples.${name}`, schemaPointer, value: ex.value });
      }
    }
  };
  for (const { method, path, op, webhook } of operations(doc)) {
    const section = webhook ? "webhooks" : "paths";
    const where = `${method.toUpperCase()} ${path}`;
    if (op.requestBody?.content) {
      mediaExamples(op.requestBody.content, [section, path, method, "requestBody", "content"], `${where} request`);
    }
    for (const [status, res] of Object.entries<Json>(op.responses ?? {})) {
      if (res.content) mediaExamples(res.content, [section, path, method, "responses", status, "content"], `${where} ${status}`);
    }
    (op.parameters ?? []).forEach((p: Json, i: number) => {
      if (p.example !== undefined && p.schema) {
        cases.push({ where: `${where} parameter ${p.name}`, schemaPointer: ptr(section, path, method, "parameters", String(i), "schema"), value: p.example });
      }
    });
  }
  for (const [name, res] of Object.entries<Json>(doc.components?.responses ?? {})) {
    if (res.content) mediaExamples(res.content, ["components", "responses", name, "content"], `response ${name}`);
  }
  for (const [name, p] of Object.entries<Json>(doc.components?.parameters ?? {})) {
    if (p.example !== undefined && p.schema) {
      cases.push({ where: `parameter ${name}`, schemaPointer: ptr("components", "parameters", name, "schema"), value: p.example });
    }
  }
  // Schema-level `examples` arrays (JSON Schema 2020-12), wherever a schema sits.
  walk(doc, (node, pointer) => {
    if (Array.isArray(node.examples) && (node.type !== undefined || node.$ref !== undefined || node.allOf || node.anyOf)) {
      node.examples.forEach((value: unknown, i: number) => {
        cases.push({ where: `schema ${decodeURIComponent(pointer)} examples[${i}]`, schemaPointer: pointer, value });
      });
    }
  });
  return cases;
}

/** Returns one message per example that does not satisfy its schema. */
export function checkExamples(specName: string, doc: Json): string[] {
  const ajv = createAjv();
  const id = `${specName}.json`;
  ajv.addSchema(doc, id);
  const problems: string[] = [];
  for (const c of collectExamples(doc)) {
    const validate = ajv.compile({ $ref: `${id}#${c.schemaPointer}` });
    if (!validate(c.value)) {
      const first = validate.errors?.[0];
      problems.push(`${specName}: ${c.where}: ${first?.instancePath || "(root)"} ${first?.message}`);
    }
  }
  return problems;
}
