// What the spec cannot say fails generation, naming the place: a parameter that is both a path
// parameter and a body field, an unwrap pointer that reaches nothing, a codec the package lacks,
// a chain header without a chain key.
import { describe, expect, it } from "vitest";
import { buildModel } from "../src/model.js";

const spec = (op: object, extra: object = {}) => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  "x-envelope": { params: "" },
  paths: {
    "/x/{id}": {
      post: {
        operationId: "x.run",
        "x-idempotent": true,
        "x-unwrap": "",
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "object", properties: { a: { type: "string" } } } } } } },
        ...op,
      },
    },
  },
  ...extra,
});
const body = (schema: object) => ({ requestBody: { content: { "application/json": { schema } } } });
const idParam = { parameters: [{ name: "id", in: "path", required: true, schema: { type: "integer" } }] };

describe("generation refuses what it cannot model", () => {
  it("a name that is both a path parameter and a body field", () => {
    expect(() => buildModel(spec({ ...idParam, ...body({ type: "object", properties: { id: { type: "string" } } }) }), {}, "t.yaml")).toThrow(
      /t.yaml POST \/x\/\{id\} \(x.run\): parameter id is both a path parameter and a body field/,
    );
  });
  it("an unwrap pointer that reaches nothing in the answer", () => {
    expect(() => buildModel(spec({ ...idParam, "x-unwrap": "/Data/Items" }), {}, "t.yaml")).toThrow(/x-unwrap "\/Data\/Items" reaches nothing/);
    expect(() => buildModel(spec({ ...idParam, "x-unwrap": "Data" }), {}, "t.yaml")).toThrow(/is not a JSON pointer/);
  });
  it("a codec the package does not provide", () => {
    expect(() => buildModel(spec({ ...idParam, ...body({ type: "object", properties: { d: { type: "string", "x-codec": "moon-phase" } } }) }), {}, "t.yaml")).toThrow(
      /codec moon-phase is not one the package provides/,
    );
  });
  it("a chain header without a chain key, and a missing envelope", () => {
    const chained = spec(
      { parameters: [...idParam.parameters, { name: "Uid", in: "header", required: true, schema: { type: "string" } }] },
      { "x-chain": { header: "Uid", current: { operation: "x.run", param: "id" } } },
    );
    expect(() => buildModel(chained, {}, "t.yaml")).toThrow(/presents the chain header Uid but has no x-chain-key/);
    const { "x-envelope": _, ...bare } = spec(idParam);
    expect(() => buildModel(bare, {}, "t.yaml")).toThrow(/x-envelope is missing/);
  });
  it("a status query that does not say where its answer names what was asked, or names a parameter it does not take", () => {
    const journaled = (outcome: object, names?: object) => {
      const doc = spec({ ...idParam, "x-idempotent": false, "x-outcome": { by: "query", operation: "x.status", params: { id: "/id" }, applied: { found: true }, ...outcome } });
      const status = {
        operationId: "x.status",
        "x-idempotent": true,
        "x-unwrap": "",
        ...(names ? { "x-answer-names": names } : {}),
        ...idParam,
        responses: doc.paths["/x/{id}"].post.responses,
      };
      return { ...doc, paths: { ...doc.paths, "/s/{id}": { get: status } } };
    };
    expect(() => buildModel(journaled({}), {}, "t.yaml")).toThrow(/needs x.status to have x-answer-names for one of its params/);
    expect(() => buildModel(journaled({ "x-gap": "The answer names nothing." }, { "/a": "other" }), {}, "t.yaml")).toThrow(
      /x-answer-names \/a: other, which is not one of its parameters/,
    );
    expect(() => buildModel(journaled({ identifies: { "/id": "id" } }, { "/id": "id" }), {}, "t.yaml")).toThrow(/identifies is now the query operation's x-answer-names/);
    expect(() => buildModel(journaled({ "x-gap": "The answer names nothing." }), {}, "t.yaml")).not.toThrow();
    const model = buildModel(journaled({}, { "/id": "id" }), {}, "t.yaml");
    expect(model.operations.find((o) => o.id === "x.status")?.row.answerNames).toEqual({ "/id": "id" });
    // `$account`: the client's own account, not a parameter.
    const own = buildModel(journaled({}, { "/id": "id", "/merchantId": "$account" }), {}, "t.yaml");
    expect(own.operations.find((o) => o.id === "x.status")?.row.answerNames).toEqual({ "/id": "id", "/merchantId": "$account" });
    // A value rule must list the values that say "not applied": any other says neither.
    const names = { "/id": "id" };
    expect(() => buildModel(journaled({ applied: { at: "/status", equals: 3 } }, names), {}, "t.yaml")).toThrow(/needs notAppliedWhen/);
    expect(() => buildModel(journaled({ applied: { at: "/status", equals: 3, notAppliedWhen: [3] } }, names), {}, "t.yaml")).toThrow(/needs notAppliedWhen/);
    const rule = buildModel(journaled({ applied: { at: "/status", equals: 3, notAppliedWhen: [0, 1] } }, names), {}, "t.yaml");
    expect(rule.operations.find((o) => o.id === "x.run")?.row.outcome).toMatchObject({ applied: { at: "/status", equals: 3, notAppliedWhen: [0, 1] } });
  });
});
