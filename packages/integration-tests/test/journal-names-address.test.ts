// A service's records go under its address spelt one way: two tills of one login whose baseUrl
// differed only in the scheme's case had two journals and two leases on one register, and
// registered one receipt twice (found by a hostile probe).
import { MemoryStore } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { registers: [10, 2] } });
});
afterAll(() => sb.close());

const receipt = (idKkm: number) => ({ idKkm, IdDomain: 1, Positions: [{ Name: "coffee", IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });

it("one store, one login, one idempotency key, baseUrl spelt HTTP:// by one till and http:// by the other: one receipt", async () => {
  const store = new MemoryStore();
  const upper = sb.fiscalUrl.replace(/^http:/, "HTTP:");
  expect(new URL(upper).href).toBe(new URL(sb.fiscalUrl).href);
  const a = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store, holder: "till-a" });
  const b = createFiscalClient({ baseUrl: upper, credentials: fiscalCredentials, store, holder: "till-b" });
  const register = 101;
  await a.shifts.open({ IdKkm: register }).catch(() => {});
  const before = sb.fiscal.stats.documents;
  const first = await a.operations.sale(receipt(register), { idempotencyKey: "order-77" });
  const second = await b.operations.sale(receipt(register), { idempotencyKey: "order-77" }).catch((e: unknown) => e);
  // The same key through the same store must answer the first receipt (or be refused), never make a second.
  expect(sb.fiscal.stats.documents - before).toBe(1);
  expect(second).toEqual(first);
  await a.close();
  await b.close();
});

it("a user and password in baseUrl (a gateway's basic auth) reach no store key and split no register: one receipt, the password nowhere", async () => {
  const store = new MemoryStore();
  // Every text and record the store is handed, as a shared store's keys and rows would hold them.
  const seen: string[] = [];
  const recording = new Proxy(store, {
    get(target, name) {
      const v = Reflect.get(target, name, target);
      return typeof v === "function"
        ? (...args: unknown[]) => {
            seen.push(JSON.stringify(args) ?? "");
            return v.apply(target, args);
          }
        : v;
    },
  });
  const password = "gw-secret-PW-7";
  const withUser = sb.fiscalUrl.replace("http://", `http://gw-user:${password}@`);
  const a = createFiscalClient({ baseUrl: withUser, credentials: fiscalCredentials, store: recording, holder: "till-a" });
  const b = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: recording, holder: "till-b" });
  const register = 102;
  await a.shifts.open({ IdKkm: register }).catch(() => {});
  const before = sb.fiscal.stats.documents;
  const first = await a.operations.sale(receipt(register), { idempotencyKey: "order-78" });
  const second = await b.operations.sale(receipt(register), { idempotencyKey: "order-78" }).catch((e: unknown) => e);
  expect(sb.fiscal.stats.documents - before).toBe(1);
  expect(second).toEqual(first);
  expect(seen.length).toBeGreaterThan(0);
  expect(seen.filter((text) => text.includes(password) || text.includes("gw-user"))).toEqual([]);
  await a.close();
  await b.close();
});
