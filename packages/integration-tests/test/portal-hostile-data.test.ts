// A hostile probe of the portal client (2026-11-28), kept as tests: silent wrong data. Answers the README says are refused, date helpers at DST edges,
// xlsx answers, v1 vs v2 shapes.
import { inspect } from "node:util";
import { parsePortalDate, UnexpectedResponseError } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalClients } from "./portal-clients.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const { client } = portalClients(() => sb);
const lie = (path: RegExp, body: string, contentType = "application/json") => sb.faults.add({ path, fault: { kind: "status", status: 200, body, contentType } });
const shown = (r: unknown) => (r instanceof Error ? `${r.constructor.name}: ${r.message}` : inspect(r, { depth: 4 }));

describe("probe2 answers the README says are refused", () => {
  it("v2 payments: an id past 2^53 is an UnexpectedResponseError, never a rounded number", async () => {
    const p = client("v2");
    await p.user.me();
    // 9007199254740993 is not a double: JSON.parse reads 9007199254740992
    lie(/v2\/report\/payments/, '{"code":0,"message":"OK","data":[{"idPayment":9007199254740993,"amount":25}]}');
    const r = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((e) => e);
    expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
  });

  it("v1 payments: an id past 2^53 is an UnexpectedResponseError", async () => {
    const p = client("v1");
    await p.user.profile();
    lie(/^\/portal\/report\/payments/, '{"Code":0,"QueryData":[{"Rows":[{"idPayment":12345678901234567891,"amount":25}]}]}');
    const r = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((e) => e);
    expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
  });

  it("v2 payments: 1e400 is an UnexpectedResponseError, not Infinity", async () => {
    const p = client("v2");
    await p.user.me();
    lie(/v2\/report\/payments/, '{"code":0,"message":"OK","data":[{"idPayment":1,"amount":1e400}]}');
    const r = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((e) => e);
    expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
  });

  it("v2 user.me: result an array of users is refused (checked default)", async () => {
    const p = client("v2");
    await p.user.me();
    lie(/v2\/user\/me/, JSON.stringify({ code: 0, message: "OK", result: [{ idUser: 1001 }, { idUser: 666 }] }));
    const r = await p.user.me().catch((e) => e);
    expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
  });

  for (const validateResponses of [undefined, false]) {
    it(`v1: a QueryData item without Rows is refused (validateResponses ${validateResponses})`, async () => {
      const p = client("v1", { validateResponses });
      await p.user.profile();
      lie(/^\/portal\/report\/payments/, '{"Code":0,"QueryData":[{"Rows":[{"idPayment":1}]},{"Error":"page 2 failed"}]}');
      const r = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((e) => e);
      expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
    });
    it(`v1: QueryData not an array is refused (validateResponses ${validateResponses})`, async () => {
      const p = client("v1", { validateResponses });
      await p.user.profile();
      lie(/^\/portal\/report\/payments/, '{"Code":0,"QueryData":{"Rows":[{"idPayment":1}]}}');
      const r = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((e) => e);
      expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
    });
    it(`v1: a profile with two rows is refused (validateResponses ${validateResponses})`, async () => {
      const p = client("v1", { validateResponses });
      await p.user.profile();
      lie(/^\/portal\/user\/profile/, '{"Code":0,"QueryData":[{"Rows":[{"idUser":1001}]},{"Rows":[{"idUser":666}]}]}');
      const r = await p.user.profile().catch((e) => e);
      expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
    });
  }

  // A check of the spec's schema: with validateResponses false it is off, as documented.
  it("v2: rows that are not objects are refused (answers checked, the default)", async () => {
    const p = client("v2");
    await p.user.me();
    lie(/v2\/report\/payments/, '{"code":0,"message":"OK","data":[1,"x",null]}');
    const r = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((e) => e);
    expect(r, shown(r)).toBeInstanceOf(UnexpectedResponseError);
  });
});

describe("probe2 xlsx answers", () => {
  it("BinaryFile read twice / stream after bytes: typed errors", async () => {
    const p = client("v2");
    await p.user.me();
    const f = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true, format: "xlsx" });
    await f.bytes();
    const again = await f.bytes().catch((e) => e);
    let streamed: unknown;
    try {
      f.stream().getReader();
      streamed = "ok";
    } catch (e) {
      streamed = e;
    }
    expect(`${shown(again)} | ${shown(streamed)}`).not.toMatch(/^TypeError|\| TypeError/);
  });
});

describe("probe2 date helpers", () => {
  it("parsePortalDate day end in a zone whose clocks go back at midnight: the day's last second", () => {
    // Asia/Almaty went from +06 to +05 at 2024-03-01 00:00, so 23:00-23:59 of 29 Feb happened twice.
    const end = parsePortalDate("20240229", "Asia/Almaty", "end");
    const next = parsePortalDate("20240301", "Asia/Almaty", "start");
    // the day's end and the next day's start should be one second apart
    expect((next.getTime() - end.getTime()) / 1000, `${end.toISOString()} .. ${next.toISOString()}`).toBe(1);
  });

  it("parsePortalDate day end, America/Santiago (DST ends at 24:00 on 2024-04-06)", () => {
    const end = parsePortalDate("20240406", "America/Santiago", "end");
    const next = parsePortalDate("20240407", "America/Santiago", "start");
    expect((next.getTime() - end.getTime()) / 1000, `${end.toISOString()} .. ${next.toISOString()}`).toBe(1);
  });
});

describe("probe2 Date parameters in the client's time zone", () => {
  const sent: string[] = [];
  const hooks = { beforeRequest: async ({ request }: { request: Request }) => void sent.push(await request.clone().text()) };
  for (const [zone, from, to, wire] of [
    ["Europe/Berlin", "2024-03-31T00:30:00Z", "2024-03-31T01:30:00Z", '"dateFrom":"20240331013000","dateTo":"20240331033000"'],
    ["Europe/Berlin", "2024-10-27T00:30:00Z", "2024-10-27T01:45:00Z", '"dateFrom":"20241027023000","dateTo":"20241027024500"'],
    ["America/New_York", "2024-03-10T06:59:59Z", "2024-03-10T07:00:00Z", '"dateFrom":"20240310015959","dateTo":"20240310030000"'],
    [undefined, "2024-02-29T17:30:00Z", "2024-02-29T18:30:00Z", '"dateFrom":"20240229233000","dateTo":"20240229233000"'],
    [undefined, "2024-12-31T18:59:59Z", "2024-12-31T19:00:00Z", '"dateFrom":"20241231235959","dateTo":"20250101000000"'],
  ] as const) {
    it(`Dates in ${zone ?? "the default zone"}: ${from} .. ${to}`, async () => {
      const p = client("v2", { timeZone: zone, hooks });
      await p.user.me();
      sent.length = 0;
      await p.reports.payments({ dateFrom: new Date(from), dateTo: new Date(to) }).catch(() => {});
      expect(sent.join("")).toContain(wire);
    });
  }
});
