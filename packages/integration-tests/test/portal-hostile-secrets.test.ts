// A hostile probe of the portal client (2026-11-28), kept as tests: secrets of the portal client (password, captcha text, tokens) in logs,
// errors, inspect output, and what a hostile or echoing server makes of them.
import { inspect } from "node:util";
import { createPortalClient, PaysysError, type PortalV2Client } from "@paysys/portal";
import { defaultPortalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const TRICKY = { ...defaultPortalUser, idUser: 2002, lgn: "tricky", psw: 'p&ss<w>"rd+ é/\\%41 ü' };

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ portal: { users: [defaultPortalUser, TRICKY] } });
});
afterAll(() => sb.close());

const solver =
  (seen: string[]) =>
  async ({ captchaSession }: { captchaSession: string }) => {
    const t = sb.portal.captchaText(captchaSession) ?? "";
    seen.push(t);
    return t;
  };

function everything(e: unknown): string {
  const parts: string[] = [];
  try {
    parts.push(String(e));
  } catch {}
  try {
    parts.push(JSON.stringify(e));
  } catch {}
  parts.push(inspect(e, { depth: 10, showHidden: true }));
  if (e instanceof Error) parts.push(String(e.stack));
  return parts.join("\n");
}

/**
 * A client given a numeric secret (12345): the first error, a refused call and a service error that
 * quotes the secret are each typed (a number among the secrets broke every later scrub), and the
 * quoted secret is cut out.
 */
async function laterErrorsTyped(p: PortalV2Client, first: unknown): Promise<void> {
  const refused = await p.reports.payments({ dateFrom: "nonsense" }).catch((e) => e);
  sb.faults.add({ path: /account\/captcha/, fault: { kind: "status", status: 400, body: JSON.stringify({ code: 8, message: "no captcha 12345 today" }) } });
  const quoting = await p.requestCaptcha().catch((e) => e);
  const errors = [first, refused, quoting];
  const out = errors.map((e) => `${e?.constructor?.name}: ${String(e?.message).slice(0, 160)}`).join("\n");
  for (const e of errors) expect(e, out).toBeInstanceOf(PaysysError);
  expect(quoting.message, out).not.toContain("12345");
}

/** A client of the user with the tricky password that keeps its log lines and the captcha texts it solved. */
function tricky() {
  const lines: string[] = [];
  const captchas: string[] = [];
  const p = createPortalClient({
    baseUrl: sb.portalUrl,
    credentials: { lgn: TRICKY.lgn, psw: TRICKY.psw },
    solveCaptcha: solver(captchas),
    logger: (e) => lines.push(JSON.stringify(e)),
  }) as PortalV2Client;
  return { lines, captchas, p };
}

