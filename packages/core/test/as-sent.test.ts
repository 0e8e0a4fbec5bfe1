// What is checked is what is sent: values with a `toJSON` (a Date, a value object) and boxed
// primitives are read as JSON writes them before the spec's schema, the card guard and the named
// checks look at the input (call-input.ts `asSent`). A card number written by a value object, or a
// `new String(…)` of one, reached the wire while the guard saw only the object.
import { describe, expect, it } from "vitest";
import { RequestValidationError } from "../src/index.js";
import { asSent } from "../src/internal/call-input.js";
import { createInvoker, Transport, type Validator } from "../src/internal/index.js";
import { testOperation } from "./operation.js";

const PAN = "4111111111111111";

describe("asSent", () => {
  it("answers plain input itself, copying nothing", () => {
    const input = { a: 1, b: ["x", { c: true }], d: null, e: undefined };
    const issues: { path: string; message: string }[] = [];
    expect(asSent(input, "", issues)).toBe(input);
    expect(issues).toEqual([]);
  });

  it("reads values as JSON writes them, at any depth, copying only the way to them and leaving the caller's objects alone", () => {
    const when = new Date(Date.UTC(2024, 4, 1));
    const untouched = { z: 1 };
    const input = { a: { b: [new String("s"), new Number(2), new Boolean(false)] }, when, value: { toJSON: (key: string) => `key ${key}` }, untouched };
    const sent = asSent(input, "", []) as Record<string, unknown>;
    expect(sent).toEqual({ a: { b: ["s", 2, false] }, when: "2024-05-01T00:00:00.000Z", value: "key value", untouched });
    expect(sent.untouched).toBe(untouched);
    expect(JSON.stringify(sent)).toBe(JSON.stringify(input));
    expect(input.a.b[0]).toBeInstanceOf(String);
    expect(input.when).toBe(when);
  });

  it("writes what JSON writes when a toJSON answers an object with a toJSON of its own (JSON does not ask it), and nothing in what is sent has one", () => {
    class Inner {
      toJSON() {
        return PAN;
      }
    }
    class List extends Array {
      toJSON() {
        return PAN;
      }
    }
    const input = {
      ref: { toJSON: () => new Inner() },
      list: { toJSON: () => List.from(["a", new Inner()]) },
      date: { toJSON: () => new Date(0) },
      nested: { toJSON: () => ({ child: new Inner() }) },
    };
    const sent = asSent(input, "", []);
    expect(JSON.stringify(sent)).toBe(JSON.stringify(input));
    expect(JSON.stringify(sent)).toBe(`{"ref":{},"list":["a","${PAN}"],"date":{},"nested":{"child":"${PAN}"}}`);
    const anyToJSON = (v: unknown): boolean =>
      v !== null && typeof v === "object" && (typeof (v as { toJSON?: unknown }).toJSON === "function" || Object.values(v).some(anyToJSON));
    expect(anyToJSON(sent)).toBe(false);
  });

  it("refuses at its path what JSON would not carry, inside what a toJSON wrote too, never showing the value", () => {
    const issues: { path: string; message: string }[] = [];
    asSent(
      {
        invalid: new Date(Number.NaN),
        throws: {
          toJSON() {
            throw new Error(`no ${PAN}`);
          },
        },
        wrote: { toJSON: () => ({ n: Number.NaN, m: new Map() }) },
        boxed: Object(10n),
        nan: new Number(Number.NaN),
      },
      "",
      issues,
    );
    expect(issues.map((i) => i.path)).toEqual(["/invalid", "/throws", "/wrote/n", "/wrote/m", "/boxed", "/nan"]);
    expect(JSON.stringify(issues)).not.toContain(PAN);
  });
});

describe("a call checks what it sends", () => {
  const setup = (validateInput?: Validator, extra = {}) => {
    let sent = 0;
    const op = testOperation({ id: "things.create", openAt: { "/metadata": [] }, validateInput, ...extra });
    const transport = new Transport({
      baseUrl: "https://service.test",
      fetch: async () => {
        sent++;
        return Response.json({ ok: 1 });
      },
    });
    const invoke = createInvoker({ transport, operations: { [op.id]: op } }).invoke;
    return { call: (params: unknown, options?: object) => invoke(op, params, options), sent: () => sent };
  };

  it.each([
    ["a String object", new String(PAN)],
    ["a Number object", new Number(PAN)],
    ["a value object's toJSON", { toJSON: () => PAN }],
    ["full-width digits", "４１１１１１１１１１１１１１１１"],
    ["digits with dots", "4111.1111.1111.1111"],
  ])("a card number as %s in an open object: refused, nothing sent", async (_what, value) => {
    const { call, sent } = setup();
    const e = await call({ metadata: { note: value } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect((e as RequestValidationError).issues).toEqual([{ path: "/metadata/note", message: expect.stringContaining("card number") }]);
    const inExtra = await call({}, { extraParams: { note: value } }).catch((x: unknown) => x);
    expect(inExtra).toBeInstanceOf(RequestValidationError);
    expect(sent()).toBe(0);
  });

  it("words an open body may use for its own ends are not card data: a request's lifetime, a code", async () => {
    const { call, sent } = setup();
    expect(await call({ metadata: { exp: 1, expiry: "P3D", expiration: "2026-12-01", validUntil: "2026-12-01", pin: "4821" } })).toEqual({ ok: 1 });
    expect(sent()).toBe(1);
  });

  it("a decimal or a timestamp with a dot is not a card number, though its digits pass the Luhn check", async () => {
    const { call, sent } = setup();
    expect(await call({ metadata: { at: "1700000000.103", n: 1700000000.103 } })).toEqual({ ok: 1 });
    expect(sent()).toBe(1);
  });

  it.each(["cvv ", "сvv", "ｃｖｖ", "CVV-2", "exp_month", "cc-exp", "card expiry", "pin_block"])("a field named %j in an open object: refused, nothing sent", async (name) => {
    const { call, sent } = setup();
    const e = await call({ metadata: { [name]: "123" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect(sent()).toBe(0);
  });

  it("a declared object whose toJSON writes something else is checked by the spec's schema as written", async () => {
    // The schema of the operation: `metadata` must be an object.
    const validateInput: Validator = (data) => {
      const ok = typeof (data as { metadata?: unknown }).metadata === "object";
      validateInput.errors = ok ? null : [{ instancePath: "/metadata", message: "must be object" }];
      return ok;
    };
    const { call, sent } = setup(validateInput);
    const e = await call({ metadata: { toJSON: () => "a string" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect((e as RequestValidationError).issues).toEqual([{ path: "/metadata", message: "must be object" }]);
    expect(await call({ metadata: { note: new Date(0) } })).toEqual({ ok: 1 });
    expect(sent()).toBe(1);
  });
});
