// A gateway in front of the sandbox that passes the money request on and then lies at the HTTP level
// (a status no HTTP answer has, a 1xx/3xx that is no answer of the service's, an unsolicited
// protocol switch), while the service goes on and does the work. Such an answer is neither success
// nor refusal: the call ends unknown within its timeout, never "not applied" (which invites a
// second payment). Before, a 304, 300, 101 or 099 was read as a refusal, and a 101 with Upgrade
// left the call waiting forever on Node's HTTP.
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
let gateway = "";
/** Raw bytes the gateway writes on the money request's socket 200 ms after passing it on (the service still at work). */
let lie: string | undefined;
const server = createServer((req, res) => {
  const service = new URL(sb.url);
  const upstream = request({ host: service.hostname, port: service.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    if (res.headersSent || res.destroyed || req.socket.destroyed || (lie && /(payment\/create|sales)$/.test(req.url ?? ""))) return answer.resume();
    res.writeHead(answer.statusCode!, answer.headers);
    answer.pipe(res);
  });
  upstream.on("error", () => res.destroy());
  req.pipe(upstream);
  const how = lie;
  if (how === undefined || !/(payment\/create|sales)$/.test(req.url ?? "")) return;
  setTimeout(() => {
    req.socket.write(Buffer.from(how, "latin1"));
    setTimeout(() => req.socket.destroy(), 100); // the lie was whole; the connection is not used again
  }, 200);
});
beforeAll(async () => {
  sb = await startSandbox();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => {
  lie = undefined;
  sb.faults.clear();
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await sb.close();
});
const creates = () => sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length;
const body = '{"errorCode":"0"}';

const lies: [string, string][] = [
  ["a 304 with a body", `HTTP/1.1 304 Not Modified\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
  ["a status 099", `HTTP/1.1 099 Odd\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`],
  ["a 101 without Upgrade", "HTTP/1.1 101 Switching Protocols\r\n\r\n"],
  ["a 300", `HTTP/1.1 300 Multiple Choices\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\n<p/>\n`],
  ["a 101 with Upgrade", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"],
];
describe("a gateway's HTTP-level lie after it passed the payment on", () => {
  for (const [what, bytes, viaFetch] of [...lies, ...lies.filter(([w]) => /304|300|Upgrade/.test(w)).map(([w, b]) => [`${w}, over fetch`, b, true] as const)] as [
    string,
    string,
    boolean?,
  ][]) {
    it(`(${what}) a payment: unknown within its timeout, never "not applied"; it was created`, { timeout: 15_000 }, async () => {
      const shop = createEcommerceClient({
        baseUrl: `${gateway}/ecommerce`,
        ...merchant,
        store: new MemoryStore(),
        landingMs: 2_000,
        timeoutMs: 3_000,
        ...(viaFetch ? { fetch: globalThis.fetch } : {}),
      });
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 1_500 } });
      lie = bytes;
      const params = { amount: 1_000, orderId: `gateway-lie-${what}`, demo: true };
      const started = Date.now();
      const error = await Promise.race([
        shop.payments.create(params).then(
          (v) => ({ resolved: v }),
          (e: unknown) => e,
        ),
        new Promise((r) => setTimeout(() => r("still pending after 8 s (timeoutMs 3000)"), 8_000)),
      ]);
      const took = Date.now() - started;
      lie = undefined;
      await new Promise((r) => setTimeout(r, 1_600)); // the service has done its work
      const seen = { error: (error as Error)?.name ?? String(error), message: (error as Error)?.message, took: took < 8_000, created: creates() };
      expect(seen).toMatchObject({ error: "OutcomeUnknownError", took: true, created: 1 });
    });
  }
});

it('(a 304 with a body) a receipt: unknown, never "not applied"; it was registered', { timeout: 15_000 }, async () => {
  const register = 107;
  const fiscal = createFiscalClient({ baseUrl: `${gateway}/fiscal`, credentials: fiscalCredentials, store: new MemoryStore(), landingMs: 2_000, timeoutMs: 3_000 });
  await fiscal.shifts.open({ IdKkm: register }).catch(() => {});
  const before = sb.fiscal.documents(register).length;
  sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 1_500 } });
  lie = lies[0]![1];
  const receipt = { idKkm: register, IdDomain: 1, Positions: [{ Name: "probe", IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" };
  const error = await fiscal.operations.sale(receipt, { idempotencyKey: "gateway-lie-304" }).catch((e: unknown) => e);
  lie = undefined;
  await new Promise((r) => setTimeout(r, 1_600));
  const seen = { error: (error as Error).name, message: (error as Error).message, registered: sb.fiscal.documents(register).length - before };
  expect(seen).toMatchObject({ error: "OutcomeUnknownError", registered: 1 });
  await fiscal.close();
});
