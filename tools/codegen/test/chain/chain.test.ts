// x-chain: the header each call presents and each answer renews, per key, serialised; a refused
// link recovered once through the chain's `current` operation.
import { createInvoker, Transport } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods, type FixtureMethods } from "./generated/client.js";
import { chain, operations } from "./generated/operations.js";

/** A till server in miniature: each till has a link; a sale must present it and gets the next. */
function tills() {
  const links = new Map<string, number>();
  let concurrent = 0;
  let maxConcurrent = 0;
  const stub = stubFetch(async (s) => {
    const till = /\/tills\/(\d+)|\/links\/(\d+)/.exec(s.url)!.slice(1).find(Boolean)!;
    if (s.url.includes("/links/")) return json({ Status: 200, Data: { Uid: `u${links.get(till) ?? 0}` } });
    if (s.url.endsWith("/open")) {
      links.set(till, 1);
      return json({ Status: 200, Data: { Seq: 0 } }, 200, { uid: "u1" });
    }
    concurrent++;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    await new Promise((r) => setTimeout(r, 2));
    concurrent--;
    const current = links.get(till) ?? 0;
    if (s.headers.get("uid") !== `u${current}`) return json({ Status: 400, Message: "wrong Uid" }, 400);
    links.set(till, current + 1);
    return json({ Status: 200, Data: { Seq: current } }, 200, { uid: `u${current + 1}` });
  });
  return { stub, links, max: () => maxConcurrent };
}

describe("chain", () => {
  it("writes the chain and which operations present its link", () => {
    expect(chain).toEqual({ header: "Uid", current: { operation: "links.current", param: "tillId" } });
    expect(operations["tills.open"].chain).toEqual({ key: "tillId", presents: false, returns: true });
    expect(operations["tills.sell"].chain).toEqual({ key: "tillId", presents: true, returns: true });
    expectTypeOf<Parameters<FixtureMethods["tills"]["sell"]>[0]>().toEqualTypeOf<{ tillId: number; Amount: number }>();
  });

  it("serialises calls per key, runs keys in parallel, and never breaks a chain", async () => {
    const t = tills();
    const invoker = createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: t.stub.fetch }), operations, chain: { definition: chain! } });
    const m = buildFixtureMethods(invoker.invoke);
    await Promise.all([m.tills.open({ tillId: 1 }), m.tills.open({ tillId: 2 })]);
    const sales = await Promise.all(Array.from({ length: 40 }, (_, i) => m.tills.sell({ tillId: 1 + (i % 2), Amount: i })));
    expect(sales.filter((s) => s.Seq !== undefined)).toHaveLength(40);
    expect(t.links.get("1")).toBe(21);
    expect(t.links.get("2")).toBe(21);
    expect(t.max()).toBe(2); // one at a time per till, both tills at once
  });

  it("recovers a link another process moved, once, through the current operation", async () => {
    const t = tills();
    const invoker = createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch: t.stub.fetch }), operations, chain: { definition: chain! } });
    const m = buildFixtureMethods(invoker.invoke);
    await m.tills.open({ tillId: 7 });
    t.links.set("7", 5); // another till program sold four times
    expect(await m.tills.sell({ tillId: 7, Amount: 1 })).toEqual({ Seq: 5 });
    expect(t.stub.seen.map((s) => s.url.replace("http://fixture.test", ""))).toEqual(["/tills/7/open", "/tills/7/sales", "/links/7", "/tills/7/sales"]);
  });
});

describe("a lost answer on a chained call", () => {
  it("is an OutcomeUnknownError that can ask the service whether the call took effect", async () => {
    for (const applied of [true, false]) {
      const t = tills();
      const fetch = async (url: string, init: RequestInit) => {
        if (url.endsWith("/sales")) {
          // The sale reaches the till (or not), and the connection drops before the answer.
          if (applied) await t.stub.fetch(url, init);
          throw new TypeError("socket hang up");
        }
        return t.stub.fetch(url, init);
      };
      const m = buildFixtureMethods(createInvoker({ transport: new Transport({ baseUrl: "http://fixture.test", fetch }), operations, chain: { definition: chain! } }).invoke);
      await m.tills.open({ tillId: 3 });
      const err = await m.tills.sell({ tillId: 3, Amount: 1 }).catch((e) => e);
      expect(err.name).toBe("OutcomeUnknownError");
      expect(err.outcomeUnknown).toBe(true);
      expect(err.message).toMatch(/await error.wasApplied\(\)/);
      expect(await err.wasApplied()).toBe(applied);
    }
  });
});
