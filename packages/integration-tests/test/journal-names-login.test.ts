// An account's name cannot reach into another's records: login "L" with key "operations.sale/k" and
// login "L/operations.sale" with key "k" named one journal record, so the second login was answered
// with the first one's receipt and nothing was sent (found by a hostile probe).
import { MemoryStore } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { defaultFiscalUser, type FiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";

const slashed: FiscalUser = { Id: 31, PhoneLogin: `${defaultFiscalUser.PhoneLogin}/operations.sale`, Password: "slash-password", Name: "Cashier /", companies: [1] };
let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { users: [defaultFiscalUser, slashed] } });
});
afterAll(() => sb.close());

const receipt = { idKkm: 101, IdDomain: 1, Positions: [{ Name: "coffee", IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" };
const till = (store: MemoryStore, user: FiscalUser, holder: string) =>
  createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: { login: user.PhoneLogin, password: user.Password }, store, holder });

it("two logins' keys never name one journal record", async () => {
  const store = new MemoryStore();
  const a = till(store, defaultFiscalUser, "till-a");
  const b = till(store, slashed, "till-b");
  await a.shifts.open({ IdKkm: 101 }).catch(() => {});
  const before = sb.fiscal.stats.documents;
  await a.operations.sale(receipt, { idempotencyKey: "operations.sale/k1" });
  // Login B's own receipt under its own key k1: it must be sent (B never sent k1).
  await b.operations.sale(receipt, { idempotencyKey: "k1" });
  expect(sb.fiscal.stats.documents - before).toBe(2);
  await a.close();
  await b.close();
});
