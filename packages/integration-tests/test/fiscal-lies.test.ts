// Fiscal answers that name another shift or register than the one asked (a proxy's cache, a
// misrouted answer): read as data, they were another object's status returned as this one's, and a
// Z report of another shift taken for this shift's. Now the spec's x-answer-names makes each an
// error; the Z report, journaled, is learnt as after a lost answer. Ids past 2^53 are never rounded
// into another document's number.
import { MemoryStore } from "@paysys/core";
import { AnswerLostError, createFiscalClient, type FiscalClientOptions, UnexpectedResponseError } from "@paysys/fiscal";
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
