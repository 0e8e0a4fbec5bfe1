// x-envelope and x-unwrap: params placed at a pointer, the service's code checked, the payload
// taken at one pointer, the first of several, or every item under `*`; result types named.
import { createInvoker, Transport } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods, type FixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";
import type { Thing } from "./generated/schema.js";

type Resolved<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

const client = (answer: unknown) => {
  const stub = stubFetch(() => json(answer));
  const invoker = createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations });
  return { methods: buildFixtureMethods(invoker.invoke), seen: stub.seen };
};

describe("envelope", () => {
  it("types each result by the schema the unwrap pointer reaches", () => {
    expectTypeOf<Resolved<FixtureMethods["things"]["one"]>>().toEqualTypeOf<Thing>();
    expectTypeOf<Resolved<FixtureMethods["things"]["many"]>>().toEqualTypeOf<Thing[]>();
    expectTypeOf<Resolved<FixtureMethods["things"]["first"]>>().toEqualTypeOf<Thing>();
    expectTypeOf<Parameters<FixtureMethods["things"]["one"]>[0]>().toEqualTypeOf<{ id: number }>();
  });

  it("writes the envelope and the unwrap into the table", () => {
    expect(operations["things.one"]).toMatchObject({ envelope: { params: "/params", code: "/code", success: [0] }, unwrap: { at: ["/result"] } });
    expect(operations["things.many"].unwrap).toEqual({ at: ["/data", "/result"], list: true });
    expect(operations["things.first"].unwrap).toEqual({ at: ["/Query/*/Rows/*"], one: true });
  });

  it("places params, checks the code and unwraps, at run time", async () => {
    const one = client({ code: 0, result: { id: 7 } });
    expect(await one.methods.things.one({ id: 7 })).toEqual({ id: 7 });
    expect(one.seen[0]!.body).toBe('{"params":{"id":7}}');
    expect(await client({ code: 0, result: { id: 1 } }).methods.things.many()).toEqual([{ id: 1 }]);
    expect(await client({ code: 0, data: [{ id: 1 }, { id: 2 }] }).methods.things.many()).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await client({ code: 0, Query: [{ Rows: [] }, { Rows: [{ id: 3 }, { id: 4 }] }] }).methods.things.first()).toEqual({ id: 3 });
    await expect(client({ code: 5, message: "no" }).methods.things.one({ id: 1 })).rejects.toMatchObject({ name: "ServiceError", serviceCode: 5, serviceMessage: "no" });
    await expect(client({ code: 0 }).methods.things.many()).rejects.toThrow(/nothing at \/data or \/result/);
    await expect(client({ message: "no code" }).methods.things.one({ id: 1 })).rejects.toThrow(/not the interface's envelope: no code at \/code/);
  });
});
