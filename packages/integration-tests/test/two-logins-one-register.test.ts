// Two cashiers, two logins, one register, one store. A register is the service's whoever signs in
// to it (its lease and its `Uid` are named per service), but journal keys are named per login. So
// cashier B never saw cashier A's receipt of unknown outcome, sent on the register meanwhile and
// moved its chain; A, recovering, read "the chain moved" as "my receipt was registered", and a sale
// the register never had was believed registered (a hostile probe, on Redis). Now a register's
// pending intents are resolved before anything is sent on it, whichever login sent them: B's sale
// waits while A's receipt may still land, then first learns that it was not registered, and A
// recovers the truth.
import { MemoryStore } from "@paysys/core";
import { createFiscalClient, OutcomeUnknownError, UnresolvedOutcomeError } from "@paysys/fiscal";
import { defaultFiscalUser, type FiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";

const REGISTER = 102;
const second: FiscalUser = { Id: 8, PhoneLogin: "77770000002", Password: "second-password", Name: "Cashier 2", companies: [1, 2] };
const receipt = (name: string) => ({ idKkm: REGISTER, IdDomain: 1, Positions: [{ Name: name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { users: [defaultFiscalUser, second] } });
});
afterAll(() => sb.close());

const registered = (name: string) => sb.fiscal.documents(REGISTER).filter((d) => d.names.includes(name)).length;
const till = (store: MemoryStore, holder: string, user: FiscalUser) =>
  createFiscalClient({
    baseUrl: sb.fiscalUrl,
    credentials: { login: user.PhoneLogin, password: user.Password },
    store,
    holder,
    landingMs: 300,
    lease: { lingerMs: 0, waitMs: 5_000 },
  });

it("cashier B's sale waits until cashier A's lost receipt can no longer land, learns it was not registered, and A is told so", { timeout: 30_000 }, async () => {
  const store = new MemoryStore();
  const a = till(store, "till-a", defaultFiscalUser);
  await a.shifts.open({ IdKkm: REGISTER });
  // A's receipt never reaches the register: the connection is cut before the service sees it.
  sb.faults.add({ path: new RegExp(`/fiscal/kkms/${REGISTER}/sales$`), fault: { kind: "reset-before-headers" }, times: 1 });
  const lost = await a.operations.sale(receipt("x"), { idempotencyKey: "x", timeoutMs: 500 }).catch((e: unknown) => e);
  expect(lost).toBeInstanceOf(OutcomeUnknownError);
  const pending = await a.journal.get({ operation: "operations.sale", key: "x" });
  await a.close();

  // Cashier B on the same register: nothing is sent while A's receipt may still land.
  const b = till(store, "till-b", second);
  const blocked = await b.operations.sale(receipt("y"), { idempotencyKey: "y" }).catch((e: unknown) => e);
  expect(blocked).toBeInstanceOf(UnresolvedOutcomeError);
  expect((blocked as Error).message).toContain("sent by another login of this service");
  expect(registered("y")).toBe(0);

  // Once it cannot land (its journaled window, ~11 s here), B's sale first learns that it was not registered.
  await new Promise((r) => setTimeout(r, Math.max(0, pending!.sendBy - Date.now() + 100)));
  await b.operations.sale(receipt("y"), { idempotencyKey: "y" });
  await b.close();
  const a2 = till(store, "till-a", defaultFiscalUser);
  expect(await a2.journal.get({ operation: "operations.sale", key: "x" })).toMatchObject({ state: "not-applied" });
  await a2.operations.sale(receipt("x"), { idempotencyKey: "x" });
  await a2.close();
  expect({ x: registered("x"), y: registered("y") }).toEqual({ x: 1, y: 1 });
});
