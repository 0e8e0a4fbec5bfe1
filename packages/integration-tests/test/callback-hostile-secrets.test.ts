// Proves that refusing a callback leaks no secret: a card number placed in orderId or merchantId, a card
// token in a malformed body, or a status query that echoes the password, the Basic header and a PAN never
// shows up in the refusal's error or the logger's events (which merchants print and ship to log stores).
import { inspect } from "node:util";
import { MemoryStore } from "@paysys/core";
import { CallbackRefusedError, createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const M = merchant.merchantId;
const PAN = TestCards.success;
const shop = (extra: object = {}) => createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), callbacks: { allowedAddresses: "any" }, ...extra });
/** Everything a merchant could print of an error. */
const shown = (e: unknown) => `${inspect(e, { depth: 20, showHidden: true })} ${String(e)} ${JSON.stringify(e)}`;

describe("callback values in refusals", () => {
  it("an unconfirmed callback whose orderId is a card number is refused without quoting it", async () => {
    sb.faults.add({
      path: "/ecommerce/payment/status",
      fault: { kind: "status", status: 404, body: JSON.stringify({ error: "not found" }), contentType: "application/json" },
      times: 10,
    });
    const logs: unknown[] = [];
    const s = shop({ logger: (x: unknown) => logs.push(x) });
    const e = await s.callbacks.parse(JSON.stringify({ id: "t-s1", orderId: PAN, merchantId: M, amount: 5_000, status: 1 }), {}).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CallbackRefusedError);
    expect(shown(e)).not.toContain(PAN);
    expect(JSON.stringify(logs)).not.toContain(PAN);
  });

  it("a callback for another merchant whose merchantId is a card number is refused without quoting it", async () => {
    const e = await shop()
      .callbacks.parse(JSON.stringify({ id: "t-s2", orderId: "o", merchantId: PAN, amount: 5_000, status: 1 }), {})
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CallbackRefusedError);
    expect((e as CallbackRefusedError).reason).toBe("merchant");
    expect(shown(e)).not.toContain(PAN);
  });

  it("a malformed callback carrying a card token and a PAN is refused without quoting either", async () => {
    const e = await shop()
      .callbacks.parse(JSON.stringify({ id: "t-s3", orderId: "o", merchantId: M, amount: "x", status: 1, cardToken: 123, pan: PAN, metadata: 5 }), {})
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(CallbackRefusedError);
    expect((e as CallbackRefusedError).reason).toBe("body");
    expect(shown(e)).not.toContain(PAN);
    expect(shown(e)).not.toContain("123");
  });
});

describe("status query answers echoing secrets", () => {
  const basic = Buffer.from(`${M}:${merchant.password}`).toString("base64");
  for (const [status, type] of [
    [500, "application/json"],
    [401, "text/plain"],
    [200, "text/html"],
  ] as const) {
    it(`a status query answering ${status} ${type} that echoes the password, the Basic header, a PAN and the callback's card token: answered 503, and neither the refusal nor the logs show them`, async () => {
      const echo = `pw=${merchant.password} auth=Basic ${basic} pan=${PAN} token=tok-SECRET-9`;
      sb.faults.add({
        path: "/ecommerce/payment/status",
        fault: { kind: "status", status, body: type === "application/json" ? JSON.stringify({ error: echo }) : echo, contentType: type },
        times: 100,
      });
      const logs: unknown[] = [];
      const s = shop({ retry: { maxRetries: 0 }, logger: (x: unknown) => logs.push(x) });
      const raw = JSON.stringify({ id: "t-1", orderId: "o-1", merchantId: M, amount: 5_000, status: 1, cardToken: "tok-SECRET-9" });
      const e = await s.callbacks.parse(raw, {}).catch((x: unknown) => x);
      let calls = 0;
      const a = await s.callbacks.handle(raw, {}, () => {
        calls++;
      });
      expect(e).toBeInstanceOf(CallbackRefusedError);
      expect((e as CallbackRefusedError).reason).toBe("confirmation-failed");
      expect(a.status).toBe(503);
      expect(calls).toBe(0);
      const everything = `${shown(e)} ${JSON.stringify(logs)} ${inspect(logs, { depth: 20 })}`;
      expect([merchant.password, basic, PAN, "tok-SECRET-9"].filter((x) => everything.includes(x))).toEqual([]);
    });
  }
});
