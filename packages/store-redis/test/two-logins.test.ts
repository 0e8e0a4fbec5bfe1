// Two cashiers (two logins) on one register, one shared Redis store. The register's lease is per
// service, but the journal's keys are per login: cashier B never saw cashier A's unresolved
// receipt, sent on the register while its outcome was unknown and moved the chain; A then read "the
// chain moved" as "my receipt was registered", though the service never got it (a hostile probe).
// Now B is held back until A's receipt is known. (The same over the memory store, with the whole
// course: integration-tests/test/other-login-register-intents.test.ts.)

import { AnswerLostError, createFiscalClient, OutcomeUnknownError, UnresolvedOutcomeError } from "@paysys/fiscal";
import { defaultFiscalUser, type FiscalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { redisForTests, uniquePrefix } from "./redis.js";

const REGISTER = 102;
const SALES = `/fiscal/kkms/${REGISTER}/sales`;
const second: FiscalUser = { Id: 8, PhoneLogin: "77770000002", Password: "second-password", Name: "Cashier 2", companies: [1, 2] };
const receipt = (name: string) => ({ idKkm: REGISTER, IdDomain: 1, Positions: [{ Name: name, IdSection: 1, Price: "100", Qty: 1 }], Total: "100", Cash: "100" });

let redis: Awaited<ReturnType<typeof redisForTests>>;
let sb: Sandbox;
beforeAll(async () => {
  redis = await redisForTests();
  sb = await startSandbox({ fiscal: { users: [defaultFiscalUser, second] } });
});
afterAll(async () => {
  await sb.close();
  await redis.close();
});

const registered = (name: string) => sb.fiscal.documents(REGISTER).filter((d) => d.names.includes(name)).length;

it("a receipt of cashier A whose outcome is unknown blocks the register for cashier B too, and is never read as registered when it was not", async () => {
  const prefix = uniquePrefix("two-logins");
  const store = new RedisStore(await redis.client(), { prefix });
  const tillOfA = () =>
    createFiscalClient({
      baseUrl: sb.fiscalUrl,
      credentials: { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password },
      store,
      holder: "till-a",
      landingMs: 300,
      lease: { lingerMs: 0 },
    });
  const tillA = tillOfA();
  const tillB = createFiscalClient({
    baseUrl: sb.fiscalUrl,
    credentials: { login: second.PhoneLogin, password: second.Password },
    store,
    holder: "till-b",
    lease: { lingerMs: 0, waitMs: 5000 },
  });
  await tillA.shifts.open({ IdKkm: REGISTER });

  // A's receipt never reaches the register: the connection is cut before the service sees it.
  sb.faults.add({ path: new RegExp(`${SALES}$`), fault: { kind: "reset-before-headers" } });
  const first = await tillA.operations.sale(receipt("x"), { idempotencyKey: "x" }).catch((e: unknown) => e);
  expect(first).toBeInstanceOf(OutcomeUnknownError);
  expect(registered("x")).toBe(0);
  // A's till goes away (closed; its lease given back once the receipt can no longer land).
  await tillA.close();
  expect((await tillA.journal.pending()).map((p) => p.key)).toEqual(["x"]);

  // Cashier B on the same register, same store: nothing new may be sent while A's receipt is unknown.
  const b = await tillB.operations.sale(receipt("y"), { idempotencyKey: "y" }).then(
    () => "sent",
    (e: unknown) => e,
  );

  // A comes back and recovers: its receipt x was never registered.
  const tillA2 = tillOfA();
  const recovered = await tillA2.journal.recover();
  const again = await tillA2.operations.sale(receipt("x"), { idempotencyKey: "x" }).catch((e: unknown) => e);
  await tillA2.close();
  await tillB.close();

  const report = {
    xRegistered: registered("x"),
    yRegistered: registered("y"),
    bWasBlocked: b instanceof UnresolvedOutcomeError,
    aRecoveredAs: recovered.find((r) => r.key === "x")?.state,
    aRetryAnsweredAnswerLost: again instanceof AnswerLostError,
  };
  // Either B is held back until A's receipt is known, or A learns the truth ("not-applied"): never
  // "applied" for a receipt the register does not have.
  expect(report.aRecoveredAs === "applied" && report.xRegistered === 0, JSON.stringify(report)).toBe(false);
  expect(report.aRetryAnsweredAnswerLost && report.xRegistered === 0, JSON.stringify(report)).toBe(false);
});
