// Closed requests: the code generator closes every request object the spec does not mark open, at
// every depth, and the lint rule refuses an open one that does not say why. Small documents that
// break each rule, and the real specs.
import { describe, expect, it } from "vitest";
import { bundle, closeRequests, type Json, requestObjects, specs, unexplainedOpenRequests } from "../src/index.js";

const COMPONENT = "#/components/schemas/";

/** A spec with one operation whose body is `Order` (with a nested `Customer`), and an answer that shares `Customer`. */
const doc = (customer: Json = { type: "object", properties: { email: { type: "string" } } }): Json => ({
  openapi: "3.1.0",
  paths: {
    "/orders": {
      post: {
        operationId: "orders.create",
        requestBody: { content: { "application/json": { schema: { $ref: `${COMPONENT}Order` } } } },
        responses: { "200": { description: "ok", content: { "application/json": { schema: { $ref: `${COMPONENT}Customer` } } } } },
      },
    },
  },
  components: {
    schemas: {
      Order: {
        type: "object",
        properties: {
          amount: { type: "integer" },
          customer: { $ref: `${COMPONENT}Customer` },
          lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
          metadata: { type: "object", additionalProperties: true, "x-open": "The merchant's own fields." },
        },
      },
      Customer: customer,
    },
  },
});

const bodyOf = (d: Json): Json => {
  const ref = d.paths["/orders"].post.requestBody.content["application/json"].schema.$ref as string;
  return d.components.schemas[ref.slice(COMPONENT.length)];
};

describe("closeRequests", () => {
  it("closes the body and every object inside it, leaves x-open objects open", () => {
    const closed = closeRequests(doc());
    const order = bodyOf(closed);
    expect(order.additionalProperties).toBe(false);
    expect(order.properties.lines.items.additionalProperties).toBe(false);
    expect(order.properties.metadata.additionalProperties).toBe(true);
  });

  it("gives requests a closed copy of a component an answer shares; the answer keeps reading it open", () => {
    const closed = closeRequests(doc());
    const order = bodyOf(closed);
    expect(order.properties.customer.$ref).toBe(`${COMPONENT}CustomerRequest`);
    expect(closed.components.schemas.CustomerRequest.additionalProperties).toBe(false);
    expect(closed.components.schemas.Customer.additionalProperties).toBeUndefined();
    expect(closed.paths["/orders"].post.responses["200"].content["application/json"].schema.$ref).toBe(`${COMPONENT}Customer`);
  });

  it("keeps a shared component as it is when closing changes nothing (a scalar)", () => {
    const closed = closeRequests(doc({ type: "string" }));
    expect(bodyOf(closed).properties.customer.$ref).toBe(`${COMPONENT}Customer`);
    expect(closed.components.schemas.CustomerRequest).toBeUndefined();
  });

  it("does not change the document it is given", () => {
    const original = doc();
    const copy = structuredClone(original);
    closeRequests(original);
    expect(original).toEqual(copy);
  });
});

describe("the lint rule: an open request object says why", () => {
  it("refuses an open object without x-open, at any depth, and accepts it with one", () => {
    const open = doc({ type: "object", additionalProperties: true });
    expect(unexplainedOpenRequests(open)).toEqual([expect.stringContaining("components/Customer")]);
    const nested = doc();
    nested.components.schemas.Order.properties.lines.items.additionalProperties = {};
    expect(unexplainedOpenRequests(nested)).toEqual([expect.stringContaining("lines/items")]);
    expect(unexplainedOpenRequests(doc())).toEqual([]);
  });

  it("holds for every spec of the repository, and each spec's request objects come out closed unless marked", () => {
    for (const spec of specs) {
      const bundled = bundle(spec);
      expect(unexplainedOpenRequests(bundled), spec.name).toEqual([]);
      // Every request object of the closed spec is closed, or says why it is open.
      const open = requestObjects(closeRequests(bundled)).filter(({ node }) => node.additionalProperties !== false && typeof node["x-open"] !== "string");
      expect(
        open.map((o) => o.where),
        spec.name,
      ).toEqual([]);
    }
  });
});
