// Proves that one real callback cannot be turned into several events, nor its unchecked fields swapped:
// a confirmed 'paid' callback replayed with errCode changed once reached the merchant's code 5 times, and
// a forged copy delivered first decided demo/metadata/cardToken. Also: id variants, numbers written as
// strings, and 50 simultaneous deliveries each reach the merchant's function at most once.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MemoryStore } from "@paysys/core";
import { type CallbackEvent, createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ ecommerce: { callbackRetryMs: 25 } });
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const M = merchant.merchantId;
/** The status query answers `body` (the gateway's word the callbacks are checked against). */
const statusSays = (body: unknown) =>
  sb.faults.add({ path: "/ecommerce/payment/status", fault: { kind: "status", status: 200, body: JSON.stringify(body), contentType: "application/json" }, times: 1_000 });
const shop = (callbacks: object = {}) =>
  createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore(), callbacks: { allowedAddresses: "any", ...callbacks } });

describe("dedupe key", () => {
  it("a confirmed 'paid' callback replayed with errCode changed or removed reaches the processor once", async () => {
    statusSays({ id: "t-e1", orderId: "o-e1", merchantId: M, amount: 5_000, status: 1 });
    const s = shop();
    const seen: CallbackEvent[] = [];
    const base = { id: "t-e1", orderId: "o-e1", merchantId: M, amount: 5_000, status: 1 };
    const answers: number[] = [];
    for (const extra of [{ errCode: 0 }, {}, { errCode: 7 }, { errCode: 220 }, { errCode: -1 }]) {
      answers.push((await s.callbacks.handle(JSON.stringify({ ...base, ...extra }), {}, (e) => void seen.push(e))).status);
    }
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(seen.map((e) => e.status)).toEqual([1]);
  });

  it("a forged copy whose demo differs from the status answer is refused, and the genuine callback after it is processed as sent", async () => {
    statusSays({ id: "t-d1", orderId: "o-d1", merchantId: M, amount: 5_000, status: 1, demo: true });
    const s = shop();
    const seen: CallbackEvent[] = [];
    const forged = { id: "t-d1", orderId: "o-d1", merchantId: M, amount: 5_000, status: 1, errCode: 0, demo: false, metadata: { sku: "gold-bar" }, cardToken: "tok-attacker" };
    const genuine = { ...forged, demo: true, metadata: { sku: "pencil" }, cardToken: "tok-buyer" };
    expect((await s.callbacks.handle(JSON.stringify(forged), {}, (e) => void seen.push(e))).status).toBe(400);
    expect(seen).toEqual([]);
    expect((await s.callbacks.handle(JSON.stringify(genuine), {}, (e) => void seen.push(e))).status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.demo).toBe(true);
    expect(seen[0]!.metadata).toEqual({ sku: "pencil" });
    expect(seen[0]!.cardToken).toBe("tok-buyer");
  });

  it("a real paid callback from the sandbox, replayed from an allowed address with errCode absent or changed, is acknowledged but not processed again", async () => {
    const s = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, callbacks: { allowedAddresses: ["127.0.0.1"] } });
    const seen: CallbackEvent[] = [];
    const server = createServer(s.callbacks.nodeHandler((e) => void seen.push(e)));
    await once(server.listen(0, "127.0.0.1"), "listening");
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cb`;
    try {
      const p = await s.payments.create({ amount: 7_777, callbackUrl: url, customerData: { cardData: { pan: TestCards.success, month: 1, year: 2032, cvv: "321" } } });
      await vi.waitFor(() => expect(seen).toHaveLength(1));
      const first = seen[0]!;
      expect(first.orderId).toBe(p.orderId);
      expect(first.status).toBe(1);
      const answers: number[] = [];
      for (const errCode of [undefined, 1, 2, 3]) {
        const body: Partial<CallbackEvent> = { ...first, errCode };
        if (errCode === undefined) delete body.errCode;
        const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
        answers.push(r.status);
      }
      expect(answers).toEqual([200, 200, 200, 200]);
      expect(seen).toHaveLength(1);
    } finally {
      server.close();
    }
  });
});

describe("normalisation", () => {
  it("with a status answer naming no id, id variants of one transaction reach the processor once", async () => {
    statusSays({ orderId: "o-n1", merchantId: M, amount: 5_000, status: 1 });
    const s = shop();
    const seen: string[] = [];
    const answers: number[] = [];
    for (const id of ["t-n1", "t-n1 ", "T-N1", "ｔ-ｎ1", "t-n1\u200b"]) {
      answers.push((await s.callbacks.handle(JSON.stringify({ id, orderId: "o-n1", merchantId: M, amount: 5_000, status: 1 }), {}, (e) => void seen.push(e.id))).status);
    }
    expect(answers).toEqual([200, 200, 200, 200, 200]);
    expect(seen).toEqual(["t-n1"]);
  });

  it("orderId variants are neither acknowledged nor processed when the status answer names the exact orderId", async () => {
    statusSays({ id: "t-n2", orderId: "o-n2", merchantId: M, amount: 5_000, status: 1 });
    const s = shop();
    let calls = 0;
    const refused: boolean[] = [];
    for (const orderId of ["o-n2 ", "O-N2", "ｏ-ｎ2", "o-n2\u0000"]) {
      const a = await s.callbacks.handle(JSON.stringify({ id: "t-n2", orderId, merchantId: M, amount: 5_000, status: 1 }), {}, () => {
        calls++;
      });
      // 503 today (the status query refuses an answer about another order): the gateway comes again, and is refused again.
      refused.push(a.status >= 400 && !a.body.accepted);
    }
    expect(refused).toEqual([true, true, true, true]);
    expect(calls).toBe(0);
  });
});

describe("types", () => {
  // [field, raw JSON value, expected answer, what the processor sees (undefined: not called)]
  const cases: [string, string, number, { amount: number; status: number } | undefined][] = [
    ["status", '"1"', 400, undefined],
    ["errCode", '"0"', 400, undefined],
    ["amount", "5000.0", 200, { amount: 5_000, status: 1 }],
    ["amount", "9007199254740993", 400, undefined],
    ["status", "1.0", 200, { amount: 5_000, status: 1 }],
    ["status", "true", 400, undefined],
    ["id", "123", 400, undefined],
  ];
  for (const [field, value, expected, event] of cases) {
    it(`${field} written as ${value} is answered ${expected}${event ? " and reaches the processor as numbers" : " and never reaches the processor"}`, async () => {
      statusSays({ id: "t-ty", orderId: "o-ty", merchantId: M, amount: 5_000, status: 1 });
      const fields: Record<string, string> = { id: '"t-ty"', orderId: '"o-ty"', merchantId: JSON.stringify(M), amount: "5000", status: "1" };
      fields[field] = value;
      const raw = `{${Object.entries(fields)
        .map(([k, v]) => `"${k}":${v}`)
        .join(",")}}`;
      const seen: CallbackEvent[] = [];
      const a = await shop().callbacks.handle(raw, {}, (e) => void seen.push(e));
      expect(a.status).toBe(expected);
      if (event) {
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject(event);
      } else {
        expect(seen).toEqual([]);
      }
    });
  }
});

describe("concurrency", () => {
  it("the same callback on 50 connections at once reaches the processor once; the others are answered 200 or 409, never refused", async () => {
    statusSays({ id: "t-c1", orderId: "o-c1", merchantId: M, amount: 5_000, status: 1 });
    const s = shop();
    let calls = 0;
    const raw = JSON.stringify({ id: "t-c1", orderId: "o-c1", merchantId: M, amount: 5_000, status: 1 });
    const slowProcessor = async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 200));
    };
    const answers = await Promise.all(Array.from({ length: 50 }, () => s.callbacks.handle(raw, {}, slowProcessor)));
    const statuses = answers.map((a) => a.status);
    expect(calls).toBe(1);
    expect(statuses.filter((x) => x !== 200 && x !== 409)).toEqual([]);
    expect(statuses).toContain(200);
    // A delivery answered 409 comes again: it is then acknowledged without a second call.
    expect((await s.callbacks.handle(raw, {}, slowProcessor)).status).toBe(200);
    expect(calls).toBe(1);
  });
});
