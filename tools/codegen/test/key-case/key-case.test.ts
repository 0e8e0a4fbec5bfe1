// x-key-case: a spec that says the service reads request-body keys regardless of case gets the
// names of its body properties (nested and referenced ones too), for the sandbox to match keys by.
import { describe, expect, it } from "vitest";
import { buildModel } from "../../src/model.js";
import { fixture } from "../fixtures.js";
import * as generated from "./generated/operations.js";

describe("x-key-case", () => {
  it("lists every request-body property name once, through references and array items", () => {
    expect(generated.caseInsensitiveBodyKeys).toEqual(["Date", "IdDomain", "Login", "Name", "Positions", "Qty"]);
  });

  it("is absent from specs that do not say so, and refuses names that differ only in case", async () => {
    const webhooks = await import("../webhooks/generated/operations.js");
    expect("caseInsensitiveBodyKeys" in webhooks).toBe(false);
    const doc = fixture("key-case");
    doc.components.schemas.Position.properties.idDomain = { type: "integer" };
    expect(() => buildModel(doc, {}, "key-case.yaml")).toThrow(/IdDomain and idDomain differ only in case|idDomain and IdDomain differ only in case/);
  });
});
