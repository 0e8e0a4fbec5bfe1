// x-chain and x-outcome: the header each call presents and each answer renews, per key, one call
// at a time under the key's lease; the operations journaled, and a lost answer told by the chain
// (it moved past the presented link) or by a query (the link changed since before sending).
import { MemoryStore } from "@paysys/core";
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

const methods = (fetch: (url: string, init: RequestInit) => Promise<Response>, lingerMs = 1000) =>
  buildFixtureMethods(
    createInvoker({
      transport: new Transport({ baseUrl: "http://fixture.test", fetch }),
      operations,
      chain,
      journal: { store: new MemoryStore(), namespace: "fixture", timeoutMs: 1000, landingMs: 100, lease: { lingerMs } },
    }).invoke,
  );

describe("chain", () => {
  it("writes the chain, which operations present its link, and how a lost answer is told", () => {
    expect(chain).toEqual({ header: "Uid", current: { operation: "links.current", param: "tillId" } });
    expect(operations["tills.open"].chain).toEqual({ key: "tillId", presents: false, returns: true });
    expect(operations["tills.sell"].chain).toEqual({ key: "tillId", presents: true, returns: true });
    expect(operations["tills.sell"].outcome).toEqual({ by: "chain" });
    expect(operations["tills.open"].outcome).toEqual({ by: "query", operation: "links.current", params: { tillId: "/tillId" }, applied: { changed: "" } });
    expectTypeOf<Parameters<FixtureMethods["tills"]["sell"]>[0]>().toEqualTypeOf<{ tillId: number; Amount: number }>();
    expectTypeOf<NonNullable<Parameters<FixtureMethods["tills"]["sell"]>[1]>["idempotencyKey"]>().toEqualTypeOf<string | undefined>();
  });

  it("serialises calls per key, runs keys in parallel, and never breaks a chain", async () => {
    const t = tills();
    const m = methods(t.stub.fetch);
    await Promise.all([m.tills.open({ tillId: 1 }), m.tills.open({ tillId: 2 })]);
    const sales = await Promise.all(Array.from({ length: 40 }, (_, i) => m.tills.sell({ tillId: 1 + (i % 2), Amount: i })));
    expect(sales.filter((s) => s.Seq !== undefined)).toHaveLength(40);
    expect(t.links.get("1")).toBe(21);
    expect(t.links.get("2")).toBe(21);
    expect(t.max()).toBe(2); // one at a time per till, both tills at once
  });

  it("reads the link afresh each time it takes a key's lease, so a link moved meanwhile is never presented", async () => {
    const t = tills();
    const m = methods(t.stub.fetch, 0);
    await m.tills.open({ tillId: 7 });
    t.links.set("7", 5); // another till program sold four times, between two tenures
    expect(await m.tills.sell({ tillId: 7, Amount: 1 })).toEqual({ Seq: 5 });
    // The opening reads the link before it is sent (to tell a lost answer), the sale when it takes the lease.
    expect(t.stub.seen.map((s) => s.url.replace("http://fixture.test", ""))).toEqual(["/links/7", "/tills/7/open", "/links/7", "/tills/7/sales"]);
  });
});

describe("a lost answer on a chained call", () => {
  it("is never sent again: the chain tells whether it took effect (at once when it did)", async () => {
    for (const applied of [true, false]) {
      const t = tills();
      let cut = true;
      const fetch = async (url: string, init: RequestInit) => {
        if (url.endsWith("/sales") && cut) {
          cut = false;
          // The sale reaches the till (or not), and the connection drops before the answer.
          if (applied) await t.stub.fetch(url, init);
          throw new TypeError("socket hang up");
        }
        return t.stub.fetch(url, init);
      };
      const m = methods(fetch);
      await m.tills.open({ tillId: 3 });
      const err = await m.tills.sell({ tillId: 3, Amount: 1 }, { idempotencyKey: "sale-1" }).catch((e) => e);
      // Cut off after it left: "not there" is only "not yet" until it can no longer land (landingMs).
      expect(err.name).toBe(applied ? "AnswerLostError" : "OutcomeUnknownError");
      expect(err).toMatchObject({ key: "sale-1", attempts: 1 });
      if (!applied) expect(await err.wasApplied()).toBe(false);
      expect(t.stub.seen.filter((s) => s.url.endsWith("/sales"))).toHaveLength(applied ? 1 : 0);
      // The same key again: never twice; sent now only if it was not applied.
      const again = await m.tills.sell({ tillId: 3, Amount: 1 }, { idempotencyKey: "sale-1" }).catch((e) => e);
      expect(again.name ?? "answer").toBe(applied ? "AnswerLostError" : "answer");
      expect(t.links.get("3")).toBe(2);
    }
  });
});
