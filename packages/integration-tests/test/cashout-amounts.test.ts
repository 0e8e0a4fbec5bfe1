// Cash-out amounts and options as a hostile caller gives them: an amount is refused before anything
// is sent unless it is a positive number or plain decimal digits within maxAmount ("0x10", ".5",
// -5 and -0 were sent; "0x10" was checked as 16 and sent as text), a maxAmount of NaN or Infinity
// is a ConfigurationError (it checked nothing), one key is sent once, and no secret shows.
import { inspect } from "node:util";
import { type CashoutClientOptions, ConfigurationError, createCashoutClient, RequestValidationError } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { defaultCashoutUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials as credentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
const client = (extra: Partial<CashoutClientOptions> = {}) => createCashoutClient({ baseUrl: sb.cashoutUrl, credentials, store: new MemoryStore(), ...extra });
const limited = () => client({ maxAmount: { value: 100, at: "/amount" } });

describe("cash-out amounts and options as a hostile caller gives them", () => {
  for (const [name, amount] of [
    ["1e3 string", "1e3"],
    ["0x10 string (16 fits, but hex)", "0x1000"],
    ["0b binary", "0b11111111"],
    ["NaN", Number.NaN],
    ["Infinity", Infinity],
    ["huge", 1e308],
    ["bigint-ish string", "99999999999999999999"],
    ["array", [1000]],
    ["boxed", new Number(1000)],
    ["bool", true],
    ["null", null],
    ["'Infinity' string", "Infinity"],
    ["spaces", " 1000 "],
    // Below the maximum, but no amount the service reads as checked ("0x10" is 16 to Number()).
    ["hex below max that means 16", "0x10"],
    ["negative", -5],
    ["-0", -0],
    ["empty string", ""],
    ["string with text", "50 USD"],
    ["fraction string", ".5"],
  ] as const) {
    it(`refuses ${name} before sending`, async () => {
      const before = sb.cashout.stats.stored;
      const e = await limited()
        .requests.create({ amount: amount as never })
        .catch((x) => x);
      expect(e, `got ${inspect(e)}`).toBeInstanceOf(RequestValidationError);
      expect(sb.cashout.stats.stored).toBe(before);
    });
  }
  it("getter amount: check sees 1, wire sees 1e9", async () => {
    const before = sb.cashout.stats.stored;
    let n = 0;
    const params = {
      get amount() {
        return n++ === 0 ? 1 : 1e9;
      },
    };
    const r = await limited()
      .requests.create(params as never)
      .catch((x) => x);
    const sent = sb.cashout.stats.stored - before;
    if (sent) {
      const id = (r as { id: string }).id;
      expect(sb.cashout.request(id)?.body).toMatchObject({ amount: 1 });
    }
  });
  it("toJSON on params swaps the amount after the check", async () => {
    const before = sb.cashout.stats.stored;
    const params = { amount: 1, toJSON: () => ({ amount: 1e9 }) };
    const r = await limited()
      .requests.create(params as never)
      .catch((x) => x);
    if (sb.cashout.stats.stored > before) expect(sb.cashout.request((r as { id: string }).id)?.body).toMatchObject({ amount: 1 });
    else expect(r).toBeInstanceOf(RequestValidationError);
  });
  it("amount object with toJSON", async () => {
    const before = sb.cashout.stats.stored;
    const r = await limited()
      .requests.create({ amount: { toJSON: () => 1e9 } } as never)
      .catch((x) => x);
    expect(r).toBeInstanceOf(RequestValidationError);
    expect(sb.cashout.stats.stored).toBe(before);
  });
  it("mutating params after the call starts: the amount asked is the one checked and sent", async () => {
    const before = sb.cashout.stats.stored;
    const params = { amount: 1 };
    const p = limited().requests.create(params);
    params.amount = 1e9;
    const r = await p;
    expect(sb.cashout.stats.stored).toBe(before + 1);
    expect(sb.cashout.request(String(r.id))?.body).toMatchObject({ amount: 1 });
  });
  for (const value of [Number.NaN, -1, Infinity, "100" as never, 0]) {
    it(`maxAmount.value ${String(value)} is a ConfigurationError or refuses`, async () => {
      let c: ReturnType<typeof client>;
      try {
        c = client({ maxAmount: { value, at: "/amount" } });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigurationError);
        return;
      }
      const before = sb.cashout.stats.stored;
      const e = await c.requests.create({ amount: 1e9 }).catch((x) => x);
      expect(e, `value ${value}: ${inspect(e)}`).toBeInstanceOf(Error);
      expect(sb.cashout.stats.stored).toBe(before);
    });
  }
  it("misspelt nested option maxAmount.vaule is a ConfigurationError", () => {
    expect(() => client({ maxAmount: { vaule: 5, at: "/amount" } as never })).toThrow(ConfigurationError);
  });
  it("same idempotency key concurrently: sent once", async () => {
    const c = client();
    const before = sb.cashout.stats.stored;
    const rs = await Promise.allSettled(Array.from({ length: 5 }, () => c.requests.create({ amount: 3 }, { idempotencyKey: "same-key" })));
    expect(sb.cashout.stats.stored - before, JSON.stringify(rs.map((r) => r.status))).toBe(1);
  });
  it("same key, same store, two clients: sent once", async () => {
    const store = new MemoryStore();
    const a = client({ store }),
      b = client({ store });
    const before = sb.cashout.stats.stored;
    await Promise.allSettled([a.requests.create({ amount: 3 }, { idempotencyKey: "shared-key" }), b.requests.create({ amount: 3 }, { idempotencyKey: "shared-key" })]);
    await b.requests.create({ amount: 3 }, { idempotencyKey: "shared-key" }).catch(() => {});
    expect(sb.cashout.stats.stored - before).toBe(1);
  });
  it("same key, different amount: refused", async () => {
    const c = client();
    await c.requests.create({ amount: 3 }, { idempotencyKey: "reused-key" });
    const before = sb.cashout.stats.stored;
    const e = await c.requests.create({ amount: 4 }, { idempotencyKey: "reused-key" }).catch((x) => x);
    expect(e).toBeInstanceOf(Error);
    expect(sb.cashout.stats.stored).toBe(before);
  });
  it("secrets not in inspect/JSON of client", async () => {
    const c = client({ credentials: { ...credentials, password: "Pr0be-Secret-PW" } });
    await c.requests.create({ amount: 1 }).catch(() => {});
    const c2 = client({
      credentials: { authType: credentials.authType, id: "x", fields: { login: defaultCashoutUser.login, password: "Pr0be-Field-PW", nested: { secret: "Pr0be-Nested" } } },
    });
    const e2 = await c2.requests.create({ amount: 1 }).catch((x) => x);
    const text = [
      inspect(c, { depth: 10, showHidden: true }),
      JSON.stringify(c),
      inspect(c2, { depth: 10, showHidden: true }),
      JSON.stringify(c2),
      inspect(e2, { depth: 10 }),
      JSON.stringify(e2),
      String(e2?.stack),
    ].join("\n");
    for (const s of ["Pr0be-Secret-PW", "Pr0be-Field-PW", "Pr0be-Nested", ...sb.cashout.issuedTokens()]) expect(text).not.toContain(s);
  });
  it("password echoed by the server on 400 is not in the error", async () => {
    sb.faults.add({ path: "/authorize", fault: { kind: "echo", status: 400, as: "json" } });
    const e = await client({ credentials: { authType: credentials.authType, id: "y", fields: { login: "l", password: "Pr0be-Echo-1", pin: { v: "Pr0be-Echo-2" }, n: 123456789 } } })
      .requests.create({ amount: 1 })
      .catch((x) => x);
    const text = [inspect(e, { depth: 10 }), JSON.stringify(e), String(e?.stack)].join("\n");
    for (const s of ["Pr0be-Echo-1", "Pr0be-Echo-2"]) expect(text).not.toContain(s);
  });
});
