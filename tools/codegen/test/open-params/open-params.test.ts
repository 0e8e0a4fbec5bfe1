// Parameter lists the document calls open: the known ones are checked strictly, unknown ones go
// through `extraParams` by name; a list with no known field stays open.
import { createInvoker, Transport } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods, type FixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";

describe("open parameter lists", () => {
  it("marks the open list and keeps the known parameters strict in the types", () => {
    expect(operations["reports.run"].openParams).toBe(true);
    expect(operations["reports.anything"].openParams).toBeUndefined();
    // @ts-expect-error: a misspelt known parameter is not silently another parameter
    expectTypeOf<{ form: string }>().toMatchTypeOf<NonNullable<Parameters<FixtureMethods["reports"]["run"]>[0]>>();
    expectTypeOf<NonNullable<Parameters<FixtureMethods["reports"]["run"]>[1]>>().toHaveProperty("extraParams");
    expectTypeOf<NonNullable<Parameters<FixtureMethods["reports"]["anything"]>[0]>>().toEqualTypeOf<{ [key: string]: unknown }>();
  });

  it("sends extraParams beside the known ones, and refuses typos and misuse", async () => {
    const stub = stubFetch(() => json({}));
    const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations }).invoke);
    await m.reports.run({ from: "a" }, { extraParams: { shown: false } });
    expect(stub.seen[0]!.body).toBe('{"params":{"from":"a","shown":false}}');
    await expect(m.reports.run({ form: "a" } as never)).rejects.toThrow(/\/form is not a known name here/);
    await expect(m.reports.run({ from: "a" }, { extraParams: { from: "b" } })).rejects.toThrow(/is a known parameter/);
    await expect(m.reports.anything({}, { extraParams: { x: 1 } } as never)).rejects.toThrow(/extraParams is for open parameter lists only/);
    await m.reports.anything({ whatever: 1 });
    expect(stub.seen[1]!.body).toBe('{"params":{"whatever":1}}');
  });
});
