// The portal client against the sandbox, over HTTP on loopback: every operation of v2 and v1,
// files read back as real workbooks, token renewal under load, errors and secrets.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  AuthenticationError,
  BinaryFile,
  ClientClosedError,
  createPortalClient,
  type PortalClientOptions,
  type PortalV1Client,
  type PortalV2Client,
  RequestValidationError,
  ServiceError,
  UnsupportedOperationError,
} from "@paysys/portal";
import { saveToFile } from "@paysys/portal/node";
import { defaultPortalUser, type Sandbox, SandboxCodes, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as XLSX from "xlsx";
import { portalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const credentials = portalCredentials;

function client(version: "v1", extra?: Partial<PortalClientOptions>): PortalV1Client;
function client(version: "v2", extra?: Partial<PortalClientOptions>): PortalV2Client;
function client(version: "v1" | "v2", extra: Partial<PortalClientOptions> = {}) {
  return createPortalClient({
    baseUrl: sb.portalUrl,
    version,
    credentials,
    // The sandbox tells its captcha text; a real integration shows the image to a person.
    solveCaptcha: async ({ captchaSession }) => sb.portal.captchaText(captchaSession) ?? "",
    validateResponses: true,
    ...extra,
  } as PortalClientOptions);
}

/** Reads an xlsx file with SheetJS (a different library from the one that wrote it). */
function readSheet(bytes: Uint8Array): Record<string, unknown>[] {
  const book = XLSX.read(bytes, { type: "array" });
  return XLSX.utils.sheet_to_json(book.Sheets[book.SheetNames[0]!]!);
}

const may = { dateFrom: new Date("2024-05-01T00:00:00+05:00"), dateTo: "20240507235959" };

for (const version of ["v2", "v1"] as const) {
  describe(`portal ${version}: every operation against the sandbox`, () => {
    const portal = () => client(version as "v2");

    it("account: captcha, token, refresh, logout by hand", async () => {
      const p = createPortalClient({ baseUrl: sb.portalUrl, version } as PortalClientOptions);
      const challenge = await p.requestCaptcha();
      expect(challenge.captchaSession).toMatch(/^[0-9a-f-]{36}$/);
      expect(String(challenge.captcha.image)).toMatch(/^data:image\/svg\+xml;base64,/);
      await p.signIn({ ...credentials, captcha: sb.portal.captchaText(challenge.captchaSession)!, captchaSession: challenge.captchaSession });
      expect(p.signedIn).toBe(true);
      const direct = await p.account.captcha({ captchaSession: "s-direct" });
      expect(direct).toHaveProperty("image");
      const tokens = await p.account.token({ ...credentials, initiator: "sdk", captcha: sb.portal.captchaText("s-direct")!, captchaSession: "s-direct" });
      expect(tokens).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 900 });
      const renewed = await p.account.refresh({ token: String(tokens.refreshToken) });
      expect(renewed.refreshToken).not.toBe(tokens.refreshToken);
      const logouts = sb.portal.stats.logout;
      await p.account.logout({ refreshToken: String(renewed.refreshToken) });
      expect(sb.portal.stats.logout).toBe(logouts + 1);
      await p.close();
      expect(p.signedIn).toBe(false);
    });

    it("user.profile: the signed-in user, and by idUser", async () => {
      await using p = portal();
      expect(await p.user.profile()).toMatchObject({ idUser: 1001, lgn: "dealer01", userFIO: "Ivanov Ivan" });
      expect(await p.user.profile({ idUser: 1001 })).toMatchObject({ email: "dealer01@example.com" });
    });

    it("agents.list with sub scope and columns", async () => {
      await using p = portal();
      const all = await p.agents.list({ sub: 2, columns: ["nowBalance", "contract", "ownerType"] });
      expect(all).toHaveLength(40);
      expect(all[0]).toMatchObject({ idAgent: 1001, nowBalance: expect.any(Number), contract: expect.stringMatching(/^C-/) });
      const nextLevel = await p.agents.list({ idAgent: 1001, sub: 3 });
      expect(nextLevel.map((a) => a.idAgent)).toEqual([1002, 1003, 1004, 1005, 1006, 1007, 1008]);
      expect(await p.agents.list({ name: "Agent 1005", sub: 2 })).toHaveLength(1);
    });

    it("terminals.list with filters", async () => {
      await using p = portal();
      const mine = await p.terminals.list();
      expect(mine.every((t) => t.idAgent === 1001)).toBe(true);
      const one = await p.terminals.list({ sub: 2, idTerminal: 5007 });
      expect(one).toEqual([expect.objectContaining({ idTerminal: 5007 })]);
    });

    it("reports.payments: Date parameters in Almaty time and filters", async () => {
      await using p = portal();
      const rows = await p.reports.payments({ ...may, subOn: true });
      expect(rows.length).toBe(7 * 40);
      expect(rows.every((r) => String(r.date) >= "20240501000000" && String(r.date) <= "20240507235959")).toBe(true);
      const bySn = await p.reports.payments({ ...may, subOn: true, sn: String(rows[3]!.sn) });
      expect(bySn).toEqual([rows[3]]);
    });

    it("reports.cashCollections as JSON and as xlsx", async () => {
      await using p = portal();
      const rows = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true });
      expect(rows.length).toBeGreaterThan(0);
      const file = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true, format: "xlsx" });
      expect(file).toBeInstanceOf(BinaryFile);
      expect(readSheet(await file.bytes())).toEqual(rows);
    });

    it("reports.terminalTurnovers by day, JSON and xlsx, totals agree with the payments", async () => {
      await using p = portal();
      const payments = (await p.reports.payments({ ...may, subOn: true })) as { amount: number }[];
      const rows = (await p.reports.terminalTurnovers({ ...may, subOn: true, groupByDay: true })) as { amount: number; count: number }[];
      const tiyn = (xs: { amount: number }[]) => xs.reduce((s, x) => s + Math.round(x.amount * 100), 0);
      expect(tiyn(rows)).toBe(tiyn(payments));
      expect(rows.reduce((s, r) => s + r.count, 0)).toBe(payments.length);
      const sheet = readSheet(await (await p.reports.terminalTurnovers({ ...may, subOn: true, groupByDay: true, format: "xlsx" })).bytes());
      expect(sheet).toHaveLength(rows.length);
    });

    it("reports.terminalTurnoversExtended with the flag whose name is only partly known", async () => {
      await using p = portal();
      const rows = await p.reports.terminalTurnoversExtended({
        ...may,
        sub: 2,
        groupByDay: false,
        isAddCommissionForSecondPay: true,
        isAddCommissionForCancel: true,
      });
      expect(rows[0]).toMatchObject({ idTerminal: expect.any(Number), commission: expect.any(Number) });
    });

    it("reports.remunerationByService as JSON and as xlsx", async () => {
      await using p = portal();
      const rows = await p.reports.remunerationByService();
      expect(Object.keys(rows[0]!)[0]).toMatch(/^idSe/);
      const sheet = readSheet(await (await p.reports.remunerationByService({ format: "xlsx" })).bytes());
      expect(sheet).toEqual(rows);
    });

    it("reports.dealerStatistics streamed to disk without holding the file", async () => {
      await using p = portal();
      const rows = await p.reports.dealerStatistics({ ...may, subOn: true, groupByDay: true });
      const file = await p.reports.dealerStatistics({ ...may, subOn: true, groupByDay: true, format: "xlsx" });
      const path = join(mkdtempSync(join(tmpdir(), "paysys-")), "stat.xlsx");
      const written = await saveToFile(file, path);
      expect(written).toBe(file.size);
      expect(readSheet(readFileSync(path))).toEqual(rows);
      rmSync(dirname(path), { recursive: true, force: true });
    });
  });
}

