// x-binary-when: the method answers a BinaryFile when the parameters ask for a file, the JSON
// result otherwise, in the types and at run time; x-file-signature: bytes that do not begin as such
// a file does, and JSON reporting success, are errors, never the file.
import type { BinaryFile } from "@paysys/core";
import { UnexpectedResponseError } from "@paysys/core";
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

  for (const [what, answer, error] of [
    [
      "a page sent as octet-stream",
      () => new Response("<html>sign in</html>", { headers: { "content-type": "application/octet-stream" } }),
      /does not begin as the file asked for/,
    ],
    ["an empty answer", () => new Response(null, { headers: { "content-type": "application/octet-stream" } }), /empty, not the file/],
    ["three bytes of the four", () => new Response(new Uint8Array([0x50, 0x4b, 3]), { headers: { "content-type": "application/octet-stream" } }), /does not begin/],
    ["JSON reporting success", () => json({ code: 0, data: [{ total: 1 }] }), /JSON reporting success, not the file/],
  ] as const) {
    it(`refuses ${what} where the file was asked for`, async () => {
      const stub = stubFetch(answer);
      const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations }).invoke);
      const r = await m.reports.sales({ format: "xlsx" }).catch((e) => e);
      expect(r).toBeInstanceOf(UnexpectedResponseError);
      expect(String(r)).toMatch(error);
      expect(String(r)).not.toContain("sign in");
    });
  }

  it("gives a file that begins right whole, its first bytes and the rest as they came", async () => {
    const chunks = [new Uint8Array([0x50]), new Uint8Array([0x4b, 3]), new Uint8Array([4, 9, 9]), new Uint8Array([7])];
    const body = new ReadableStream<Uint8Array>({ pull: (c) => (chunks.length ? c.enqueue(chunks.shift()) : c.close()) });
    const stub = stubFetch(() => new Response(body, { headers: { "content-type": "application/octet-stream" } }));
    const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations }).invoke);
    expect(await (await m.reports.sales({ format: "xlsx" })).bytes()).toEqual(new Uint8Array([0x50, 0x4b, 3, 4, 9, 9, 7]));
  });
});
