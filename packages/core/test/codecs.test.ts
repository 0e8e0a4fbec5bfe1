// encodeInput: the codec walk every call runs. Values are replaced along the operation table's
// pointers without touching the caller's object; async codecs (the card cryptogram) are awaited
// only when one answers with a promise; every problem is reported at its path.
import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../src/errors.js";
import { type Codec, encodeInput } from "../src/internal/codecs.js";
import { testOperation } from "./operation.js";

const op = (codecs: Record<string, string>, patternCodecs?: Record<string, string>) => testOperation({ codecs, patternCodecs });
const ctx = { operation: "t.op", timeZone: "Asia/Almaty" };
const double: Codec = {
  encode: (v) => {
    if (typeof v !== "number") throw new RangeError("must be a number");
    return v * 2;
  },
};
const later: Codec = {
  encode: async (v) => {
    await new Promise((r) => setTimeout(r, 1));
    if (v === "bad") throw new TypeError("is not a card");
    return `enc(${String(v)})`;
  },
};
const registry = { double, later, flag: { encode: (v: unknown) => (v === true ? 1 : v) } };

describe("encodeInput", () => {
  it("returns the input itself when nothing changes, and copies only the containers on changed paths", () => {
    const untouched = { A: { x: 1 }, B: [2] };
    expect(encodeInput(op({ "/C": "double" }), untouched, registry, ctx)).toBe(untouched);
    const input = { Lines: [{ P: 1, keep: { deep: true } }, { P: 2 }], Other: { same: 1 } };
    const out = encodeInput(op({ "/Lines/*/P": "double" }), input, registry, ctx) as typeof input;
    expect(out).toEqual({ Lines: [{ P: 2, keep: { deep: true } }, { P: 4 }], Other: { same: 1 } });
    expect(input.Lines[0]!.P).toBe(1);
    expect(out.Other).toBe(input.Other);
    expect(out.Lines[0]!.keep).toBe(input.Lines[0]!.keep);
  });

  it("reports every refused value at its path, in the table's order, item by item", () => {
    const input = { Lines: [{ P: "x" }, { P: 3 }, { P: null }], T: "y" };
    const err = (() => {
      try {
        encodeInput(op({ "/Lines/*/P": "double", "/T": "double" }), input, registry, ctx);
      } catch (e) {
        return e as RequestValidationError;
      }
    })();
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err!.issues.map((i) => i.path)).toEqual(["/Lines/0/P", "/Lines/2/P", "/T"]);
  });

  it("awaits async codecs only when one answers with a promise, and places each result where it belongs", async () => {
    const input = { Card: "c1", Lines: [{ Card: "c2", P: 1 }], P: 5 };
    const out = encodeInput(op({ "/Card": "later", "/Lines/*/Card": "later", "/Lines/*/P": "double", "/P": "double" }), input, registry, ctx);
    expect(out).toBeInstanceOf(Promise);
    expect(await out).toEqual({ Card: "enc(c1)", Lines: [{ Card: "enc(c2)", P: 2 }], P: 10 });
    expect(input).toEqual({ Card: "c1", Lines: [{ Card: "c2", P: 1 }], P: 5 });
  });

  it("reports an async codec's refusal at its path, with the synchronous ones", async () => {
    const pending = encodeInput(op({ "/Card": "later", "/P": "double" }), { Card: "bad", P: "no" }, registry, ctx) as Promise<unknown>;
    const err = (await pending.catch((e) => e)) as RequestValidationError;
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues).toEqual([
      { path: "/P", message: "must be a number" },
      { path: "/Card", message: "is not a card" },
    ]);
  });

  it("lets an error that is not about the value pass through as it is", async () => {
    const down: Codec = { encode: async () => Promise.reject(new Error("key server down")) };
    await expect(encodeInput(op({ "/Card": "down" }), { Card: "c" }, { down }, ctx)).rejects.toThrow("key server down");
  });

  it("applies pattern codecs to top-level keys without a pointer of their own, and keeps __proto__ a data key", () => {
    const input = JSON.parse('{"isA": true, "isB": true, "__proto__": 2, "other": true}');
    const out = encodeInput(op({ "/isB": "double", "/__proto__": "double" }, { "^is": "flag" }), { ...input, isB: 4 }, registry, ctx) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(out).toEqual(JSON.parse('{"isA": 1, "isB": 8, "__proto__": 4, "other": true}'));
  });
});
