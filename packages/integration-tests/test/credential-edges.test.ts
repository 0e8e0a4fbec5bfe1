// Credentials at the edges, each found by a hostile probe and each a way money moved or a secret
// showed: a cash-out token shared by login alone (a client with a wrong password withdrew on the
// real one's token), another credential variant's fields in the request log, a caller's `fetch`
// that follows redirects itself (a withdrawal re-sent elsewhere taken as done), and retry settings
// no one checked (a billion retries with no wait between them). And the caller's own code failing
// (a captcha solver, a beforeRequest hook) said so, not "a connection error", before anything was sent;
// and a plain http address to another host sent the password unencrypted.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { AuthenticationError, ConfigurationError, createCashoutClient, OutcomeUnknownError, PaysysError } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { createPortalClient, type PortalClientOptions } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, portalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const stored = () => sb.cashout.stats.stored;

describe("a cash-out token is shared only by holders of the same secret", () => {
  it("a client with the right login and a wrong password (or another authType) signs in itself, is refused, and withdraws nothing", async () => {
    for (const store of [undefined, new MemoryStore()]) {
      const real = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, ...(store && { store }) });
      await real.requests.create({ amount: 10 });
      const before = { stored: stored(), authorizations: sb.cashout.stats.authorizations };
      for (const wrong of [
        { ...cashoutCredentials, password: "WRONG" },
        { ...cashoutCredentials, authType: cashoutCredentials.authType + 98, password: "WRONG" },
      ]) {
        const impostor = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: wrong, ...(store && { store }) });
        await expect(impostor.requests.create({ amount: 10 })).rejects.toBeInstanceOf(PaysysError);
      }
      // Each impostor asked for a token of its own and was refused (the sandbox counts only tokens it
      // issued); the real token was not taken, nor killed by a new one: it still works.
      expect([stored() - before.stored, sb.cashout.stats.authorizations - before.authorizations]).toEqual([0, 0]);
      await real.requests.create({ amount: 11 });
      expect([stored() - before.stored, sb.cashout.stats.authorizations - before.authorizations]).toEqual([1, 0]);
    }
  });

  it("two clients with the same secret still share one token: one authorization for both", async () => {
    const store = new MemoryStore();
    const before = sb.cashout.stats.authorizations;
    const a = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store });
    const b = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: { ...cashoutCredentials }, store });
    await Promise.all([a.requests.create({ amount: 1 }), b.requests.create({ amount: 2 })]);
    expect(sb.cashout.stats.authorizations - before).toBe(1);
  });

  it("the store holds no password: only the token and a salted hash beside it", async () => {
    const store = new MemoryStore();
    await createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store }).requests.create({ amount: 3 });
    const dump = JSON.stringify(inspect(store, { depth: 20, showHidden: true }));
    expect(dump).not.toContain(cashoutCredentials.password);
  });
});

