// An answer's date that does not exist is refused, never handed over: `new Date()` reads
// "2099-02-30T10:00:00+05:00" as 2 March, so a shift opened on a day that is not one would have been
// silent wrong data. The spec's `x-calendar` keyword checks answers as it checks requests.
import { MemoryStore } from "@paysys/core";
import { AnswerLostError, createFiscalClient, UnexpectedResponseError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const answer = (data: object) => ({ kind: "status" as const, status: 200, contentType: "application/json", body: JSON.stringify({ Status: 200, Message: "OK", Data: data }) });

it("a shift opened on 30 February, as the answer says: an error naming the field, and the opening's outcome is learnt, not taken from it", async () => {
  await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore() });
  sb.faults.add({ path: "/fiscal/shifts", after: true, fault: answer({ Shift: { Id: 900, IdKkm: 102, IdStatusShift: 1, DateOpen: "2099-02-30T10:00:00+05:00" } }) });
  const error = (await fiscal.shifts.open({ IdKkm: 102 }).catch((e: unknown) => e)) as Error & { cause?: unknown };
  // The register's shift did open: the SDK learnt it from the register, and says so.
  expect(error).toBeInstanceOf(AnswerLostError);
  expect(error.cause).toBeInstanceOf(UnexpectedResponseError);
  expect((error.cause as Error).message).toMatch(/\/Data\/Shift\/DateOpen must be a date and time that exists/);
  expect((await fiscal.kkms.get({ idKkm: 102 })).IdShift).toBeGreaterThan(0);
});

it("a date that exists goes through as the service wrote it (29 February of a leap year)", async () => {
  await using fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore() });
  sb.faults.add({ path: "/fiscal/shifts", after: true, fault: answer({ Shift: { Id: 901, IdKkm: 103, IdStatusShift: 1, DateOpen: "2096-02-29T10:00:00+05:00" } }) });
  expect(await fiscal.shifts.open({ IdKkm: 103 })).toMatchObject({ DateOpen: "2096-02-29T10:00:00+05:00" });
});
