// A hostile probe of the portal client (2026-11-28), kept as tests: bad input refused before sending (RequestValidationError, nothing reaches the service).
import { inspect } from "node:util";
import { ConfigurationError, createPortalClient, RequestValidationError } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalCredentials as credentials } from "./credentials.js";
import { portalClients } from "./portal-clients.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const bodies: string[] = [];
const hooks = { beforeRequest: async ({ request }: { request: Request }) => void bodies.push(await request.clone().text()) };
const { client } = portalClients(() => sb, { hooks });

/** Calls f; reports what reached the service (the body) and what came back, when the call was not refused unsent. */
async function refusedUnsent(f: () => Promise<unknown>): Promise<string | undefined> {
  const before = sb.portal.stats.requests;
  bodies.length = 0;
  const r = await f().catch((e) => e);
  const sent = sb.portal.stats.requests - before;
  if (r instanceof RequestValidationError && sent === 0) return undefined;
  return `sent ${sent}: ${bodies.join(" ")} -> ${r instanceof Error ? `${r.constructor.name}: ${r.message.slice(0, 200)}` : inspect(r).slice(0, 100)}`;
}

describe("probe3 extraParams", () => {
  it("v2 payments: a known parameter not given, passed through extraParams, is checked (dateTo garbage)", async () => {
    const p = client("v2");
    await p.user.me();
    expect(await refusedUnsent(() => p.reports.payments({ dateFrom: "20240501" }, { extraParams: { dateTo: "2024-13-45" } }))).toBeUndefined();
  });
  it("v2 payments: subOn / idAgent of the wrong type through extraParams", async () => {
    const p = client("v2");
    await p.user.me();
    expect(await refusedUnsent(() => p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }, { extraParams: { subOn: "yes" } }))).toBeUndefined();
    expect(await refusedUnsent(() => p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }, { extraParams: { idAgent: "1001" } }))).toBeUndefined();
  });
  it("v2 payments: a reversed period through extraParams (dateFrom given, dateTo extra)", async () => {
    const p = client("v2");
    await p.user.me();
    expect(await refusedUnsent(() => p.reports.payments({ dateFrom: "20240510" }, { extraParams: { dateTo: "20240501" } }))).toBeUndefined();
  });
  it("v2 extended turnovers: the isAddCommissionForCance* flag (pattern, boolean) through extraParams with a string", async () => {
    const p = client("v2");
    await p.user.me();
    expect(
      await refusedUnsent(() => p.reports.terminalTurnoversExtended({ dateFrom: "20240501", dateTo: "20240501" }, { extraParams: { isAddCommissionForCancel: "yes" } })),
    ).toBeUndefined();
  });
  it("v1 extended turnovers: isAddCommissionForCancel true as a parameter is sent as 1", async () => {
    const p = client("v1");
    await p.user.profile();
    bodies.length = 0;
    await p.reports.terminalTurnoversExtended({ dateFrom: "20240501", dateTo: "20240501", isAddCommissionForCancel: true } as never);
    expect(bodies.join("")).toContain('"isAddCommissionForCancel":1');
  });
  it("v1 payments: subOn through extraParams as true (v1 wants 1/0) is refused or encoded", async () => {
    const p = client("v1");
    await p.user.profile();
    const r = await refusedUnsent(() => p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }, { extraParams: { subOn: true } }));
    expect(r ?? "", r).not.toContain('"subOn":true');
  });
});

describe("probe3 parameters", () => {
  const bad: [string, Record<string, unknown>][] = [
    ["20230229", { dateFrom: "20230229" }],
    ["2023-02-29", { dateFrom: "2023-02-29" }],
    ["{2023,2,29}", { dateFrom: { year: 2023, month: 2, day: 29 } }],
    ["20240431", { dateTo: "20240431" }],
    ["hour 24", { dateFrom: "20240101240000" }],
    ["second 60", { dateFrom: "20240101235960" }],
    ["year 0099", { dateFrom: "00990101" }],
    ["reversed days", { dateFrom: "20240502", dateTo: "20240501" }],
    ["reversed 14 vs 8", { dateFrom: "20240502000000", dateTo: "20240501" }],
    ["reversed Date vs day", { dateFrom: new Date("2024-05-02T00:00:00+05:00"), dateTo: "2024-05-01" }],
    ["calendar date with hour", { dateFrom: { year: 2024, month: 5, day: 1, hour: 5 } }],
    ["unknown top-level param (open op)", { dateFrom: "20240501", dateFro: "20240501" }],
    ["unsafe integer idAgent", { dateFrom: "20240501", idAgent: 2 ** 53 + 2 }],
    ["idAgent 1e21", { dateFrom: "20240501", idAgent: 1e21 }],
    ["sn as number", { dateFrom: "20240501", sn: 123 }],
    ["subOn 1 (v2 wants boolean)", { dateFrom: "20240501", subOn: 1 }],
  ];
  for (const version of ["v2", "v1"] as const) {
    it(`${version} payments: bad inputs refused unsent`, async () => {
      const p = client(version as "v2");
      await p.user.profile();
      const wrong: string[] = [];
      for (const [name, params] of bad) {
        if (version === "v1" && name.startsWith("subOn 1")) continue;
        const r = await refusedUnsent(() => p.reports.payments(params as never));
        if (r) wrong.push(`${name}: ${r}`);
      }
      expect(wrong).toEqual([]);
    });
  }
  it("v2 agents.list: nested bad values refused unsent", async () => {
    const p = client("v2");
    await p.user.me();
    const wrong: string[] = [];
    for (const [name, params] of [
      ["columns item number", { columns: ["nowBalance", 5] }],
      ["columns item object", { columns: [{ name: "nowBalance" }] }],
      ["columns not array", { columns: "nowBalance" }],
      ["sub 5", { sub: 5 }],
      ["unknown", { idAgentt: 1 }],
      ["v1-only rnn on v2", { rnn: "123" }],
    ] as const) {
      const r = await refusedUnsent(() => p.agents.list(params as never));
      if (r) wrong.push(`${name}: ${r}`);
    }
    expect(wrong).toEqual([]);
  });
  it("signIn with a misspelt key (initator) is refused, not ignored", async () => {
    const p = client("v2");
    const c = await p.requestCaptcha();
    const r = await refusedUnsent(() =>
      p.signIn({ ...credentials, initator: "portal-ui", captcha: sb.portal.captchaText(c.captchaSession)!, captchaSession: c.captchaSession } as never),
    );
    expect(r).toBeUndefined();
  });
  it("an unknown timeZone is refused when the client's code loads (its first call), before anything is sent", async () => {
    const p = createPortalClient({ baseUrl: sb.portalUrl, timeZone: "Mars/Olympus_Mons" });
    await expect(p.requestCaptcha()).rejects.toBeInstanceOf(ConfigurationError);
    await expect(p.requestCaptcha()).rejects.toThrow(/timeZone/);
  });
});