describe("another credential variant's fields are secrets", () => {
  it("its values, nested and numeric ones too, are in no log line and no error, while authType and the login are shown", async () => {
    const fields = { login: "provider-cert", signature: "CERT-SIGNATURE-SECRET-42", pin: 987654321, key: { private: "NESTED-PRIVATE-KEY" } };
    const lines: string[] = [];
    const client = createCashoutClient({
      baseUrl: sb.cashoutUrl,
      credentials: { authType: 2, id: "provider-cert", fields },
      store: new MemoryStore(),
      logger: (event) => lines.push(JSON.stringify(event)),
    });
    const e = await client.requests.create({ amount: 5 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PaysysError); // the sandbox knows only the password variant
    const request = lines.map((l) => JSON.parse(l)).find((event) => event.type === "request" && event.operation === "auth.authorize");
    expect(request.body).toEqual({ authType: 2, login: "provider-cert", signature: "[REDACTED]", pin: "[REDACTED]", key: "[REDACTED]" });
    const everything = `${lines.join("\n")} ${String(e)} ${inspect(e, { depth: 10 })}`;
    for (const secret of ["CERT-SIGNATURE-SECRET-42", "987654321", "NESTED-PRIVATE-KEY"]) expect(everything).not.toContain(secret);
  });
});

/**
 * A front on loopback: POSTs to the paths `redirectPosts` matches are sent on to the sandbox's origin
 * with a 307 (another origin), GETs under `/hop` to the same path without it on this origin with a 302; the
 * rest it passes to the sandbox itself.
 */
async function startFront(target: string, redirectPosts = /\/cash-out-request$/): Promise<{ url: string; close(): Promise<void>; redirected: string[] }> {
  const origin = new URL(target).origin;
  const redirected: string[] = [];
  const read = async (req: IncomingMessage) => {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    return Buffer.concat(parts);
  };
  const server: Server = createServer(async (req, res) => {
    const path = req.url ?? "/";
    const body = await read(req);
    if (req.method === "POST" && redirectPosts.test(path)) {
      redirected.push(path);
      res.writeHead(307, { location: `${origin}${path}` }).end();
      return;
    }
    if (req.method === "GET" && path.startsWith("/hop/")) {
      redirected.push(path);
      res.writeHead(302, { location: path.slice("/hop".length) }).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k))) as Record<string, string>;
    const answer = await fetch(`${origin}${path.replace(/^\/hop\//, "/")}`, { method: req.method, headers, body: body.length ? body : undefined });
    res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    redirected,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** An ordinary `fetch` wrapper that passes the method, headers, body and signal on, but not `redirect`: it follows redirects itself. */
const followingFetch = (url: string | URL | Request, init?: RequestInit) => fetch(url, { method: init?.method, headers: init?.headers, body: init?.body, signal: init?.signal });

describe("a fetch that follows redirects itself", () => {
  it("a withdrawal it re-sent to another origin is not taken as done: its outcome is unknown, and its key is never sent again", async () => {
    const front = await startFront(sb.cashoutUrl);
    try {
      const path = new URL(sb.cashoutUrl).pathname.replace(/\/$/, "");
      const client = createCashoutClient({ baseUrl: `${front.url}${path}`, credentials: cashoutCredentials, store: new MemoryStore(), fetch: followingFetch });
      const e = await client.requests.create({ amount: 7 }, { idempotencyKey: "followed-1" }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(OutcomeUnknownError);
      expect(String(e)).toContain("followed a redirect");
      expect(front.redirected).toHaveLength(1);
      await expect(client.requests.create({ amount: 7 }, { idempotencyKey: "followed-1" })).rejects.toBeInstanceOf(OutcomeUnknownError);
      expect(front.redirected).toHaveLength(1); // not sent again
    } finally {
      await front.close();
    }
  });

  it("a read it followed on the same origin is still answered", async () => {
    const front = await startFront(sb.fiscalUrl);
    try {
      const path = new URL(sb.fiscalUrl).pathname.replace(/\/$/, "");
      const fiscal = createFiscalClient({ baseUrl: `${front.url}/hop${path}`, credentials: fiscalCredentials, fetch: followingFetch });
      expect(Array.isArray(await fiscal.kkms.list())).toBe(true);
      expect(front.redirected.length).toBeGreaterThan(0);
    } finally {
      await front.close();
    }
  });

  it("a sign-in it re-sent to another origin is refused, and no withdrawal is sent on its token", async () => {
    const front = await startFront(sb.cashoutUrl, /\/authorize$/);
    try {
      const path = new URL(sb.cashoutUrl).pathname.replace(/\/$/, "");
      const client = createCashoutClient({ baseUrl: `${front.url}${path}`, credentials: cashoutCredentials, store: new MemoryStore(), fetch: followingFetch });
      const before = sb.cashout.stats.stored;
      const e = await client.requests.create({ amount: 8 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(PaysysError);
      expect(String(e)).toContain("followed a redirect");
      expect(front.redirected).toHaveLength(1);
      expect(sb.cashout.stats.stored).toBe(before);
    } finally {
      await front.close();
    }
  });
});

describe("retry settings are checked when the client is made", () => {
  it.each([{ maxRetries: 1e9 }, { maxRetries: -1 }, { maxRetries: 2.5 }, { baseDelayMs: -1000 }, { maxDelayMs: -5 }, { retryAfterCapMs: -1 }, { baseDelayMs: Number.NaN }])(
    "%o is a ConfigurationError, before anything is sent",
    (retry) => {
      const before = sb.cashout.stats.requests;
      expect(() => createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, retry })).toThrow(ConfigurationError);
      expect(() => createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, retry })).toThrow(ConfigurationError);
      expect(sb.cashout.stats.requests).toBe(before);
    },
  );

  it("the bounds themselves are taken", () => {
    expect(() =>
      createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, retry: { maxRetries: 10, baseDelayMs: 0, maxDelayMs: 0, retryAfterCapMs: 0 } }),
    ).not.toThrow();
  });
});

