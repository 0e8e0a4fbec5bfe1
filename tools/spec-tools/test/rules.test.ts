// The spec rules must be able to fail: each is fed a small document that breaks it.
import { describe, expect, it } from "vitest";
import { checkExamples } from "../src/examples.js";
import { classifySource } from "../src/index.js";
import { checkKeywords, checkOperations, checkSensitiveNames, checkSources, checkWording } from "../src/rules.js";

const spec = { name: "t", iface: "portal" as const, file: "t.yaml" };
const op = (extra: object) => ({
  "x-envelope": { params: "" },
  paths: { "/x": { post: { operationId: "a.b", responses: { "200": { description: "ok" } }, "x-unwrap": "", ...extra } } },
});

describe("spec rules", () => {
  it("classifies the four kinds of source and refuses anything else", () => {
    expect(classifySource("seed")).toBe("document");
    expect(classifySource("https://docs.kassa24.kz/books/x/page/y")).toBe("official");
    expect(classifySource("third-party: github.com/a/b lib/c.rb")).toBe("third-party");
    expect(classifySource(`server-sample: github.com/a/b@${"a".repeat(40)} x.go`)).toBe("server-sample");
    expect(classifySource("https://example.com/x")).toBeUndefined();
    expect(classifySource("somewhere")).toBeUndefined();
    expect(checkSources("t", { a: { "x-source": ["seed", "blog"] } })).toHaveLength(1);
  });
  it("refuses keywords the generated validators would not enforce", () => {
    expect(checkKeywords("t", { a: { type: "object", additionalProperties: false } })).toEqual([]);
    expect(checkKeywords("t", { a: { allOf: [{ unevaluatedProperties: false }] } })).toEqual([expect.stringContaining("/a/allOf/0/unevaluatedProperties")]);
  });
  it("wants gaps worded as sentences", () => {
    expect(checkWording("t", { a: { "x-gap": "The base address is not shown." } })).toEqual([]);
    expect(checkWording("t", { a: { "x-gap": "TODO" } })).toHaveLength(1);
    expect(checkWording("t", { a: { "x-gap": "The base address is TBD later." } })).toHaveLength(1);
    expect(checkWording("t", { a: { "x-note": "" } })).toHaveLength(1);
  });
  it("refuses money operations that may be retried and unexplained non-idempotent ones", () => {
    const learnt = { "x-outcome": { by: "query" } };
    expect(checkOperations(spec, op({ "x-idempotent": true, "x-moves-money": true }))).toEqual([expect.stringContaining("moves money")]);
    expect(checkOperations(spec, op({ "x-idempotent": false, ...learnt }))).toEqual([expect.stringContaining("x-idempotent-reason")]);
    expect(checkOperations(spec, op({}))).toEqual([expect.stringContaining("true or false")]);
    expect(checkOperations(spec, op({ "x-idempotent": false, "x-moves-money": true, ...learnt }))).toEqual([]);
  });
  it("wants every journaled operation to say how a lost answer's outcome is learnt", () => {
    const money = { "x-idempotent": false, "x-moves-money": true };
    expect(checkOperations(spec, op(money))).toEqual([expect.stringContaining("say how a lost answer's outcome is learnt in x-outcome")]);
    expect(checkOperations(spec, op({ ...money, "x-outcome": { by: "guess" } }))).toEqual([expect.stringContaining("must be chain, query or none")]);
    expect(checkOperations(spec, op({ ...money, "x-outcome": { by: "none" } }))).toEqual([expect.stringContaining("x-gap why nothing can tell")]);
    expect(checkOperations(spec, op({ ...money, "x-outcome": { by: "none", "x-gap": "Nothing shows it." } }))).toEqual([]);
    expect(checkOperations(spec, op({ "x-idempotent": true, "x-outcome": { by: "query" } }))).toEqual([expect.stringContaining("not journaled")]);
    expect(checkOperations(spec, op({ "x-idempotent": true, "x-chain-key": "id" }))).toEqual([
      expect.stringContaining("x-chain-key without an x-chain"),
      expect.stringContaining("say how a lost answer's outcome is learnt"),
    ]);
  });
  it("reads x-unwrap and x-envelope as data, and refuses what the generator could not use", () => {
    expect(checkOperations(spec, op({ "x-idempotent": true, "x-unwrap": { at: ["/data", "/result"], list: true } }))).toEqual([]);
    expect(checkOperations(spec, op({ "x-idempotent": true, "x-unwrap": "result" }))).toEqual([expect.stringContaining('"result" is not a JSON pointer')]);
    expect(checkOperations(spec, op({ "x-idempotent": true, "x-unwrap": { at: "/a", list: true, one: true } }))).toEqual([expect.stringContaining("exclude each other")]);
    expect(checkOperations(spec, { ...op({ "x-idempotent": true }), "x-envelope": { params: "params", code: "/code" } })).toEqual([
      expect.stringContaining("x-envelope.params must be a JSON pointer"),
      expect.stringContaining("x-envelope.success must list"),
    ]);
    expect(checkOperations(spec, { ...op({ "x-idempotent": true }), components: { securitySchemes: { t: { "x-obtained-by": "a.c" } } } })).toEqual([
      expect.stringContaining("x-obtained-by names a.c"),
    ]);
  });
  it("wants secrets marked", () => {
    expect(checkSensitiveNames("t", { properties: { password: { type: "string" } } })).toHaveLength(1);
    expect(checkSensitiveNames("t", { properties: { password: { type: "string", "x-sensitive": true } } })).toEqual([]);
  });
  it("checks examples against their schemas", () => {
    const doc = {
      ...op({ "x-idempotent": true }),
      components: { schemas: { N: { type: "integer", examples: [1, "two"] } } },
    };
    expect(checkExamples("t", doc)).toEqual([expect.stringContaining("examples[1]")]);
  });
});
