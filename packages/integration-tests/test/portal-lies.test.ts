// The portal's reports as a hostile service answers them: rows of the wrong shape are refused (by
// default, and a lone object is no one-row report even unchecked), a page of text, JSON or any bytes
// that are no zip in place of a workbook is a typed error (an HTML login page was returned as the
// file), and no password, captcha text or token shows; bad input is refused before sending.
import { inspect } from "node:util";
import { createPortalClient, type PortalClientOptions, type PortalV2Client, UnexpectedResponseError } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalCredentials as credentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
const captchas: string[] = [];
const client = (extra: Partial<PortalClientOptions> = {}) =>
  createPortalClient({
    baseUrl: sb.portalUrl,
    credentials,
    solveCaptcha: async ({ captchaSession }) => {
      const t = sb.portal.captchaText(captchaSession) ?? "";
      captchas.push(t);
      return t;
    },
    ...extra,
  } as PortalClientOptions) as PortalV2Client;
const period = { dateFrom: "20240501", dateTo: "20240503", subOn: true };
const lie = (body: string, contentType = "application/json") => sb.faults.add({ path: /report\/cashs/, fault: { kind: "status", status: 200, body, contentType } });

describe("portal reports as a hostile service answers them", () => {
  for (const [name, body] of [
    ["rows that are numbers", JSON.stringify({ code: 0, result: [1, 2, 3] })],
    ["rows that are strings", JSON.stringify({ code: 0, result: ["a"] })],
    ["result an object", JSON.stringify({ code: 0, result: { a: 1 } })],
    ["result null", JSON.stringify({ code: 0, result: null })],
    ["rows with nulls", JSON.stringify({ code: 0, result: [null, { a: 1 }] })],
    ["no result", JSON.stringify({ code: 0 })],
  ] as const) {
    // Checked by default; a lone object is refused even by a client that turned the check off.
    for (const validateResponses of name === "result an object" ? [undefined, false] : [undefined]) {
      it(`${name} (validateResponses ${validateResponses}) is a typed error`, async () => {
        const p = client({ validateResponses });
        await p.user.me();
        lie(body);
        const r = await p.reports.cashCollections(period).catch((e) => e);
        expect(r, inspect(r)).toBeInstanceOf(Error);
        expect((r as Error).constructor.name).not.toMatch(/^(Error|TypeError|RangeError|SyntaxError)$/);
      });
    }
  }
  for (const [name, body, ct] of [
    ["json reporting success as xlsx", JSON.stringify({ code: 0, data: [] }), "application/json"],
    ["html as xlsx", "<html>login</html>", "text/html"],
    ["a page sent as octet-stream", "<html>login</html>", "application/octet-stream"],
    ["an empty octet-stream", "", "application/octet-stream"],
  ] as const) {
    it(`xlsx: ${name} is a typed error`, async () => {
      const p = client();
      await p.user.me();
      lie(body, ct);
      const r = await p.reports
        .cashCollections({ ...period, format: "xlsx" })
        .then(async (f) => ({
          file: f,
          bytes: Buffer.from(await f.bytes())
            .toString("latin1")
            .slice(0, 40),
        }))
        .catch((e) => e);
      expect(r, inspect(r, { depth: 1 })).toBeInstanceOf(UnexpectedResponseError);
    });
  }
  it("captcha text, password, tokens not in inspect/JSON of client", async () => {
    const p = client();
    await p.user.me();
    const text = [inspect(p, { depth: 10, showHidden: true }), JSON.stringify(p), String(p)].join("\n");
    for (const s of [credentials.psw, ...captchas, ...sb.portal.issuedTokens()]) expect(text).not.toContain(s);
  });
  it("echo fault on token (wrong captcha) does not leak psw or captcha", async () => {
    sb.faults.add({ path: /account\/token/, fault: { kind: "echo", status: 400, as: "json", code: 7 } });
    const lines: string[] = [];
    const p = client({ logger: (e) => lines.push(JSON.stringify(e)) });
    const e = await p.user.me().catch((x) => x);
    const text = [...lines, inspect(e, { depth: 10 }), JSON.stringify(e), String(e?.stack)].join("\n");
    for (const s of [credentials.psw, ...captchas]) expect(text).not.toContain(s);
  });
  it("signIn by hand with echo fault: captcha text not leaked", async () => {
    const p = createPortalClient({ baseUrl: sb.portalUrl });
    const ch = await p.requestCaptcha();
    const cap = sb.portal.captchaText(ch.captchaSession)!;
    sb.faults.add({ path: /account\/token/, fault: { kind: "echo", status: 500, as: "text" } });
    const e = await p.signIn({ ...credentials, captcha: cap, captchaSession: ch.captchaSession }).catch((x) => x);
    const text = [inspect(e, { depth: 10 }), JSON.stringify(e), String(e?.stack), inspect(p, { depth: 10, showHidden: true })].join("\n");
    for (const s of [credentials.psw, cap]) expect(text).not.toContain(s);
  });
  it("bad input types and misspelt fields refused before sending", async () => {
    const p = client();
    await p.user.me();
    const wrong: string[] = [];
    for (const bad of [
      { dateFrom: 20240501 },
      { dateFrom: "20240501", subOn: "true" },
      { dateFrom: "20240501", idAgent: "0x10" },
      { dateFrom: "20240501", idAgent: 1e3 + 0.5 },
      { dateFrom: "20240501", idAgnet: 1 },
      { dateFrom: { year: 2024, month: 13, day: 1 } },
      { dateFrom: new Date(NaN) },
      { dateFrom: "20240501", idAgent: NaN },
      { dateFrom: "20240501", dateTo: "20240502", idAgent: 0.1 + 0.2 },
    ]) {
      const before = sb.portal.stats.requests;
      const e = await p.reports.cashCollections(bad as never).catch((x) => x);
      if (e?.constructor?.name !== "RequestValidationError" || sb.portal.stats.requests !== before) wrong.push(`${inspect(bad)} -> ${inspect(e, { depth: 0 }).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });
});
