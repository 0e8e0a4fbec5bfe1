// x-binary-when: the method answers a BinaryFile when the parameters ask for a file, the JSON
// result otherwise, in the types and at run time.
import type { BinaryFile } from "@paysys/core";
import { createInvoker, Transport } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";

describe("files", () => {
  it("answers a file for format xlsx and rows without it", async () => {
    const stub = stubFetch((s) =>
      s.body.includes("xlsx")
        ? new Response(new Uint8Array([0x50, 0x4b, 3, 4]), { headers: { "content-type": "application/octet-stream" } })
        : json({ code: 0, data: [{ total: 1 }] }),
    );
    const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations }).invoke);
    const file = m.reports.sales({ format: "xlsx" });
    expectTypeOf(file).resolves.toEqualTypeOf<BinaryFile>();
    expect(await (await file).bytes()).toEqual(new Uint8Array([0x50, 0x4b, 3, 4]));
    const rows = m.reports.sales({ day: "x" });
    expectTypeOf(rows).resolves.toEqualTypeOf<{ total?: number }[]>();
    expect(await rows).toEqual([{ total: 1 }]);
  });
});
