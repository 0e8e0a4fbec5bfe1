// Property tests of hostile answers, through the real transport and invoker (the transport's own
// unit tests are the one place a scripted `fetch` stands in for the network): envelopes and rows
// full of prototype keys never pollute a prototype, and whatever the answer, the call either
// resolves or fails with the SDK's own error class.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaysysError } from "../src/index.js";
import { createInvoker, type OperationSpec, Transport } from "../src/internal/index.js";

const list: OperationSpec = {
  id: "rows.list",
  method: "post",
  path: "/rows",
  security: [],
  idempotent: true,
  movesMoney: false,
  body: true,
  envelope: { params: "/params", code: "/code", success: [0], message: "/message" },
  unwrap: { at: ["/data", "/result"], list: true },
};

const hostileKey = fc.constantFrom("__proto__", "constructor", "prototype", "polluted", "toString", "valueOf", "hasOwnProperty", "data", "result", "code");
/** JSON text whose objects are built from prototype keys (as a server could send them: JSON.parse keeps `__proto__` as data). */
const hostileJson = fc
  .letrec((tie) => ({
    value: fc.oneof({ depthSize: "small" }, fc.constant(null), fc.boolean(), fc.integer(), fc.string({ maxLength: 5 }), tie("object"), tie("array")),
    object: fc.array(fc.tuple(hostileKey, tie("value")), { maxLength: 4 }),
    array: fc.array(tie("value"), { maxLength: 3 }),
  }))
  .value.map(function text(v: unknown): string {
    if (Array.isArray(v) && v.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string")) {
      return `{${(v as [string, unknown][]).map(([k, x]) => `${JSON.stringify(k)}:${text(x)}`).join(",")}}`;
    }
    if (Array.isArray(v)) return `[${v.map(text).join(",")}]`;
    return JSON.stringify(v);
  });
const envelope = fc
  .tuple(hostileJson, fc.constantFrom(0, 1))
  .map(([payload, code]) => `{"code":${code},"data":${payload},"__proto__":${payload},"constructor":{"prototype":${payload}}}`);

describe("hostile answers (10,000 runs, seeded)", () => {
  it("never pollute a prototype, and end in rows or a PaysysError", { timeout: 60_000 }, async () => {
    let answer = "";
    const transport = new Transport({
      baseUrl: "http://hostile.test",
      fetch: async () => new Response(answer, { status: 200, headers: { "content-type": "application/json" } }),
    });
    const { invoke } = createInvoker({ transport, operations: { [list.id]: list } });
    const before = Object.getOwnPropertyNames(Object.prototype).join();
    await fc.assert(
      fc.asyncProperty(envelope, async (body) => {
        answer = body;
        const outcome = await invoke(list, {}).then(
          (rows) => rows,
          (e: unknown) => e,
        );
        if (!Array.isArray(outcome)) expect(outcome).toBeInstanceOf(PaysysError);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        expect(Object.getOwnPropertyNames(Object.prototype).join()).toBe(before);
        expect(Object.getPrototypeOf({})).toBe(Object.prototype);
      }),
      { numRuns: 10_000, seed: 20261122 },
    );
  });
});
