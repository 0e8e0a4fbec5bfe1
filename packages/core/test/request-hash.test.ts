// The request hash is written into journals that outlive a version of the SDK (a file, Redis,
// PostgreSQL): the same request must hash the same after an upgrade, or a retry under its key is
// refused as another request. These hashes are pinned; a change to them is a breaking change.
import { describe, expect, it } from "vitest";
import { hashOf } from "../src/internal/request-hash.js";

const sale = { idKkm: 101, IdDomain: 1, Positions: [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }], Total: "1250.5", Cash: "1250.5" };
const payment = {
  b: undefined,
  a: [1, null, "x", { z: 1, y: [] }],
  when: new Date(Date.UTC(2026, 10, 26)),
  card: { cvv: "123", pan: "4111" },
  ключ: "значение",
  B: true,
  _: {},
};
const none = new Set<string>();

describe("the request hash", () => {
  it("is the same as every earlier version's (pinned)", async () => {
    expect(await hashOf("operations.sale", sale, none)).toBe("3afbe94e2e56f75eca90038577d346589316d9dfb6c3c1b6006cdc521fb3665d");
    expect(await hashOf("pay", payment, new Set(["cvv", "pan"]))).toBe("6a94fe77a60bd7fce8d86097e869dd1eb422911b36f4bb91a0e85d1150407187");
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7919) % 40}`, i]));
    expect(await hashOf("many", many, none)).toBe("445a75cf200b9a7e4069942771b78d2bf18776c9f17d6e6ac834e3934a04ae08");
  });

  it("does not depend on the order of keys, at any depth, nor on keys whose value is undefined", async () => {
    const reordered = { Cash: "1250.5", Total: "1250.5", Positions: [{ Qty: 2, Price: "625.25", IdSection: 1, Name: "Coffee" }], IdDomain: 1, idKkm: 101, note: undefined };
    expect(await hashOf("operations.sale", reordered, none)).toBe(await hashOf("operations.sale", sale, none));
  });

  it("tells apart another operation, another value, and an array in another order", async () => {
    const base = await hashOf("operations.sale", sale, none);
    expect(await hashOf("operations.refund", sale, none)).not.toBe(base);
    expect(await hashOf("operations.sale", { ...sale, Total: "1250.50" }, none)).not.toBe(base);
    const two = (a: unknown[]) => hashOf("x", { a }, none);
    expect(await two([1, 2])).not.toBe(await two([2, 1]));
  });

  it("replaces sensitive values: a fresh cryptogram of the same card hashes the same", async () => {
    const sensitive = new Set(["cvv", "pan"]);
    const other = { ...payment, card: { cvv: "999", pan: "5500" } };
    expect(await hashOf("pay", other, sensitive)).toBe(await hashOf("pay", payment, sensitive));
    expect(await hashOf("pay", other, none)).not.toBe(await hashOf("pay", payment, none));
  });
});
