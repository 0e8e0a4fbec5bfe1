import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDataSet, defaultFiscalUser, FiscalSandbox, PortalSandbox, type Sandbox, SandboxCodes, startSandbox } from "../src/index.js";

describe("data set", () => {
  it("is the same on every run", () => {
    const a = createDataSet();
    const b = createDataSet();
    expect(a.agents).toEqual(b.agents);
    expect(a.paymentsOn("20240501")).toEqual(b.paymentsOn("20240501"));
    expect(a.paymentsOn("20240501")).not.toEqual(a.paymentsOn("20240502"));
  });
  it("scopes agents as the official sub values say", () => {
    const d = createDataSet();
    expect([...d.scope(1001, 0)]).toEqual([1001]);
    expect(d.scope(1001, 1).has(1001)).toBe(false);
    expect(d.scope(1001, 2).size).toBe(40);
    expect([...d.scope(1001, 3)]).toEqual([1002, 1003, 1004, 1005, 1006, 1007, 1008]);
    expect(d.scope(1001, 4).size).toBe(8);
  });
});

describe("portal handling", () => {
  const portal = new PortalSandbox();
  const post = (path: string, body: unknown, auth?: string) =>
    portal.handle({
      method: "POST",
      path,
      query: new URLSearchParams(),
      body: typeof body === "string" ? body : JSON.stringify(body),
      headers: { authorization: auth },
      remoteAddress: "127.0.0.1",
    });

  it("answers bad input with the error envelope", async () => {
    expect(await post("/v2/report/payments", "{not json")).toMatchObject({ status: 400, json: { code: SandboxCodes.MALFORMED } });
    expect(await post("/v2/agent/list", { params: { sub: 9 } })).toMatchObject({
      status: 200,
      json: { code: SandboxCodes.INVALID_PARAMS, message: expect.stringContaining("/params/sub") },
    });
    expect(await post("/report/payments", { Body: { Params: { subOn: true } } })).toMatchObject({ json: { Code: SandboxCodes.INVALID_PARAMS } });
    expect(await post("/v2/nowhere", {})).toMatchObject({ status: 404 });
    expect(await post("/v2/user/me", { params: {} })).toMatchObject({ status: 401, json: { code: SandboxCodes.UNAUTHORIZED } });
  });

  it("signs in with the captcha once, and every answer passes the spec's validator", async () => {
    await post("/v2/account/captcha", { params: { captchaSession: "s1" } });
    const text = portal.captchaText("s1")!;
    const signIn = await post("/v2/account/token", { params: { lgn: "dealer01", psw: "sandbox-password", captcha: text, captchaSession: "s1" } });
    const { accessToken } = (signIn as { json: { result: { accessToken: string } } }).json.result;
    const again = await post("/v2/account/token", { params: { lgn: "dealer01", psw: "sandbox-password", captcha: text, captchaSession: "s1" } });
    expect(again).toMatchObject({ json: { code: SandboxCodes.WRONG_CREDENTIALS } });
    for (const path of [
      "/v2/user/me",
      "/v2/agent/list",
      "/v2/terminal/list",
      "/v2/report/payments",
      "/v2/report/cashs",
      "/v2/report/turnsterminal",
      "/v2/report/turnsterminalext",
      "/v2/report/remunbyservice",
      "/v2/report/statreport",
    ]) {
      const answer = await post(path, { params: {} }, `Bearer ${accessToken}`);
      expect(answer.status, path).toBe(200);
    }
  });
});

describe("HTTP", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  it("listens on loopback and serves the control endpoints", async () => {
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    await fetch(`${sb.portalUrl}/v2/account/captcha`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ params: { captchaSession: "h1" } }),
    });
    const captcha = await fetch(`${sb.url}/__sandbox/portal/captcha?session=h1`).then((r) => r.json());
    expect(captcha.text).toBe(sb.portal.captchaText("h1"));
    expect((await fetch(`${sb.url}/__sandbox/portal/stats`).then((r) => r.json())).captcha).toBe(1);
    expect((await fetch(`${sb.portalUrl}/v2/user/me`)).status).toBe(405);
  });

  it("lets browsers call it from any page (CORS, with the Authorization header allowed)", async () => {
    const preflight = await fetch(`${sb.portalUrl}/v2/user/me`, {
      method: "OPTIONS",
      headers: { origin: "http://example.test", "access-control-request-headers": "authorization" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("authorization");
  });
});

describe("fiscal handling", () => {
  const fiscal = new FiscalSandbox();
  const call = (method: string, path: string, body: unknown, headers: Record<string, string | undefined> = {}) =>
    fiscal.handle({ method, path, query: new URLSearchParams(), body: JSON.stringify(body), headers, remoteAddress: "127.0.0.1" });

  it("refuses a missing and a malformed Uid with the documented messages, a stale one with its own", async () => {
    const login = (await call("POST", "/auth", { Login: defaultFiscalUser.PhoneLogin, Password: defaultFiscalUser.Password })) as { json: { Data: { Token: string } } };
    const authorization = `Bearer ${login.json.Data.Token}`;
    const opened = await call("POST", "/shifts", { IdKkm: 101 }, { authorization });
    expect(opened).toMatchObject({ status: 200, headers: { uid: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    const receipt = { IdDomain: 1, Total: 10, Cash: 10, Positions: [{ Name: "x", IdSection: 1, Price: 10, Qty: 1 }] };
    expect(await call("POST", "/kkms/101/sales", receipt, { authorization })).toMatchObject({ status: 400, json: { Status: 400, Message: "Заголовок не содержит Uid" } });
    expect(await call("POST", "/kkms/101/sales", receipt, { authorization, uid: "not-a-uuid" })).toMatchObject({ status: 400, json: { Message: "Uid не соответствует формату" } });
    expect(await call("POST", "/kkms/101/sales", receipt, { authorization, uid: "5f0b7b1e-8c2d-4e0a-9b3c-1d2e3f4a5b6c" })).toMatchObject({
      status: 400,
      json: { Message: expect.stringContaining("sandbox message") },
    });
    const uid = opened.headers!.uid!;
    expect(await call("POST", "/kkms/101/sales", { ...receipt, Total: 11, Cash: 11 }, { authorization, uid })).toMatchObject({
      status: 400,
      json: { Message: "Сумма ИТОГО не верна" },
    });
    expect(await call("POST", "/kkms/101/sales", receipt, { authorization, uid })).toMatchObject({ status: 200, headers: { uid: expect.not.stringMatching(uid) } });
  });
});

describe("the server cuts off what a test server must not hold", () => {
  it("answers a body over the limit with 413", async () => {
    const sb = await startSandbox({ maxBodyBytes: 1024 });
    try {
      const r = await fetch(`${sb.portalUrl}/v2/user/me`, { method: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(4096) });
      expect(r.status).toBe(413);
      expect((await r.json()).error).toContain("larger than the sandbox's limit of 1024 bytes");
    } finally {
      await sb.close();
    }
  });
});
