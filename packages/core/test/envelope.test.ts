// Pointers and envelopes: the payload at a pointer, every item under `*`, prototype keys kept as
// plain data, the service's failure recognised wherever the spec says it is.
import { describe, expect, it } from "vitest";
import { AuthenticationError, ServiceError, UnexpectedResponseError } from "../src/index.js";
import { checkFailure, evaluatePointer, parsePointer, placeAt, redactValue, unwrap, wrapParams } from "../src/internal/index.js";
import { testOperation } from "./operation.js";

const op = testOperation;
const answer = (body: unknown) => ({ body, status: 200, attempts: 1, excerpt: () => JSON.stringify(body).slice(0, 50), scrub: (t: string) => t });

describe("pointers", () => {
  it("reach one value, or every item under *", () => {
    const doc = { a: { "b/c": [1, 2] }, q: [{ r: [1] }, { r: [] }, { r: [2, 3] }] };
    expect(evaluatePointer(doc, parsePointer("/a/b~1c/1"))).toEqual({ found: true, value: 2 });
    expect(evaluatePointer(doc, parsePointer("/q/*/r/*"))).toEqual({ found: true, value: [1, 2, 3] });
    expect(evaluatePointer(doc, parsePointer("/missing/*")).found).toBe(false);
    // A branch without its key, or with no list where `*` wants one, is nothing reached: a report
    // item without its rows is not an empty report.
    expect(evaluatePointer({ q: [...doc.q, {}] }, parsePointer("/q/*/r/*")).found).toBe(false);
    expect(evaluatePointer({ q: [...doc.q, { r: { a: 1 } }] }, parsePointer("/q/*/r/*")).found).toBe(false);
    expect(evaluatePointer({ q: [] }, parsePointer("/q/*/r/*"))).toEqual({ found: true, value: [] });
    expect(evaluatePointer(doc, parsePointer("")).value).toBe(doc);
  });

  it("never step into a prototype, and place keys such as __proto__ as plain data", () => {
    expect(evaluatePointer({}, parsePointer("/constructor")).found).toBe(false);
    expect(evaluatePointer({}, parsePointer("/__proto__/polluted")).found).toBe(false);
    const placed = placeAt(parsePointer("/__proto__"), { polluted: true }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(placed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const redacted = redactValue(JSON.parse('{"__proto__":{"polluted":true},"psw":"x"}'), new Set(["psw"])) as Record<string, unknown>;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(["__proto__", "psw"]);
  });
});

describe("envelopes", () => {
  it("wrap params where the envelope says", () => {
    expect(wrapParams({ params: "/Body/Params" }, { a: 1 })).toEqual({ Body: { Params: { a: 1 } } });
    expect(wrapParams({ params: "" }, { a: 1 })).toEqual({ a: 1 });
  });

  it("recognise failure by code or by an error field, and never by comparing message text", () => {
    const fiscal = op({ envelope: { params: "", code: "/Status", success: [200], message: "/Message" } });
    expect(() => checkFailure(fiscal, answer({ Status: 200, Message: "ОК" }))).not.toThrow();
    expect(() => checkFailure(fiscal, answer({ Status: 200, Message: "anything at all" }))).not.toThrow();
    expect(() => checkFailure(fiscal, answer({ Status: 400, Message: "OK" }))).toThrow(ServiceError);
    expect(() => checkFailure({ ...fiscal, signsIn: true }, answer({ Status: 401 }))).toThrow(AuthenticationError);
    const gateway = op({ envelope: { params: "", error: "/error", message: "/error" } });
    expect(() => checkFailure(gateway, answer({ status: 1, error: "" }))).not.toThrow();
    expect(() => checkFailure(gateway, answer({ status: 0, error: "declined" }))).toThrow(/declined/);
  });

  it("unwrap lists as arrays, one item as the only one, and say when nothing or too much is there", () => {
    const list = op({ unwrap: { at: ["/data", "/result"], list: true } });
    expect(unwrap(list, answer({ result: [{ a: 1 }] }))).toEqual([{ a: 1 }]);
    expect(unwrap(list, answer({ data: [], result: { a: 1 } }))).toEqual([]);
    expect(() => unwrap(list, answer({ result: 5 }))).toThrow(UnexpectedResponseError);
    // A lone object is not a one-row list: which rows the service meant is unknown.
    expect(() => unwrap(list, answer({ result: { a: 1 } }))).toThrow(/no list at \/data or \/result/);
    const one = op({ unwrap: { at: ["/Q/*/Rows/*"], one: true } });
    expect(unwrap(one, answer({ Q: [{ Rows: [{ a: 1 }] }] }))).toEqual({ a: 1 });
    expect(() => unwrap(one, answer({ Q: [{ Rows: [] }] }))).toThrow(/no item/);
    // Two rows where one belongs: another user's profile beside the one asked for.
    expect(() => unwrap(one, answer({ Q: [{ Rows: [{ a: 1 }, { a: 2 }] }] }))).toThrow(/2 items at \/Q\/\*\/Rows\/\*, where one belongs/);
  });
});
