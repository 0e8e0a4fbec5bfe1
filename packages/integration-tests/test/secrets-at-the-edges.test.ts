// Secrets at the edges of a call, each found by a hostile probe: an error a custom `fetch` throws
// that quotes the request (kept whole as the SDK error's `cause`, which `console.error` and
// `util.inspect` print), a user and password in `baseUrl` (in the log's address and in the
// ConfigurationError of a bad one), and a caller's own credential header (`X-Api-Key`) in the log.
import { inspect } from "node:util";
import { ConfigurationError, ConnectionError, createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

/** Everything a log of the error could show: its text, its JSON, and Node's inspection of it with its causes. */
const shown = (e: unknown) => `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack} ${inspect(e, { depth: 10 })}`;

/** A `fetch` wrapper that fails as some do: its error quotes the request, and keeps it as a property. */
const echoingFetch = async (url: string | URL | Request, init?: RequestInit) => {
  const headers = JSON.stringify(Object.fromEntries(new Headers(init?.headers)));
  throw Object.assign(new TypeError(`fetch failed: ${init?.method} ${String(url)} headers=${headers} body=${String(init?.body)}`), {
    code: "ECONNREFUSED",
    request: { url: String(url), headers, body: init?.body },
    cause: Object.assign(new Error(`connect ECONNREFUSED, sending ${String(init?.body)}`), { code: "ECONNREFUSED", syscall: "connect" }),
  });
};

it("a custom fetch's error that quotes the password: the ConnectionError, its cause and the cause's cause show none of it, and keep the error's name and code", async () => {
  const password = "Echoed-Secret-PW-1";
  const fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: { ...fiscalCredentials, password }, fetch: echoingFetch, retry: { maxRetries: 0 } });
  const e = await fiscal.kkms.list().catch((x: unknown) => x);
  expect(e).toBeInstanceOf(ConnectionError);
  expect(shown(e)).not.toContain(password);
  const cause = (e as Error).cause as Error & { code?: string; cause?: Error & { syscall?: string } };
  expect(cause).toBeInstanceOf(Error);
  expect([cause.name, cause.code, cause.cause?.syscall]).toEqual(["TypeError", "ECONNREFUSED", "connect"]);
  expect(cause.message).toContain("fetch failed");
});

it("a custom fetch's error that quotes the Basic header: neither the header nor the password in the error or its cause", async () => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, fetch: echoingFetch, retry: { maxRetries: 0 } });
  const e = await shop.payments.status({ orderid: "o-1" } as never).catch((x: unknown) => x);
  expect(e).toBeInstanceOf(ConnectionError);
  const basic = Buffer.from(`${merchant.merchantId}:${merchant.password}`).toString("base64");
  expect(shown(e)).not.toContain(basic);
  expect(shown(e)).not.toContain(merchant.password);
});

it("a user and password in baseUrl and a caller's X-Api-Key header: in no log line, while the call goes through", async () => {
  const password = "gw-secret-PW-9";
  const apiKey = "caller-api-key-123";
  const lines: string[] = [];
  const fiscal = createFiscalClient({
    baseUrl: sb.fiscalUrl.replace("http://", `http://gw-user:${password}@`),
    credentials: fiscalCredentials,
    logger: (event) => lines.push(JSON.stringify(event)),
  });
  const kkms = await fiscal.kkms.list({}, { headers: { "X-Api-Key": apiKey } } as never);
  expect(Array.isArray(kkms)).toBe(true);
  const requests = lines.filter((l) => l.includes('"type":"request"'));
  expect(requests.length).toBeGreaterThan(0);
  expect(requests.some((l) => l.includes("x-api-key"))).toBe(true);
  expect(lines.filter((l) => l.includes(password) || l.includes("gw-user") || l.includes(apiKey))).toEqual([]);
  await fiscal.close();
});

it.each(["X-Merchant-Key", "Private-Key", "x_client_key", "X-Key-Secret"])(
  "a caller's credential header %s: redacted in the log, and cut out of an error that quotes the request",
  async (name) => {
    const value = "caller-own-key-77";
    const lines: string[] = [];
    const logged = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, logger: (event) => lines.push(JSON.stringify(event)) });
    await logged.kkms.list({}, { headers: { [name]: value } });
    expect(lines.some((l) => l.includes('"type":"request"') && l.toLowerCase().includes(name.toLowerCase()))).toBe(true);
    expect(lines.filter((l) => l.includes(value))).toEqual([]);
    await logged.close();
    const echoed = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, fetch: echoingFetch, retry: { maxRetries: 0 } });
    const e = await echoed.kkms.list({}, { headers: { [name]: value } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(shown(e)).not.toContain(value);
  },
);

it("a bad baseUrl's ConfigurationError shows neither its password nor its query, and an address no request can be made of is refused as one", async () => {
  const cases = ["ftp://u:Cfg-Secret-1@127.0.0.1/", "https://127.0.0.1:9/fiscal?apikey=Cfg-Secret-1", "http://u:Cfg-Secret-1@[::1"];
  for (const baseUrl of cases) {
    const fiscal = createFiscalClient({ baseUrl, credentials: fiscalCredentials });
    const e = await fiscal.kkms.list().catch((x: unknown) => x);
    expect(e, baseUrl).toBeInstanceOf(ConfigurationError);
    expect(shown(e)).not.toContain("Cfg-Secret-1");
  }
});