describe("probe1 secrets", () => {
  it("a solver that returns a number (JS caller): typed error, now and on later calls", async () => {
    const p = createPortalClient({
      baseUrl: sb.portalUrl,
      credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw },
      solveCaptcha: (async () => 12345) as never,
    }) as PortalV2Client;
    await laterErrorsTyped(p, await p.user.me().catch((e) => e));
  });

  it("signIn with a numeric psw (JS caller): typed error, later calls typed", async () => {
    const p = createPortalClient({ baseUrl: sb.portalUrl }) as PortalV2Client;
    const c = await p.requestCaptcha();
    await laterErrorsTyped(p, await p.signIn({ lgn: "dealer01", psw: 12345 as never, captcha: "x", captchaSession: c.captchaSession }).catch((e) => e));
  });

  it("signIn(undefined) and signIn(null) are typed errors", async () => {
    const p = createPortalClient({ baseUrl: sb.portalUrl }) as PortalV2Client;
    const e1 = await p.signIn(undefined as never).catch((e) => e);
    const e2 = await p.signIn(null as never).catch((e) => e);
    const out = [e1, e2].map((e) => `${e?.constructor?.name}: ${String(e?.message).slice(0, 160)}`);
    expect(e1, out.join("\n")).toBeInstanceOf(PaysysError);
    expect(e2, out.join("\n")).toBeInstanceOf(PaysysError);
  });

  for (const as of ["json", "text", "html"] as const) {
    it(`echoing server (${as}) on account.token with a tricky password shows no secret`, async () => {
      const lines: string[] = [];
      const captchas: string[] = [];
      sb.faults.add({ path: /account\/token/, fault: { kind: "echo", status: 400, as, code: 7 } });
      const p = createPortalClient({
        baseUrl: sb.portalUrl,
        credentials: { lgn: TRICKY.lgn, psw: TRICKY.psw },
        solveCaptcha: solver(captchas),
        logger: (e) => lines.push(JSON.stringify(e)),
      }) as PortalV2Client;
      const e = await p.user.me().catch((x) => x);
      const text = `${everything(e)}\n${lines.join("\n")}`;
      expect(e).toBeInstanceOf(PaysysError);
      for (const s of [TRICKY.psw, ...captchas]) expect(text, `secret ${s} in:\n${text.slice(0, 2000)}`).not.toContain(s);
      // partial forms of the password
      for (const piece of ["p&ss", "p&amp;ss", "p%26ss", 'w>\\"rd', "rd+ é", "rd%2B"]) expect(text, `piece ${piece}`).not.toContain(piece);
    });

    it(`echoing server (${as}) on a report shows neither token nor password`, async () => {
      const { lines, captchas, p } = tricky();
      await p.user.me();
      sb.faults.add({ path: /report\/payments/, fault: { kind: "echo", status: 400, as, code: 9 } });
      const e = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240502" }).catch((x) => x);
      await p.close();
      const text = `${everything(e)}\n${lines.join("\n")}`;
      expect(e).toBeInstanceOf(PaysysError);
      for (const s of [TRICKY.psw, ...captchas, ...sb.portal.issuedTokens()]) expect(text, `secret ${s}`).not.toContain(s);
    });
  }

  it("echo on refresh and on logout shows no token", async () => {
    const { lines, captchas, p } = tricky();
    await p.user.me();
    sb.portal.expireAccessTokens();
    sb.faults.add({ path: /account\/refresh/, fault: { kind: "echo", status: 400, as: "text" } });
    await p.user.me(); // refresh fails (echo), sign-in again
    sb.faults.add({ path: /account\/logout/, fault: { kind: "echo", status: 400, as: "html" } });
    const e = await p.close().catch((x) => x);
    const text = `${everything(e)}\n${lines.join("\n")}`;
    for (const s of [TRICKY.psw, ...captchas, ...sb.portal.issuedTokens()]) expect(text, `secret ${s}`).not.toContain(s);
  });

  it("inspect of client after sign-in and of a wrong-password error shows no secret", async () => {
    const captchas: string[] = [];
    const p = createPortalClient({ baseUrl: sb.portalUrl, credentials: { lgn: TRICKY.lgn, psw: TRICKY.psw }, solveCaptcha: solver(captchas) }) as PortalV2Client;
    await p.user.me();
    const wrong = createPortalClient({ baseUrl: sb.portalUrl, credentials: { lgn: "tricky", psw: "Zz-wrong-Secret-99" }, solveCaptcha: solver(captchas) }) as PortalV2Client;
    const e = await wrong.user.me().catch((x) => x);
    const text = [inspect(p, { depth: 20, showHidden: true, getters: true }), inspect(Object.getPrototypeOf(p), { depth: 20, showHidden: true }), everything(e)].join("\n");
    for (const s of [TRICKY.psw, "Zz-wrong-Secret-99", ...captchas, ...sb.portal.issuedTokens()]) expect(text, `secret ${s}`).not.toContain(s);
  });

  for (const status of [307, 308, 302] as const) {
    it(`a ${status} redirect to another host on account.token and on a report: nothing follows it there`, async () => {
      const captchas: string[] = [];
      const p = createPortalClient({ baseUrl: sb.portalUrl, credentials: { lgn: TRICKY.lgn, psw: TRICKY.psw }, solveCaptcha: solver(captchas) }) as PortalV2Client;
      sb.faults.clear();
      sb.faults.add({ path: /account\/token/, fault: { kind: "redirect", to: "other-host", status } });
      const e1 = await p.user.me().catch((x) => x);
      await p.user.me();
      sb.faults.add({ path: /report\/payments/, fault: { kind: "redirect", to: "other-host", status } });
      const e2 = await p.reports.payments({ dateFrom: "20240501", dateTo: "20240501" }).catch((x) => x);
      const elsewhere = sb.faults.seen.filter((s) => !s.host.startsWith("127.0.0.1"));
      expect(elsewhere.map((s) => `${s.method} ${s.host}${s.path} auth=${s.authorization ? "yes" : "no"}`)).toEqual([]);
      expect(e1).toBeInstanceOf(PaysysError);
      expect(e2).toBeInstanceOf(PaysysError);
      const text = `${everything(e1)}\n${everything(e2)}`;
      for (const s of [TRICKY.psw, ...captchas, ...sb.portal.issuedTokens()]) expect(text).not.toContain(s);
    });
  }

  it("custom authorize (Basic lgn:token): an echoing server does not get the presented credential into an error", async () => {
    const captchas: string[] = [];
    const presented: string[] = [];
    const p = createPortalClient({
      baseUrl: sb.portalUrl,
      credentials: { lgn: TRICKY.lgn, psw: TRICKY.psw },
      solveCaptcha: solver(captchas),
      authorize: (t) => {
        const v = `Basic ${Buffer.from(`tricky:${t}`).toString("base64")}`;
        presented.push(v.slice(6));
        return { Authorization: v };
      },
    }) as PortalV2Client;
    // sign in (no token presented), then the first call is echoed
    sb.faults.add({ path: /v2\/user\/me/, fault: { kind: "echo", status: 400, as: "json", code: 9 } });
    const e = await p.user.me().catch((x) => x);
    const text = everything(e);
    const real = presented.filter((v) => !v.startsWith(Buffer.from("tricky:probe").toString("base64")));
    expect(real.length).toBeGreaterThan(0);
    for (const v of real) expect(text, text.slice(0, 800)).not.toContain(v);
  });
});
