// A money call whose request never left the process is not-applied, not "may have taken effect"
// (the client probe, 2026-12-04). A connection refused, a host that cannot be resolved, a TLS
// handshake that fails, a header value node:http will not write: before, each was a lost answer, an
// OutcomeUnknownError with its intent left pending. For a withdrawal, which nothing can look up, that
// was a request for a person to investigate, on every call made while its host was down.
import { Agent } from "node:http";
import { createServer, type Server, Socket } from "node:net";
import { createCashoutClient } from "@paysys/cashout";
import { createEcommerceClient } from "@paysys/ecommerce";
import { defaultMerchant, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: Error & { outcomeUnknown?: boolean }) => e,
  );
const shop = (baseUrl: string, extra: object = {}) =>
  createEcommerceClient({ merchantId: defaultMerchant.login, password: defaultMerchant.password, baseUrl, landingMs: 50, ...extra });
const payment = (orderId: string) => ({ orderId, amount: 100, callbackUrl: "https://shop.example/cb" });

/** A TCP relay to the sandbox on a port of its own, which can be stopped (connections refused) and started again on the same port. */
async function relay(): Promise<{ url: string; stop(): Promise<void>; start(): Promise<void> }> {
  const target = new URL(sb.url);
  const sockets = new Set<Socket>();
  let server: Server;
  let port = 0;
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((inbound) => {
        const outbound = new Socket();
        sockets.add(inbound).add(outbound);
        outbound.connect(Number(target.port), target.hostname, () => inbound.pipe(outbound).pipe(inbound));
        for (const s of [inbound, outbound]) s.on("error", () => {}).on("close", () => sockets.delete(s));
      });
      server.listen(port, "127.0.0.1", () => {
        port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  await start();
  return {
    url: `http://127.0.0.1:${port}`,
    start,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("a money call whose request never left", () => {
  it("e-commerce: a connection refused is not applied, and nothing is pending", async () => {
    const client = shop("http://127.0.0.1:1/ecommerce");
    const e = await errorOf(client.payments.create(payment("refused-1")));
    expect({ name: e?.name, outcomeUnknown: e?.outcomeUnknown }).toEqual({ name: "ConnectionError", outcomeUnknown: false });
    expect(e?.message).toMatch(/ECONNREFUSED.*never sent/);
    expect((await client.journal.get({ operation: "payments.create", key: "refused-1" }))?.state).toBe("not-applied");
  });

  it("e-commerce: a TLS handshake that fails (https to a plain port) is not applied, and the gateway saw nothing", async () => {
    const created = sb.ecommerce.stats.requests;
    const client = shop(sb.ecommerceUrl.replace("http:", "https:"));
    const e = await errorOf(client.payments.create(payment("tls-1")));
    expect({ name: e?.name, outcomeUnknown: e?.outcomeUnknown }).toEqual({ name: "ConnectionError", outcomeUnknown: false });
    expect((await client.journal.get({ operation: "payments.create", key: "tls-1" }))?.state).toBe("not-applied");
    expect(sb.ecommerce.stats.requests).toBe(created);
  });

  it("e-commerce: a client header node:http will not write is refused at construction, and the gateway saw nothing", async () => {
    const created = sb.ecommerce.stats.requests;
    expect(() => shop(sb.ecommerceUrl, { headers: { "x-note": "line\r\nbreak" } })).toThrow(/\/headers\/x-note must be a header name with a value of one line/);
    expect(sb.ecommerce.stats.requests).toBe(created);
  });

  it("cash-out: a withdrawal on a connection refused is not applied, and is sent once under its key when the host is back", async () => {
    const up = await relay();
    const agent = new Agent({ keepAlive: false }); // each request on a new connection: refused, never half-sent
    const cashout = createCashoutClient({ baseUrl: `${up.url}/cashout`, credentials: cashoutCredentials, agent });
    try {
      await cashout.requests.create({ amount: 1 }, { idempotencyKey: "down-0" }); // signed in, the token kept
      const stored = sb.cashout.stats.stored;
      await up.stop();
      const e = await errorOf(cashout.requests.create({ amount: 2 }, { idempotencyKey: "down-1" }));
      expect({ name: e?.name, outcomeUnknown: e?.outcomeUnknown }).toEqual({ name: "ConnectionError", outcomeUnknown: false });
      expect(await cashout.journal.pending()).toEqual([]);
      await up.start();
      await cashout.requests.create({ amount: 2 }, { idempotencyKey: "down-1" });
      expect(sb.cashout.stats.stored).toBe(stored + 1);
      expect((await cashout.journal.get({ operation: "requests.create", key: "down-1" }))?.state).toBe("applied");
    } finally {
      agent.destroy();
      await up.stop().catch(() => {});
    }
  });
});
