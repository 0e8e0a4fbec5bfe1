// The read that decides a lost call's outcome is checked as a money operation's answer is. Its
// answers were read as JSON.parse reads them (the last value of a key given twice wins): the
// Z-report never reached the service (the shift stayed open), the status query answered
// {"IdStatusShift":1,"IdStatusShift":2}, and the journal recorded the Z-report as applied (a
// hostile probe). Now that answer is refused, and the outcome stays unknown until a clear one.
import { MemoryStore } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { defaultFiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";

const REGISTER = 102;
let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

it("an outcome is not learnt from a status answer that repeats the key it reads", { timeout: 30_000 }, async () => {
  const a = createFiscalClient({
    baseUrl: sb.fiscalUrl,
    credentials: { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password },
    store: new MemoryStore(),
    holder: "till-a",
    timeoutMs: 500,
    landingMs: 300,
    lease: { lingerMs: 0, waitMs: 5_000 },
  });
  const opened = await a.shifts.open({ IdKkm: REGISTER });
  const idShift = opened.Id;
  // The Z-report is cut before the service sees it: the shift stays open.
  sb.faults.add({ path: new RegExp(`/fiscal/shifts/${idShift}/z$`), fault: { kind: "reset-before-headers" }, times: 1 });
  const ambiguous = JSON.stringify({ Status: 200, Message: "OK", Data: { Id: idShift, IdStatusShift: 1 } }).replace(/}}$/, ',"IdStatusShift":2}}');
  sb.faults.add({ path: new RegExp(`/fiscal/shifts/${idShift}$`), fault: { kind: "status", status: 200, body: ambiguous }, times: 1_000 });
  const error = await a.shifts.closeWithZReport({ idShift, IdKkm: REGISTER } as never, { idempotencyKey: "z-1" }).catch((e: unknown) => e);
  sb.faults.clear();
  const record = await a.journal.get({ operation: "shifts.closeWithZReport", key: "z-1" });
  const real = ((await a.shifts.get({ idShift })) as { IdStatusShift: number }).IdStatusShift;
  await a.close();
  expect({ ambiguous, real, error: (error as Error).name, journal: record?.state }).toMatchObject({ real: 1, journal: "pending" });
});
