// A register's pending intents of every login are resolved before a send, but another login's only
// from the register's chain, which is the same for every login. Asked by its status query, with the
// sending client's own credentials, a login that cannot see the register (another company's cashier,
// a till set up with the wrong register number, a login whose access was withdrawn) was answered
// 404 "not found" in the service's error shape, and settled the other login's Z-report, which the
// service did apply, as not applied (a hostile probe).
import { MemoryStore } from "@paysys/core";
import { createFiscalClient, OutcomeUnknownError } from "@paysys/fiscal";
import { defaultFiscalUser, type FiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";

const REGISTER = 102; // company 1's
const otherCompany: FiscalUser = { Id: 9, PhoneLogin: "77770000009", Password: "other-password", Name: "Company 2 cashier", companies: [2] };
const receipt = (name: string) => ({ idKkm: REGISTER, IdDomain: 1, Positions: [{ Name: name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { users: [defaultFiscalUser, otherCompany] } });
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

it("a login that cannot see the register does not settle another login's applied Z-report as not applied", { timeout: 40_000 }, async () => {
  const store = new MemoryStore();
  const a = till(store, "till-a", defaultFiscalUser);
  const opened = await a.shifts.open({ IdKkm: REGISTER });
  const idShift = opened.Id;
  // The Z-report is applied, its answer is cut, and the status query fails for now: A's close stays pending.
  sb.faults.add({ path: new RegExp(`/fiscal/shifts/${idShift}/z$`), fault: { kind: "reset-mid-body" }, times: 1, after: true });
  sb.faults.add({ path: new RegExp(`/fiscal/shifts/${idShift}$`), fault: { kind: "status", status: 503 }, times: 1_000 });
  const lost = await a.shifts.closeWithZReport({ idShift, IdKkm: REGISTER } as never, { idempotencyKey: "z-1" }).catch((e: unknown) => e);
  expect(lost).toBeInstanceOf(OutcomeUnknownError);
  const pending = await a.journal.get({ operation: "shifts.closeWithZReport", key: "z-1" });
  expect(pending?.state).toBe("pending");
  await a.close();
  sb.faults.clear();

  // The service did close the shift.
  const a1 = till(store, "till-a1", defaultFiscalUser);
  expect(((await a1.shifts.get({ idShift })) as { IdStatusShift: number }).IdStatusShift).toBe(2);
  await a1.close();

  // Once A's request can no longer land, a cashier of company 2 tries a sale on register 102 (not theirs).
  await new Promise((r) => setTimeout(r, Math.max(0, pending!.sendBy - Date.now() + 100)));
  const b = till(store, "till-b", otherCompany);
  const bSale = await b.operations.sale(receipt("y"), { idempotencyKey: "y" }).catch((e: unknown) => e);
  await b.close();

  const a2 = till(store, "till-a", defaultFiscalUser);
  const after = await a2.journal.get({ operation: "shifts.closeWithZReport", key: "z-1" });
  await a2.close();
  // The service closed the shift: the journal may say "applied" or still "pending", never "not applied".
  expect({ bSale: (bSale as Error)?.name, zReport: after?.state }).toMatchObject({ zReport: expect.stringMatching(/^(applied|pending)$/) });
});
