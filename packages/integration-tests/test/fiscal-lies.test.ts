// Fiscal answers that name another shift or register than the one asked (a proxy's cache, a
// misrouted answer): read as data, they were another object's status returned as this one's, and a
// Z report of another shift taken for this shift's. Now the spec's x-answer-names makes each an
// error; the Z report, journaled, is learnt as after a lost answer. Ids past 2^53 are never rounded
// into another document's number.
import { MemoryStore } from "@paysys/core";
import { AnswerLostError, createFiscalClient, type FiscalClientOptions, OutcomeUnknownError, UnexpectedResponseError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { registers: [10, 2] } });
});
afterAll(() => sb.close());

/** A fetch that rewrites the answer body of requests whose URL matches (a lying proxy between the till and the service). */
const rewriting = (match: RegExp, edit: (text: string) => string) => async (url: string, init: RequestInit) => {
  const answer = await globalThis.fetch(url, init);
  if (!match.test(url)) return answer;
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  return new Response(edit(await answer.text()), { status: answer.status, headers });
};
const client = (extra: Partial<FiscalClientOptions> = {}) =>
  createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), ...extra } as FiscalClientOptions);
const sale = { IdDomain: 1, Cash: "500", Total: "500", Positions: [{ Name: "Tea", IdSection: 1, Price: "250", Qty: 2 }] };
/** A fetch that gives the first sale's answer the Uid headers `uidHeaders` makes of the service's, and notes the Uid each sale presents. */
const lyingOnce = (uidHeaders: (uid: string) => [string, string][], presented: (string | null)[]) => {
  let sales = 0;
  return async (url: string, init: RequestInit) => {
    if (!/\/sales$/.test(url)) return globalThis.fetch(url, init);
    presented.push(new Headers(init.headers).get("uid"));
    const answer = await globalThis.fetch(url, init);
    if (++sales > 1) return answer;
    return new Response(await answer.text(), { status: answer.status, headers: [["content-type", "application/json"], ...uidHeaders(answer.headers.get("uid")!)] });
  };
};