describe("the caller's own code failing is said to be so, before anything is sent", () => {
  const portal = (solveCaptcha: PortalClientOptions["solveCaptcha"]) => createPortalClient({ baseUrl: sb.portalUrl, credentials: portalCredentials, solveCaptcha });

  it.each([
    ["throws", async () => Promise.reject(new Error("solver down"))],
    ["answers undefined", async () => undefined as unknown as string],
    ["answers an empty text", async () => ""],
    ["answers a number", async () => 1234 as unknown as string],
  ])("a captcha solver that %s: an AuthenticationError naming solveCaptcha, and no sign-in sent", async (_, solveCaptcha) => {
    const before = sb.portal.stats.token;
    const e = await portal(solveCaptcha)
      .user.profile()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthenticationError);
    expect((e as Error).message).toContain("solveCaptcha");
    expect((e as Error).message).toContain("the sign-in was not sent");
    expect(sb.portal.stats.token).toBe(before);
  });

  it.each([
    ["a text", "x"],
    ["a number", 42],
    ["a plain object", { url: 1 }],
  ])("a beforeRequest hook that returns %s: a ConfigurationError naming the hook, and nothing sent", async (_, returned) => {
    const before = sb.cashout.stats.requests;
    const client = createCashoutClient({
      baseUrl: sb.cashoutUrl,
      credentials: cashoutCredentials,
      store: new MemoryStore(),
      hooks: { beforeRequest: () => returned as never },
    });
    const e = await client.requests.create({ amount: 4 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigurationError);
    expect((e as Error).message).toContain("the beforeRequest hook returned");
    expect(sb.cashout.stats.requests).toBe(before);
  });
});

describe("plain http to another host", () => {
  /** A fetch that records what would have gone out, and sends nothing. */
  const capturing = (seen: string[]) => async (url: string | URL | Request) => {
    seen.push(String(url));
    return new Response("{}", { status: 500 });
  };

  it.each(["http://cashout.example.com", "http://10.0.0.7:8080/api", "http://[2001:db8::1]/", "http://127.0.0.1.example.com"])(
    "%s: a ConfigurationError at the first call, and nothing sent, the password least of all",
    async (baseUrl) => {
      const seen: string[] = [];
      const client = createCashoutClient({ baseUrl, credentials: cashoutCredentials, store: new MemoryStore(), fetch: capturing(seen) });
      const e = await client.requests.create({ amount: 1 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ConfigurationError);
      expect((e as Error).message).toContain("plain http to another host");
      expect(seen).toEqual([]);
    },
  );

  it("loopback addresses, https, and allowInsecureHttp: true are taken", async () => {
    for (const baseUrl of ["http://localhost:1/", "http://127.8.0.1:1/", "http://[::1]:1/", "https://cashout.example.com"]) {
      const seen: string[] = [];
      const client = createCashoutClient({ baseUrl, credentials: cashoutCredentials, store: new MemoryStore(), fetch: capturing(seen) });
      await client.requests.create({ amount: 1 }).catch(() => undefined);
      expect(seen.length, baseUrl).toBeGreaterThan(0);
    }
    const seen: string[] = [];
    const allowed = createCashoutClient({
      baseUrl: "http://10.0.0.7:8080",
      allowInsecureHttp: true,
      credentials: cashoutCredentials,
      store: new MemoryStore(),
      fetch: capturing(seen),
    });
    await allowed.requests.create({ amount: 1 }).catch(() => undefined);
    expect(seen).toEqual(["http://10.0.0.7:8080/authorize"]);
  });
});
