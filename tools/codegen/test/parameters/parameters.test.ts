// Path, query and header parameters beside the body's fields in one input; header defaults;
// collisions refused at generation.
import { createInvoker, Transport } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods, type FixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";

describe("parameters", () => {
  it("types the input as one object: path, query and header parameters and body fields", () => {
    type Create = Parameters<FixtureMethods["orders"]["create"]>[0];
    expectTypeOf<Create>().toEqualTypeOf<{ shopId: number; dryRun?: boolean; Accept?: string; "X-Request-Id"?: string; ref: string; amount: number }>();
    // @ts-expect-error: the required query parameter is missing
    expectTypeOf<Record<string, never>>().toMatchTypeOf<Parameters<FixtureMethods["orders"]["find"]>[0]>();
  });

  it("routes each parameter where the spec puts it", async () => {
    const stub = stubFetch(() => json({ ref: "r1", amount: 5 }));
    const invoker = createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test/api/", fetch: stub.fetch }), operations });
    const m = buildFixtureMethods(invoker.invoke);
    await m.orders.create({ shopId: 12, dryRun: true, "X-Request-Id": "req-1", ref: "r1", amount: 5 });
    const [sent] = stub.seen;
    expect(sent!.url).toBe("http://fixture.test/api/shops/12/orders?dryRun=true");
    expect(sent!.headers.get("accept")).toBe("application/json");
    expect(sent!.headers.get("x-request-id")).toBe("req-1");
    expect(JSON.parse(sent!.body)).toEqual({ ref: "r1", amount: 5 });
    await m.orders.find({ ref: "r 1&x" });
    expect(stub.seen[1]!.url).toBe("http://fixture.test/api/orders?ref=r%201%26x");
    expect(stub.seen[1]!.body).toBe("");
  });

  it("refuses NaN and Infinity anywhere, which the schema's number type lets through and JSON would send as null", async () => {
    const stub = stubFetch(() => json({}));
    const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations, validateRequests: false }).invoke);
    await expect(m.orders.create({ shopId: 1, ref: "r", amount: Number.POSITIVE_INFINITY })).rejects.toMatchObject({
      name: "RequestValidationError",
      issues: [{ path: "/amount", message: "must be a finite number, not Infinity" }],
    });
    await expect(m.orders.create({ shopId: 1, ref: "r", amount: 1, nested: { "a/b": [1, Number.NaN] } } as never)).rejects.toMatchObject({
      issues: [{ path: "/nested/a~1b/1", message: "must be a finite number, not NaN" }],
    });
    expect(stub.seen).toHaveLength(0);
  });

  it("refuses a missing path parameter and a misspelt field before sending", async () => {
    const stub = stubFetch(() => json({}));
    const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations }).invoke);
    await expect(m.orders.create({ ref: "r", amount: 1 } as never)).rejects.toMatchObject({
      name: "RequestValidationError",
      issues: [{ path: "", message: "must have required property 'shopId'" }],
    });
    await expect(m.orders.create({ shopId: 1, ref: "r", amount: 1, amuont: 2 } as never)).rejects.toThrow(/\/amuont is not a known name here/);
    expect(stub.seen).toHaveLength(0);
  });

  it("refuses a field an operation without a body has no place for, also with request validation off", async () => {
    const stub = stubFetch(() => json({}));
    const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations, validateRequests: false }).invoke);
    await expect(m.orders.find({ ref: "r", stray: 1 } as never)).rejects.toMatchObject({
      name: "RequestValidationError",
      issues: [{ path: "/stray", message: "is not a parameter of this operation" }],
    });
    expect(stub.seen).toHaveLength(0);
  });
});