describe("fiscal answers about another object", () => {
  it("shifts.get answering another shift's Id is an error", async () => {
    const shift = await client().shifts.open({ IdKkm: 108 });
    const fiscal = client({ fetch: rewriting(/\/shifts\/\d+$/, (t) => t.replace(/"Id":\d+/, '"Id":424242')) });
    const e = await fiscal.shifts.get({ idShift: shift.Id }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnexpectedResponseError);
    expect(String(e)).toMatch(/about Id "424242", not the idShift asked/);
    expect((await client().shifts.get({ idShift: shift.Id })).Id).toBe(shift.Id);
  });

  it("kkms.get answering another register is an error", async () => {
    const fiscal = client({ fetch: rewriting(/\/kkms\/109$/, (t) => t.replace(/"Id":109/, '"Id":201')) });
    expect(await fiscal.kkms.get({ idKkm: 109 }).catch((x: unknown) => x)).toBeInstanceOf(UnexpectedResponseError);
  });

  it("a Z report naming another shift and register is not this shift's: its outcome is learnt, the shift closed", async () => {
    const fiscal = client({ fetch: rewriting(/\/z$/, (t) => t.replace(/"IdShift":\d+/, '"IdShift":999999').replace(/"IdKkm":\d+/, '"IdKkm":201')) });
    const shift = await fiscal.shifts.open({ IdKkm: 106 });
    const e = await fiscal.shifts.closeWithZReport({ idShift: shift.Id, IdKkm: 106 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AnswerLostError);
    expect((await client().shifts.get({ idShift: shift.Id })).IdStatusShift).toBe(2);
  });

  it("an IdDocument or FiscalNumber past 2^53 is never rounded into another number", async () => {
    for (const [field, idKkm] of [
      ["IdDocument", 101],
      ["FiscalNumber", 102],
    ] as const) {
      const fiscal = client({ fetch: rewriting(/\/sales$/, (t) => t.replace(new RegExp(`"${field}":\\d+`), `"${field}":9007199254740993`)) });
      await fiscal.shifts.open({ IdKkm: idKkm });
      const r = await fiscal.operations.sale({ idKkm, ...sale }).catch((x: unknown) => x);
      // Registered, its answer unusable: an error that says the receipt took effect, never a rounded number.
      expect(r, field).toBeInstanceOf(AnswerLostError);
    }
  });
});

describe("a sale's answer whose Uid header is no Uid", () => {
  // A proxy that adds its own Uid header (fetch joins the two: "a, b"), or writes garbage there. Kept
  // as the next link, it was presented with the next receipt, refused as malformed, and the refusal
  // read as "the chain moved": a receipt the service never registered disputed, the register stopped
  // (found by a hostile probe). Now a value that does not match the spec's Uid pattern is no link.
  const cases: [string, (uid: string) => [string, string][]][] = [
    [
      "two Uid headers (joined by fetch)",
      (uid) => [
        ["uid", uid],
        ["uid", crypto.randomUUID()],
      ],
    ],
    ["a Uid that is no UUID v4", () => [["uid", "not-a-uid"]]],
  ];
  for (const [[what, uidHeaders], idKkm] of cases.map((c, i) => [c, 103 + i] as const)) {
    it(`${what}: the next receipt is registered (the current Uid read afresh), nothing disputed`, async () => {
      const presented: (string | null)[] = [];
      const fiscal = client({ fetch: lyingOnce(uidHeaders, presented) });
      await fiscal.shifts.open({ IdKkm: idKkm });
      const before = sb.fiscal.documents(idKkm).length;
      await fiscal.operations.sale({ idKkm, ...sale }, { idempotencyKey: `uid-lie-${idKkm}-1` });
      const second = await fiscal.operations.sale({ idKkm, ...sale }, { idempotencyKey: `uid-lie-${idKkm}-2` });
      expect(second.IdDocument).toBeDefined();
      expect(sb.fiscal.documents(idKkm).length - before).toBe(2);
      expect((await fiscal.journal.get({ operation: "operations.sale", key: `uid-lie-${idKkm}-2` }))?.state).toBe("applied");
      // Every Uid presented was one (the second the service's current, read afresh).
      expect(presented.every((uid) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(uid ?? ""))).toBe(true);
      await fiscal.close();
    });
  }
});

describe("a sale's answer carrying a well-formed Uid that is not the service's", () => {
  // Kept, it is presented with the next receipt and refused; the chain has moved past it (it never
  // was on the chain), which is also what a receipt that took effect behind a lying refusal leaves.
  // The two cannot be told apart after the fact, so by default that receipt is disputed and the
  // register stops (never a receipt believed refused that was registered). `readLinkFirst` reads the
  // current Uid before every receipt, so such a Uid is never presented.
  const foreign = (): [string, string][] => [["uid", crypto.randomUUID()]];

  it("by default: the next receipt is refused by the service, disputed (OutcomeUnknownError), never sent again", async () => {
    const presented: (string | null)[] = [];
    const fiscal = client({ fetch: lyingOnce(foreign, presented) });
    await fiscal.shifts.open({ IdKkm: 105 });
    const before = sb.fiscal.documents(105).length;
    await fiscal.operations.sale({ idKkm: 105, ...sale }, { idempotencyKey: "foreign-uid-1" });
    const e = await fiscal.operations.sale({ idKkm: 105, ...sale }, { idempotencyKey: "foreign-uid-2" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect(sb.fiscal.documents(105).length - before).toBe(1);
    expect((await fiscal.journal.get({ operation: "operations.sale", key: "foreign-uid-2" }))?.state).toBe("disputed");
    // The register stays stopped until the dispute is settled: the next receipt is not sent.
    await expect(fiscal.operations.sale({ idKkm: 105, ...sale }, { idempotencyKey: "foreign-uid-3" })).rejects.toThrow(/foreign-uid-2/);
    expect(presented).toHaveLength(2);
    await fiscal.close();
  });

  it("with lease.readLinkFirst: the next receipt presents the service's current Uid and is registered", async () => {
    const presented: (string | null)[] = [];
    const fiscal = client({ fetch: lyingOnce(foreign, presented), lease: { readLinkFirst: true } });
    await fiscal.shifts.open({ IdKkm: 107 });
    const before = sb.fiscal.documents(107).length;
    await fiscal.operations.sale({ idKkm: 107, ...sale }, { idempotencyKey: "foreign-uid-first-1" });
    const current = sb.fiscal.register(107)!.uid;
    const second = await fiscal.operations.sale({ idKkm: 107, ...sale }, { idempotencyKey: "foreign-uid-first-2" });
    expect(second.IdDocument).toBeDefined();
    expect(presented[1]).toBe(current);
    expect(sb.fiscal.documents(107).length - before).toBe(2);
    expect((await fiscal.journal.get({ operation: "operations.sale", key: "foreign-uid-first-2" }))?.state).toBe("applied");
    await fiscal.close();
  });
});
