// x-envelope and x-unwrap: params placed at a pointer, the service's code checked, the payload
// taken at one pointer, the first of several, or every item under `*`; result types named. A lone
// object where a list belongs, and two items where one belongs, are errors, never data.
import { RowValidationError, type StandardSchemaV1 } from "@paysys/core";
import { createInvoker, Transport } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods, type FixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";
import type { Thing } from "./generated/schema.js";

type Resolved<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;

const client = (answer: unknown, validateResponses?: boolean) => {
  const stub = stubFetch(() => json(answer));
  const invoker = createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch, validateResponses }), operations });
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
    expect(await client({ code: 0, data: [{ id: 1 }, { id: 2 }] }).methods.things.many()).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await client({ code: 0, Query: [{ Rows: [] }, { Rows: [{ id: 3 }] }] }).methods.things.first()).toEqual({ id: 3 });
    // Unchecked too (validateResponses false), a lone object is no list, and two items are not one.
    await expect(client({ code: 0, result: { id: 1 } }, false).methods.things.many()).rejects.toThrow(/no list at \/data or \/result/);
    await expect(client({ code: 0, Query: [{ Rows: [{ id: 3 }, { id: 4 }] }] }, false).methods.things.first()).rejects.toThrow(
      /2 items at \/Query\/\*\/Rows\/\*, where one belongs/,
    );
    await expect(client({ code: 0, Query: [{ Rows: [{ id: 3 }] }, {}] }, false).methods.things.first()).rejects.toThrow(/nothing at \/Query\/\*\/Rows\/\*/);
    await expect(client({ code: 5, message: "no" }).methods.things.one({ id: 1 })).rejects.toMatchObject({ name: "ServiceError", serviceCode: 5, serviceMessage: "no" });
    await expect(client({ code: 0 }).methods.things.many()).rejects.toThrow(/nothing at \/data or \/result/);
    await expect(client({ message: "no code" }).methods.things.one({ id: 1 })).rejects.toThrow(/does not match the spec/);
    await expect(client({ message: "no code" }, false).methods.things.one({ id: 1 })).rejects.toThrow(/not the interface's envelope: no code at \/code/);
  });
});

describe("row schemas on list operations", () => {
  // A Standard Schema written by hand: what zod or valibot hand over, without either.
  const labelled: StandardSchemaV1<unknown, { label: string }> = {
    "~standard": {
      version: 1,
      vendor: "fixture",
      validate: (row) => {
        const id = (row as { id?: unknown } | null)?.id;
        return typeof id === "number" ? { value: { label: `#${id}` } } : { issues: [{ message: "needs a numeric id", path: [{ key: "id" }] }] };
      },
    },
  };

  it("types the rows as the schema's output and returns what it made of each row", async () => {
    const { methods } = client({ code: 0, data: [{ id: 1 }, { id: 2 }] });
    const rows = await methods.things.many(undefined, { rows: labelled });
    expectTypeOf(rows).toEqualTypeOf<{ label: string }[]>();
    expect(rows).toEqual([{ label: "#1" }, { label: "#2" }]);
  });

  it("refuses the whole answer when one row fails, naming the row and the field", async () => {
    // The spec's own check off, so the row schema alone judges the rows.
    const err = await client({ code: 0, data: [{ id: 1 }, { id: "2" }] }, false)
      .methods.things.many(undefined, { rows: labelled })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RowValidationError);
    expect((err as RowValidationError).issues).toEqual([{ path: "/1/id", message: "needs a numeric id" }]);
  });

  it("is not offered where the answer is one item", async () => {
    const { methods, seen } = client({ code: 0, result: { id: 7 } });
    // @ts-expect-error things.one answers with one item
    await expect(methods.things.one({ id: 7 }, { rows: labelled })).rejects.toThrow(/\(rows\) this operation does not answer with a list of rows/);
    expect(seen).toHaveLength(0);
  });
});
