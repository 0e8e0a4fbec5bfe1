import { describe, expect, it } from "vitest";
import { compileValidators, stripDocs } from "../src/validators.js";

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
});
