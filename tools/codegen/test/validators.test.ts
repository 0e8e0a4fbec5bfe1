// How validators are compiled: documentation dropped, no Ajv at run time, components inlined where
// a validator runs on every call, references kept where they must be, and no evaluation tracking
// (which made every anyOf try all its branches and build an error for each one that did not match).
import { describe, expect, it } from "vitest";
import { compileValidators, inlineComponents, stripDocs } from "../src/validators.js";

const load = async (code: string) => await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);

describe("validator generation", () => {
  it("drops documentation keywords but keeps properties that happen to share their names", () => {
    const schema = { type: "object", description: "doc", "x-source": "seed", properties: { description: { type: "string", title: "t" } }, examples: [{}] };
    expect(stripDocs(schema)).toEqual({ type: "object", properties: { description: { type: "string" } } });
  });

  it("compiles to code that validates without Ajv at run time", async () => {
    const code = compileValidators({ N: { type: "integer", minimum: 1 } }, { v: { type: "object", properties: { n: { $ref: "#/components/schemas/N" } }, required: ["n"] } });
    expect(code).not.toMatch(/require\(|new Function|eval\(/);
    const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`);
    expect(mod.v({ n: 2 })).toBe(true);
    expect(mod.v({ n: 0 })).toBe(false);
    expect(mod.v.errors[0]).toMatchObject({ instancePath: "/n", keyword: "minimum" });
  });

  it("refuses numbers JSON.parse could not read exactly: Infinity (1e400), NaN, integers past 2^53", async () => {
    const mod = await load(compileValidators({}, { v: { type: "object", properties: { i: { type: "integer" }, n: { type: "number" } } } }));
    expect([mod.v({ i: 2 ** 53 - 1, n: 1e300 }), mod.v({ i: -(2 ** 53) + 1, n: -0.5 })]).toEqual([true, true]);
    for (const bad of [{ i: JSON.parse("1e400") }, { i: 2 ** 53 }, { i: 2 ** 53 + 2 }, { i: Number.NaN }, { n: JSON.parse("-1e400") }, { n: Number.NaN }])
      expect(mod.v(bad), JSON.stringify(Object.keys(bad))).toBe(false);
  });

  const components = {
    Line: { type: "object", properties: { Price: { $ref: "#/components/schemas/Amount" } }, required: ["Price"] },
    Amount: { anyOf: [{ type: "integer" }, { type: "string", const: "" }] },
    Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/components/schemas/Tree" } } } },
  };

  it("inlines components, keeps a component inside its own definition as a reference, and keeps siblings of a reference", () => {
    expect(inlineComponents(components, { $ref: "#/components/schemas/Line" })).toEqual({
      type: "object",
      properties: { Price: { anyOf: [{ type: "integer" }, { type: "string", const: "" }] } },
      required: ["Price"],
    });
    expect(inlineComponents(components, { $ref: "#/components/schemas/Tree" })).toEqual({
      type: "object",
      properties: { children: { type: "array", items: { $ref: "#/components/schemas/Tree" } } },
    });
    expect(inlineComponents(components, { $ref: "#/components/schemas/Amount", not: { const: 0 } })).toEqual({
      allOf: [components.Amount],
      not: { const: 0 },
    });
  });

  it("compiles one function per inlined validator and none that tracks evaluated properties", async () => {
    const schemas = { lines: { type: "array", items: { $ref: "#/components/schemas/Line" } }, tree: { $ref: "#/components/schemas/Tree" } };
    const inlined = compileValidators(components, schemas, (name) => name === "lines");
    const referenced = compileValidators(components, schemas, () => false);
    const functions = (code: string) => code.match(/^function validate\d+/gm)?.length ?? 0;
    expect(functions(inlined)).toBeLessThan(functions(referenced));
    expect(inlined).not.toMatch(/evaluated/);
    const { lines, tree } = await load(inlined);
    expect(lines([{ Price: 5 }, { Price: "" }])).toBe(true);
    expect(lines([{ Price: "5" }])).toBe(false);
    expect(tree({ children: [{ children: [] }] })).toBe(true);
    expect(tree({ children: [{ children: 1 }] })).toBe(false);
  });
});
