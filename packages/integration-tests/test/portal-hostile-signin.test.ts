// A hostile probe of the portal client (2026-11-28), kept as tests: sign-in flows. close() racing a sign-in or a call, close() with an expired token, a
// solver that hangs or throws, timeouts and abort during sign-in, concurrency.
import { AuthenticationError, ClientClosedError, type PortalClientOptions } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalClients } from "./portal-clients.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const portal = portalClients(() => sb);
const { solve } = portal;
const client = (extra: Partial<PortalClientOptions> = {}) => portal.client("v2", extra);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (cond: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await sleep(5);
};
/** Whether an access token is still accepted by the service. */
async function alive(token: string): Promise<boolean> {
  const r = await fetch(`${sb.portalUrl}/v2/user/me`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: '{"params":{}}' });
  return r.status === 200;
}
const lastAccess = () => [...sb.portal.issuedTokens()].filter((t) => t.startsWith("sbx_a_")).at(-1)!;
/** Settles within ms, or says it hung. */
const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([
    p.then(
      (v) => ({ v }),
      (e) => ({ e }),
    ),
    sleep(ms).then(() => ({ hung: true as const })),
  ]);

describe("probe4 close() races", () => {
  it("close() while the first sign-in is under way: no tokens kept and no live session afterwards", async () => {
    const p = client();
    const tokensBefore = sb.portal.stats.token;
    sb.faults.add({ path: /v2\/account\/token/, fault: { kind: "delay", ms: 300 } });
    const call = p.user.me().catch((e) => e);
    await until(() => sb.faults.count("/portal/v2/account/token") > 0 || sb.portal.stats.token > tokensBefore);
    await sleep(20);
    await p.close();
    const r = await call;
    await sleep(50);
    const issued = lastAccess();
    const state = { signedInAfterClose: p.signedIn, callResult: r instanceof Error ? r.constructor.name : "data", sessionAlive: await alive(issued) };
    expect(state).toEqual({ signedInAfterClose: false, callResult: expect.any(String), sessionAlive: false });
  });

  it("close() while a call is in flight that then gets 401: the closed client does not sign in again", async () => {
    const p = client();
    await p.user.me();
    const { token } = { ...sb.portal.stats };
    sb.faults.add({ path: /v2\/user\/me/, fault: { kind: "delay", ms: 300 } });
    const call = p.user.me().catch((e) => e);
    await sleep(100);
    await p.close();
    const r = await call;
    await sleep(50);
    const state = {
      newSignIns: sb.portal.stats.token - token,
      signedInAfterClose: p.signedIn,
      callResult: r instanceof Error ? r.constructor.name : "data",
    };
    expect(state).toEqual({ newSignIns: 0, signedInAfterClose: false, callResult: expect.stringMatching(/Error$/) });
  });

  it("close() after the access token expired ends the session (no live tokens left on the server)", async () => {
    const p = client();
    await p.user.me();
    sb.portal.expireAccessTokens();
    const { token, refresh, captcha } = { ...sb.portal.stats };
    await p.close();
    const issued = lastAccess();
    const state = {
      refreshesDuringClose: sb.portal.stats.refresh - refresh,
      signInsDuringClose: sb.portal.stats.token - token,
      captchasDuringClose: sb.portal.stats.captcha - captcha,
      newestSessionAlive: await alive(issued),
    };
    // One renewal: the logout needs a live access token, and it then names the renewed refresh token.
    expect(state).toEqual({ refreshesDuringClose: 1, signInsDuringClose: 0, captchasDuringClose: 0, newestSessionAlive: false });
  });

  it("close() after expiry when refresh fails: close() does not run a whole captcha sign-in", async () => {
    let solved = 0;
    const p = client({
      solveCaptcha: async (c) => {
        solved++;
        return solve(c);
      },
    });
    await p.user.me();
    sb.portal.expireAccessTokens();
    sb.faults.add({ path: /v2\/account\/refresh/, fault: { kind: "status", status: 401, body: '{"code":4,"message":"revoked"}' } });
    const before = solved;
    await p.close().catch(() => {});
    expect(solved - before, "captchas solved by close()").toBe(0);
  });

  it("close() twice at once logs out once", async () => {
    const p = client();
    await p.user.me();
    const { logout } = { ...sb.portal.stats };
    const results = await Promise.all(
      [p.close(), p.close()].map((c) =>
        c.then(
          () => "ok",
          (e) => `${e.constructor.name}: ${e.message}`,
        ),
      ),
    );
    expect({ results, logouts: sb.portal.stats.logout - logout }).toEqual({ results: ["ok", "ok"], logouts: 1 });
  });
});

describe("probe4 solver and timeouts", () => {
  it("a solver that never answers: the caller's signal still ends the call", async () => {
    const p = client({ solveCaptcha: () => new Promise<string>(() => {}) });
    const r = await within(p.user.me(undefined, { signal: AbortSignal.timeout(300) }), 4000);
    expect(r).not.toHaveProperty("hung");
  });

  it("a solver returning junk: AuthenticationError, next call signs in afresh", async () => {
    let n = 0;
    const p = client({ solveCaptcha: async (c) => (n++ === 0 ? "junk" : solve(c)) });
    await expect(p.user.me()).rejects.toBeInstanceOf(AuthenticationError);
    await expect(p.user.me()).resolves.toMatchObject({ idUser: 1001 });
  });

  it("custom extractTokens returning no access token: nothing sent with 'Bearer undefined'", async () => {
    const auths: string[] = [];
    const p = client({
      extractTokens: () => ({}) as never,
      hooks: { beforeRequest: async ({ request }) => void auths.push(request.headers.get("authorization") ?? "") },
    });
    const e = await p.user.me().catch((x) => x);
    expect({ err: e?.constructor?.name, auths }).not.toMatchObject({ auths: expect.arrayContaining(["Bearer undefined"]) });
  });
});

describe("probe4 concurrency", () => {
  it("30 concurrent first calls: one captcha, one sign-in", async () => {
    const p = client();
    const { captcha, token } = { ...sb.portal.stats };
    const rs = await Promise.all(Array.from({ length: 30 }, () => p.user.me()));
    expect(rs.every((r) => r.idUser === 1001)).toBe(true);
    expect({ captchas: sb.portal.stats.captcha - captcha, tokens: sb.portal.stats.token - token }).toEqual({ captchas: 1, tokens: 1 });
  });

  it("50 concurrent calls when refresh fails: one new sign-in", async () => {
    const p = client();
    await p.user.me();
    sb.portal.expireAccessTokens();
    sb.faults.add({ path: /v2\/account\/refresh/, fault: { kind: "status", status: 500, body: '{"code":1,"message":"down"}' } });
    const { token } = { ...sb.portal.stats };
    const rs = await Promise.all(Array.from({ length: 50 }, () => p.user.me()));
    expect(rs.every((r) => r.idUser === 1001)).toBe(true);
    expect(sb.portal.stats.token - token).toBe(1);
  });

  it("a shell closed before any call refuses signIn and requestCaptcha with ClientClosedError", async () => {
    const p = client();
    await p.close();
    await expect(p.requestCaptcha()).rejects.toBeInstanceOf(ClientClosedError);
    await expect(p.user.me()).rejects.toBeInstanceOf(ClientClosedError);
  });
});
