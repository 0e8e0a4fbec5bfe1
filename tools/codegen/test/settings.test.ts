// Every client's settings are checked by core's settingsValidator reading the generated schema
// (settings.js), not by Ajv's code, which was too large for what a page loads before its first
// call. The errors must stay Ajv's: on random options, near-valid and wrong, both give the same
// issues in the same order for each package's schema (settings.schema.json, compiled by Ajv with
// the options the generated validators use).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Validator, validatorIssues } from "@paysys/core/internal";
import { createAjv, type Json, repoRoot } from "@paysys/spec-tools";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { targets } from "../src/targets.js";

/** A value near what the schema takes: often right, often the wrong type, sometimes out of range. */
function near(schema: Json, definitions: Json, depth = 0): fc.Arbitrary<unknown> {
  const s = schema.$ref ? definitions[schema.$ref.split("/").pop()] : schema;
  const wrong = fc.oneof(fc.constant(null), fc.string(), fc.double(), fc.boolean(), fc.constant([]), fc.constant(Number.NaN));
  if (depth > 3) return wrong;
  const right: fc.Arbitrary<unknown>[] = [];
  if (s.anyOf) right.push(...s.anyOf.map((branch: Json) => near(branch, definitions, depth + 1)));
  if (s.enum) right.push(fc.constantFrom(...s.enum));
  if (s.const !== undefined) right.push(fc.constant(s.const));
  if (s.type === "string") right.push(fc.string());
  if (s.type === "boolean") right.push(fc.boolean());
  if (s.type === "number") right.push(fc.double({ min: (s.minimum ?? 0) - 2, max: Math.min(s.maximum ?? 1e6, 1e10) + 2 }), fc.integer());
  if (s.type === "integer") right.push(fc.integer({ min: (s.minimum ?? 0) - 2, max: (s.maximum ?? 1e6) + 2 }), fc.double({ min: -1, max: (s.maximum ?? 1e6) + 1 }));
  if (s.type === "object") right.push(objectNear(s, definitions, depth + 1));
  return fc.oneof({ weight: 4, arbitrary: fc.oneof(...(right.length ? right : [fc.anything()])) }, { weight: 1, arbitrary: wrong });
}

function objectNear(s: Json, definitions: Json, depth: number): fc.Arbitrary<unknown> {
  const names = Object.keys(s.properties ?? {});
  const known = fc.record(Object.fromEntries(names.map((n) => [n, near(s.properties[n], definitions, depth)])), { requiredKeys: [] });
  const extra = fc.dictionary(fc.oneof(fc.constantFrom("timeout", "a/b", "x~y"), fc.string({ maxLength: 4 })), near(s.additionalProperties ?? {}, definitions, depth), {
    maxKeys: 2,
  });
  return fc.tuple(known, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extra })).map(([a, b]) => ({ ...b, ...a }));
}

describe.each(targets.filter((t) => t.settings).map((t) => t.pkg))("the %s settings", (pkg) => {
  const dir = join(repoRoot, "packages", pkg, "src/generated");
  const schema = JSON.parse(readFileSync(join(dir, "settings.schema.json"), "utf8"));
  const ajv = createAjv().compile({ ...schema, $schema: undefined, $comment: undefined }) as unknown as Validator;

  it("are refused by the generated validator (core's settingsValidator) with Ajv's issues, on random options", async () => {
    const generated = ((await import(join(dir, "settings.js"))) as { settings: Validator }).settings;
    fc.assert(
      fc.property(fc.oneof(near(schema, schema.definitions ?? {}), fc.anything()), (options) => {
        const expected = ajv(options) ? [] : validatorIssues(ajv);
        const got = generated(options) ? [] : validatorIssues(generated);
        expect(got).toEqual(expected);
      }),
      { numRuns: 3000, seed: 25 },
    );
  });
});
