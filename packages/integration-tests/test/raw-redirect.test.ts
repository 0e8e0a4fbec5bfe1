// The escape hatch `raw` never sends a request that may move money twice. It cannot tell from a
// path what a request does, so every request of another method than GET or HEAD is sent once and
// never again elsewhere, as the SDK's own money methods are: a withdrawal POSTed through
// `cashout.raw` followed a same-host 307 and reached the service twice (a hostile probe; a gateway
// may redirect after passing a request on, as nginx's `error_page 504 <url>` does). A read through
// `raw` still follows a redirect on the same origin.
import { createCashoutClient } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { defaultCashoutUser, SANDBOX_PASSWORD_AUTH_TYPE, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { merchant } from "./credentials.js";

type Raw = Record<"GET" | "POST", (path: string, init: object) => Promise<{ response: Response }>>;
const credentials = { authType: SANDBOX_PASSWORD_AUTH_TYPE, login: defaultCashoutUser.login, password: defaultCashoutUser.password };
/** What a raw request answered: its status, or the name of the error it threw. */
const outcome = (sent: Promise<{ response: Response }>) =>
  sent.then(
    (r) => String(r.response.status),
    (e: unknown) => (e as Error).name,
  );

describe("raw: a request that may move money is never sent again elsewhere", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterEach(() => sb.faults.clear());
  afterAll(() => sb.close());
  const reached = (method: string, path: string) => sb.faults.seen.filter((s) => s.method === method && s.path === path).length;

  for (const status of [307, 308] as const) {
    it(`a withdrawal POSTed through cashout.raw, answered ${status} on the same host: sent once, a RedirectError`, async () => {
      const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials, store: new MemoryStore() });
      await cashout.requests.create({ amount: 50_000, account: "77771112233" }); // signs in
      sb.faults.clear();
      sb.faults.add({ path: "/cashout/cash-out-request", fault: { kind: "redirect", to: "same-host", status }, times: 1 });
      const raw = cashout.raw as unknown as Raw;
      const answer = await outcome(raw.POST("/cash-out-request", { body: { amount: 50_000, account: "77771112233" }, headers: { Accept: "application/json" } }));
      expect({ answer, reached: reached("POST", "/cashout/cash-out-request") }).toEqual({ answer: "RedirectError", reached: 1 });
    });
  }

  it("a payment POSTed through ecommerce.raw, answered 307: sent once; a read through raw still follows", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const raw = shop.raw as unknown as Raw;
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "redirect", to: "same-host", status: 307 }, times: 1 });
    expect(await outcome(raw.POST("/payment/create", { body: { amount: 1_000, orderId: "raw-307" } }))).toBe("RedirectError");
    expect(reached("POST", "/ecommerce/payment/create")).toBe(1);

    sb.faults.add({ path: "/ecommerce/payment/getcert/pem", fault: { kind: "redirect", to: "same-host", status: 307 }, times: 1 });
    expect(await outcome(raw.GET("/payment/getcert/pem", { parseAs: "text" }))).toBe("200");
    expect(reached("GET", "/ecommerce/payment/getcert/pem")).toBe(2);
  });
});