describe("version differences", () => {
  it("user.me exists on v2 and is a clear runtime error on v1", async () => {
    await using v2 = client("v2");
    expect(await v2.user.me()).toMatchObject({ idUser: 1001 });
    const v1 = client("v1") as unknown as PortalV2Client;
    await expect(v1.user.me()).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it("firstPaymentDate is a v2 column only", async () => {
    await using v2 = client("v2");
    const rows = await v2.agents.list({ sub: 2, columns: ["firstPaymentDate"] });
    expect(rows[0]).toHaveProperty("firstPaymentDate");
    await using v1 = client("v1");
    const v1rows = await v1.agents.list({ sub: 2, columns: ["firstPaymentDate"] });
    expect(v1rows[0]).not.toHaveProperty("firstPaymentDate");
  });

  it("v1 sends boolean flags as 0/1 and v2 as booleans", async () => {
    const bodies: string[] = [];
    const hooks = { beforeRequest: async ({ request }: { request: Request }) => void bodies.push(await request.clone().text()) };
    await using v1 = client("v1", { hooks });
    await using v2 = client("v2", { hooks });
    await v1.reports.dealerStatistics({ ...may, subOn: true, groupByDay: false });
    await v2.reports.dealerStatistics({ ...may, subOn: true, groupByDay: false });
    const sent = bodies.filter((b) => b.includes("groupByDay"));
    expect(sent[0]).toContain('"Body":{"Params":{"dateFrom":"20240501000000","dateTo":"20240507235959","subOn":1,"groupByDay":0}}');
    expect(sent[1]).toContain('"params":{"dateFrom":"20240501000000","dateTo":"20240507235959","subOn":true,"groupByDay":false}');
  });

  it("v1-only parameters are refused on v2 before anything is sent", async () => {
    await using v2 = client("v2");
    await v2.user.me();
    const before = sb.portal.stats.requests;
    const err = await v2.reports.cashCollections({ kazPost: 1 } as never).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.message).toContain("kazPost");
    expect(sb.portal.stats.requests).toBe(before);
    await using v1 = client("v1");
    expect(await v1.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240501", kazPost: 0, kassaNova: 1 })).toBeInstanceOf(Array);
  });
});

describe("tokens", () => {
  it("200 concurrent calls on an expired token cause exactly one renewal and no new sign-in", async () => {
    await using p = client("v2");
    await p.user.me();
    const { token, refresh } = { ...sb.portal.stats };
    sb.portal.expireAccessTokens();
    const results = await Promise.all(Array.from({ length: 200 }, () => p.user.me()));
    expect(results.every((r) => r.idUser === 1001)).toBe(true);
    expect(sb.portal.stats.refresh - refresh).toBe(1);
    expect(sb.portal.stats.token - token).toBe(0);
  });

  it("without credentials the client says to sign in first", async () => {
    const p = createPortalClient({ baseUrl: sb.portalUrl });
    await expect(p.user.me()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("after close() the session is over on the server, and the client refuses calls instead of signing in again", async () => {
    const p = client("v2");
    await p.user.me();
    const { logout, token, requests } = { ...sb.portal.stats };
    await p.close();
    expect(sb.portal.stats.logout - logout).toBe(1);
    const err = await p.user.me().catch((e) => e);
    expect(err).toBeInstanceOf(ClientClosedError);
    expect(sb.portal.stats.token - token).toBe(0);
    expect(sb.portal.stats.requests - requests).toBe(1);
    await p.close(); // closing twice is harmless
  });
});

describe("errors", () => {
  it("a wrong password is an AuthenticationError with the service's code and message", async () => {
    for (const version of ["v2", "v1"] as const) {
      const p = client(version as "v2", { credentials: { lgn: "dealer01", psw: "wrong-password-123" } });
      const err = await p.user.profile().catch((e) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect(err).toMatchObject({ serviceCode: SandboxCodes.WRONG_CREDENTIALS, operation: "account.token", attempts: 1 });
      expect(err.message).toMatch(/refused the sign-in.*check the login, the password and the captcha text/);
      if (version === "v2") expect(err.serviceMessage).toBe("wrong login or password");
    }
  });

  it("bad input the client does not catch is refused by the service with its error envelope", async () => {
    await using p = client("v2", { validateRequests: false });
    const err = await p.reports.payments({ idAgent: "1001" as never }).catch((e) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.serviceCode).toBe(SandboxCodes.INVALID_PARAMS);
    expect(err.message).toContain("/params/idAgent");
  });

  it("bad input is caught by the client first, saying where", async () => {
    await using p = client("v2");
    const err = await p.reports.payments({ dateFrom: "2024/05/01" }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues[0].path).toBe("/dateFrom");
    expect(err.message).toContain("expected yyyyMMdd or yyyyMMddHHmmss digits, a calendar date");
    const err2 = await p.agents.list({ sub: 9 as never }).catch((e) => e);
    expect(err2.issues[0]).toMatchObject({ path: "/sub" });
  });

  it("a period the service refuses is a ServiceError", async () => {
    await using p = client("v1");
    await expect(p.reports.payments({ dateFrom: "20230101", dateTo: "20240101" })).rejects.toMatchObject({ serviceCode: SandboxCodes.PERIOD_TOO_LONG });
  });
});

describe("escape hatch", () => {
  it("the openapi-fetch client is reachable, with the same token and base URL", async () => {
    await using p = client("v2");
    await p.user.me();
    const { data, response } = await p.raw.POST("/v2/user/me", { body: { params: {} } });
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ code: 0, result: { idUser: 1001 } });
  });
});

describe("secrets", () => {
  it("no password, token or captcha text in any log line, error or snapshot of a whole session", async () => {
    const lines: string[] = [];
    const captchas: string[] = [];
    const p = createPortalClient({
      baseUrl: sb.portalUrl,
      credentials,
      solveCaptcha: async ({ captchaSession }) => {
        const text = sb.portal.captchaText(captchaSession)!;
        captchas.push(text);
        return text;
      },
      logger: (e) => lines.push(JSON.stringify(e)),
    });
    await p.user.me();
    sb.portal.expireAccessTokens();
    await p.reports.payments({ ...may });
    const errors: unknown[] = [];
    errors.push(await p.reports.payments({ dateFrom: "nonsense" }).catch((e) => e));
    errors.push(await p.account.refresh({ token: "not-a-token" }).catch((e) => e));
    const wrong = client("v2", { credentials: { lgn: "dealer01", psw: "Wr0ng-Secret-Pass" }, logger: (e) => lines.push(JSON.stringify(e)) });
    errors.push(await wrong.user.me().catch((e) => e));
    await p.close();
    const text = [...lines, ...errors.map((e) => `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack}`)].join("\n");
    // The tokens come from the sandbox that issued them, not from log lines (which are redacted already).
    const tokens = sb.portal.issuedTokens();
    const secrets = [defaultPortalUser.psw, "Wr0ng-Secret-Pass", ...captchas, ...tokens];
    expect(lines.length).toBeGreaterThan(10);
    expect(captchas.length).toBeGreaterThan(0);
    expect(tokens.length).toBeGreaterThanOrEqual(4);
    for (const s of secrets) expect(text).not.toContain(s);
    expect(text).toContain("[REDACTED]");
  });
});
