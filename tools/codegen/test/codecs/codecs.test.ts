// x-codec: where each codec applies (nested, in arrays, by name prefix), what callers may pass,
// and the wire form the validator then checks.
import { commaListCodec, createInvoker, rfc3339Codec, Transport, tengeCodec } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods, type FixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";
import type { LineInput } from "./generated/schema.js";

const codecs = { tenge: tengeCodec, rfc3339: rfc3339Codec, "comma-list": commaListCodec, flag: { encode: (v: unknown) => (typeof v === "boolean" ? Number(v) : v) } };

describe("codecs", () => {
  it("finds every codec by pointer, through $ref and array items, and by name prefix", () => {
    expect(operations["receipts.create"].codecs).toEqual({ "/Lines/*/Price": "tenge", "/Total": "tenge", "/PrintedAt": "rfc3339" });
    expect(operations["receipts.create"].patternCodecs).toEqual({ "^isExtra": "flag" });
  });

  it("types a codec'd value as what the codec accepts, copying components that reach a codec", () => {
    type Create = Parameters<FixtureMethods["receipts"]["create"]>[0];
    expectTypeOf<Create["Total"]>().toEqualTypeOf<number | string>();
    expectTypeOf<Create["PrintedAt"]>().toEqualTypeOf<Date | string | undefined>();
    expectTypeOf<Create["Lines"]>().toEqualTypeOf<LineInput[]>();
    expectTypeOf<LineInput["Price"]>().toEqualTypeOf<number | string>();
    expectTypeOf<Create["isExtraFee"]>().toEqualTypeOf<boolean | 0 | 1>();
  });

  it("encodes nested values, leaves the caller's object alone, and reports every bad value at its path", async () => {
    const stub = stubFetch(() => json({ Total: 12.5 }));
    const m = buildFixtureMethods(
      createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch }), operations, codecs, timeZone: "Asia/Almaty" }).invoke,
    );
    const input = { Lines: [{ Name: "a", Price: "10.25" }, { Price: 2.25 }], Total: "12.50", PrintedAt: new Date("2024-05-31T07:00:00Z"), isExtraFee: true };
    await m.receipts.create(input);
    expect(JSON.parse(stub.seen[0]!.body)).toEqual({ Lines: [{ Name: "a", Price: 10.25 }, { Price: 2.25 }], Total: 12.5, PrintedAt: "2024-05-31T12:00:00+05:00", isExtraFee: 1 });
    expect(input.Lines[0]!.Price).toBe("10.25");
    const err = await m.receipts.create({ Lines: [{ Price: 1.005 }, { Price: "x" }], Total: 0.1 + 0.2 }).catch((e) => e);
    expect(err.name).toBe("RequestValidationError");
    expect(err.issues.map((i: { path: string }) => i.path)).toEqual(["/Lines/0/Price", "/Lines/1/Price", "/Total"]);
    expect(stub.seen).toHaveLength(1);
  });
});
