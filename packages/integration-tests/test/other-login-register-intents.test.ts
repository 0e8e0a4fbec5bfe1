// A register's pending intents of every login are resolved before anything is sent on it. A register
// is the service's whoever signs in to it (its lease and its `Uid` are named per service), but
// journal keys are named per login: cashier B never saw cashier A's receipt of unknown outcome, sent
// on the register meanwhile and moved its chain; A, recovering, read "the chain moved" as "my receipt
// was registered", and a sale the register never had was believed registered (a hostile probe, on
// Redis). They are learnt with the sending client's own credentials, and another login's "not found"
// says nothing, nor a "not found" of a shift or register that was there before the call: a login that cannot
// see the register (another company's cashier, a till set up with the wrong register number, a
// login whose access was withdrawn) was answered 404 "not found" by the status query and settled
// the other login's Z-report, which the service did apply, as not applied (a hostile probe). A
// colleague who can see it learns the truth from the same query, and goes on: only learning
// another login's intents from the register's chain blocked the register for good (a second probe).
import { MemoryStore } from "@paysys/core";
import { createFiscalClient, OutcomeUnknownError, UnresolvedOutcomeError } from "@paysys/fiscal";
import { defaultFiscalUser, type FiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";

const REGISTER = 102; // company 1's
const otherCompany: FiscalUser = { Id: 9, PhoneLogin: "77770000009", Password: "other-password", Name: "Company 2 cashier", companies: [2] };
const colleague: FiscalUser = { Id: 8, PhoneLogin: "77770000002", Password: "second-password", Name: "Cashier 2", companies: [1, 2] };
/** A cashier whose access to the company is withdrawn mid-shift (the sandbox reads a user's companies on every request). */
const withdrawn: FiscalUser = { Id: 11, PhoneLogin: "77770000011", Password: "cashier-password", Name: "Cashier 3", companies: [1] };
const receipt = (name: string, idKkm = REGISTER) => ({ idKkm, IdDomain: 1, Positions: [{ Name: name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { users: [defaultFiscalUser, otherCompany, colleague, withdrawn] } });
});
afterAll(() => sb.close());

const till = (store: MemoryStore, holder: string, user: FiscalUser) =>
  createFiscalClient({
    baseUrl: sb.fiscalUrl,
    credentials: { login: user.PhoneLogin, password: user.Password },
    store,
    holder,
    timeoutMs: 500,
    landingMs: 300,
    lease: { lingerMs: 0, waitMs: 5_000 },
  });

/** Cashier A's Z-report, applied by the service, its answer cut and its status query failing for now: pending once A's till is gone, until its window ends. */
async function lostZReport(store: MemoryStore, user = defaultFiscalUser, register = REGISTER): Promise<number> {
  const a = till(store, "till-a", user);
  const { Id: idShift } = await a.shifts.open({ IdKkm: register });
  sb.faults.add({ path: new RegExp(`/fiscal/shifts/${idShift}/z$`), fault: { kind: "reset-mid-body" }, times: 1, after: true });
  sb.faults.add({ path: new RegExp(`/fiscal/shifts/${idShift}$`), fault: { kind: "status", status: 503 }, times: 1_000 });
  expect(await a.shifts.closeWithZReport({ idShift, IdKkm: register } as never, { idempotencyKey: "z-1" }).catch((e: unknown) => e)).toBeInstanceOf(OutcomeUnknownError);
  const pending = await a.journal.get({ operation: "shifts.closeWithZReport", key: "z-1" });
  expect(pending?.state).toBe("pending");
  await a.close();
  sb.faults.clear(); // the status query works again
  // The service did close the shift.
  expect(((await till(store, "till-a1", defaultFiscalUser).shifts.get({ idShift })) as { IdStatusShift: number }).IdStatusShift).toBe(2);
  await new Promise((r) => setTimeout(r, Math.max(0, pending!.sendBy - Date.now() + 100)));
  return idShift;
}

const zReportState = async (store: MemoryStore, user = defaultFiscalUser) =>
  (await till(store, "till-a", user).journal.get({ operation: "shifts.closeWithZReport", key: "z-1" }))?.state;

it("a login that cannot see the register does not settle another login's applied Z-report as not applied", { timeout: 40_000 }, async () => {
  const store = new MemoryStore();
  await lostZReport(store);
  const b = till(store, "till-b", otherCompany);
  const bSale = await b.operations.sale(receipt("y"), { idempotencyKey: "y" }).catch((e: unknown) => e);
  await b.close();
  // The service closed the shift: the journal may say "applied" or still "pending", never "not applied".
  expect({ bSale: (bSale as Error)?.name, zReport: await zReportState(store) }).toMatchObject({ zReport: expect.stringMatching(/^(applied|pending)$/) });
});

it("a colleague who can see the register learns another login's Z-report from the status query, and opens the next shift", { timeout: 40_000 }, async () => {
  const store = new MemoryStore();
  await lostZReport(store);
  const b = till(store, "till-b", colleague);
  await b.shifts.open({ IdKkm: REGISTER }, { idempotencyKey: "open-b" });
  await b.close();
  expect(await zReportState(store)).toBe("applied");
});

it("a cashier whose access was withdrawn does not record its own applied Z-report as not applied from a 404", { timeout: 30_000 }, async () => {
  const store = new MemoryStore();
  await lostZReport(store, withdrawn, 104);
  withdrawn.companies = [];
  const a2 = till(store, "till-a", withdrawn);
  await a2.journal.recover();
  await a2.close();
  // The shift is there whatever the Z-report did: its "not found" only says this login cannot see it.
  expect(await zReportState(store, withdrawn)).toBe("pending");
});

it("cashier B's sale waits until cashier A's lost receipt can no longer land, learns it was not registered, and A is told so", { timeout: 30_000 }, async () => {
  const register = 103;
  const registered = (name: string) => sb.fiscal.documents(register).filter((d) => d.names.includes(name)).length;
  const store = new MemoryStore();
  const a = till(store, "till-a", defaultFiscalUser);
  await a.shifts.open({ IdKkm: register });
  // A's receipt never reaches the register: the connection is cut before the service sees it.
  sb.faults.add({ path: new RegExp(`/fiscal/kkms/${register}/sales$`), fault: { kind: "reset-before-headers" }, times: 1 });
  expect(await a.operations.sale(receipt("x", register), { idempotencyKey: "x" }).catch((e: unknown) => e)).toBeInstanceOf(OutcomeUnknownError);
  const pending = await a.journal.get({ operation: "operations.sale", key: "x" });
  await a.close();

  // Cashier B on the same register: nothing is sent while A's receipt may still land.
  const b = till(store, "till-b", colleague);
  const blocked = await b.operations.sale(receipt("y", register), { idempotencyKey: "y" }).catch((e: unknown) => e);
  expect(blocked).toBeInstanceOf(UnresolvedOutcomeError);
  expect((blocked as Error).message).toContain(`sent by another login of this service (${defaultFiscalUser.PhoneLogin})`);
  expect(registered("y")).toBe(0);

  // Once it cannot land (its journaled window, ~11 s here), B's sale first learns that it was not registered.
  await new Promise((r) => setTimeout(r, Math.max(0, pending!.sendBy - Date.now() + 100)));
  await b.operations.sale(receipt("y", register), { idempotencyKey: "y" });
  await b.close();
  const a2 = till(store, "till-a", defaultFiscalUser);
  expect(await a2.journal.get({ operation: "operations.sale", key: "x" })).toMatchObject({ state: "not-applied" });
  await a2.operations.sale(receipt("x", register), { idempotencyKey: "x" });
  await a2.close();
  expect({ x: registered("x"), y: registered("y") }).toEqual({ x: 1, y: 1 });
});
