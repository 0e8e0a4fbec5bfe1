// Hostile answers after the service applied the operation. For every operation that moves money or
// changes a register, the sandbox does what the request asks and then answers 400, 401, 500, a
// reset, a cut-off body or a redirect (307, 308, to another host) in its place: each request is
// sent once, registered once, and the caller gets a typed error that says what the SDK could learn.
// A refusal (400, 401) that took effect is disputed; anything after which the request may still have
// landed (a 500, a cut, a redirect) is an answer lost where the SDK can learn it, unknown where not.

import { AnswerLostError, AuthenticationError, BadRequestError, createCashoutClient, OutcomeUnknownError, PaysysError } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient, type FiscalClient } from "@paysys/fiscal";
import { type Fault, type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({
    ecommerce: {
      merchants: [
        { login: merchant.merchantId, password: merchant.password },
        { login: "hold01", password: "hold-password", twoStage: true },
      ],
    },
  });
});
afterAll(() => sb.close());

/** How the SDK can learn an outcome (the spec's x-outcome), which decides what a lie turns into. */
type Learnt = "chain or query" | "nothing";

const refusals: { name: string; fault: Fault; times?: number }[] = [
  { name: "400", fault: { kind: "status", status: 400, body: '{"error":"refused (a lie: it was done)"}' } },
  { name: "401", fault: { kind: "status", status: 401, body: '{"error":"unauthorized (a lie: it was done)"}' } },
];
// Answers after which the request may still have landed: the SDK learns what it can, or says it cannot.
// (A redirect too: a gateway may answer one after passing the request on, nginx's `error_page 504 <url>`.)
const losses: { name: string; fault: Fault; times?: number }[] = [
  { name: "500", fault: { kind: "status", status: 500, body: "{}" } },
  { name: "307 on the same host", fault: { kind: "redirect", to: "same-host", status: 307 } },
  { name: "308 on the same host", fault: { kind: "redirect", to: "same-host", status: 308 } },
  { name: "307 to another host", fault: { kind: "redirect", to: "other-host", status: 307 } },
  { name: "a redirect loop", fault: { kind: "redirect", to: "same-host", status: 307 }, times: Number.POSITIVE_INFINITY },
  { name: "a reset before the answer", fault: { kind: "reset-before-headers" } },
  { name: "a cut-off body", fault: { kind: "reset-mid-body" } },
];

/** One operation under test: how to make one call, and how to count what the service did. */
interface Subject {
  name: string;
  path: RegExp;
  learnt: Learnt;
  prepare?: () => Promise<void>;
  call: () => Promise<unknown>;
  /** What the service registered so far (receipts, shifts, payments…): grows by one per call that took effect. */
  done: () => number;
  /** Clears what a disputed call leaves (the register waits for a person: here the test is the person). */
  settle?: (error: OutcomeUnknownError) => Promise<void>;
}

/** The till every fiscal subject uses (made once the sandbox runs). */
let till: FiscalClient;
const tillOf = () => till;
const REGISTER = 107;
/** Goods sold and bought on the register before the cases, each refunded at most once. */
const SOLD = 60;
const refunded = { saleRefund: 0, purchaseRefund: 0 };
/** Makes every order id of the file new. */
let n = 0;

const subjects = (): Subject[] => {
  const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore() });
  const hold = createEcommerceClient({ baseUrl: sb.ecommerceUrl, merchantId: "hold01", password: "hold-password", store: new MemoryStore() });
  const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() });
  const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" };
  const receipt = (Name: string) => ({ idKkm: REGISTER, IdDomain: 1, Positions: [{ Name, IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" });
  const fiscalSettle = async (e: OutcomeUnknownError) => tillOf().journal.settle({ operation: e.operation!, key: e.key }, true);
  const documents = () => sb.fiscal.documents(REGISTER).length;
  let orderId = "";
  let heldId = "";
  return [
    ...(["sale", "purchase", "saleRefund", "purchaseRefund", "cashIn", "cashOut"] as const).map(
      (kind): Subject => ({
        name: `fiscal operations.${kind}`,
        path: new RegExp(`/fiscal/kkms/${REGISTER}/`),
        learnt: "chain or query",
        call: () =>
          kind === "cashIn" || kind === "cashOut"
            ? tillOf().operations[kind]({ idKkm: REGISTER, Amount: "1" })
            : kind === "saleRefund" || kind === "purchaseRefund"
              ? tillOf().operations[kind](receipt(`${kind === "saleRefund" ? "sold" : "bought"}-${refunded[kind]++}`))
              : tillOf().operations[kind](receipt(`item-${++n}`)),
        done: documents,
        settle: fiscalSettle,
      }),
    ),
    {
      name: "fiscal shifts.closeWithZReport",
      path: /\/fiscal\/shifts\/\d+\/z$/,
      learnt: "chain or query",
      prepare: async () => {
        await tillOf()
          .shifts.open({ IdKkm: REGISTER })
          .catch(() => {});
      },
      call: async () => tillOf().shifts.closeWithZReport({ idShift: sb.fiscal.register(REGISTER)!.shift!.Id, IdKkm: REGISTER }),
      done: () => (sb.fiscal.register(REGISTER)!.shift ? 0 : 1),
      settle: fiscalSettle,
    },
    {
      name: "fiscal shifts.open",
      path: /\/fiscal\/shifts$/,
      learnt: "chain or query",
      call: () => tillOf().shifts.open({ IdKkm: REGISTER }),
      done: () => (sb.fiscal.register(REGISTER)!.shift ? 1 : 0),
      prepare: async () => {
        const open = sb.fiscal.register(REGISTER)!.shift;
        if (open) await tillOf().shifts.closeWithZReport({ idShift: open.Id, IdKkm: REGISTER });
      },
      settle: fiscalSettle,
    },
    {
      name: "ecommerce payments.create",
      path: /\/ecommerce\/payment\/create$/,
      learnt: "chain or query",
      call: () => shop.payments.create({ amount: 1_000, orderId: `hostile-${++n}` }),
      done: () => sb.ecommerce.stats.created,
    },
    {
      name: "ecommerce payouts.create",
      path: /\/ecommerce\/payment\/create$/,
      learnt: "chain or query",
      call: () => shop.payouts.create({ amount: 1_000, orderId: `hostile-payout-${++n}`, customerData: { cardData: { pan: TestCards.success } } }),
      done: () => sb.ecommerce.stats.created,
    },
    {
      name: "ecommerce payments.cancel",
      path: /\/ecommerce\/payment\/kill$/,
      learnt: "chain or query",
      prepare: async () => {
        orderId = (await shop.payments.create({ amount: 1_000, orderId: `to-cancel-${++n}`, customerData: { cardData: card } })).orderId;
      },
      call: () => shop.payments.cancel({ order_id: orderId }),
      done: () => [...Array(n + 1).keys()].filter((i) => sb.ecommerce.transaction(sb.ecommerce.transactionOf(merchant.merchantId, `to-cancel-${i}`) ?? "")?.status === 3).length,
    },
    {
      name: "ecommerce payments.approve",
      path: /\/ecommerce\/payment\/processing\/end$/,
      learnt: "nothing",
      prepare: async () => {
        heldId = (await hold.payments.create({ amount: 1_000, orderId: `to-approve-${++n}`, customerData: { cardData: card } })).id;
      },
      call: () => hold.payments.approve({ ID: heldId, action: "approve" }),
      done: () => [...Array(n + 1).keys()].filter((i) => sb.ecommerce.transaction(sb.ecommerce.transactionOf("hold01", `to-approve-${i}`) ?? "")?.status === 1).length,
    },
    {
      name: "cashout requests.create",
      path: /\/cashout\/cash-out-request$/,
      learnt: "nothing",
      call: () => cashout.requests.create({ amount: 100, account: "77771112233" }),
      done: () => sb.cashout.stats.stored,
    },
  ];
};

describe("hostile answers after the service applied the operation: sent once, registered once, a typed error", () => {
  beforeAll(async () => {
    till = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), lease: { lingerMs: 0 } });
    await till.shifts.open({ IdKkm: REGISTER });
    await till.operations.cashIn({ idKkm: REGISTER, Amount: "100000" });
    for (let i = 0; i < SOLD; i++) {
      await till.operations.sale(receiptFor(`sold-${i}`));
      await till.operations.purchase(receiptFor(`bought-${i}`));
    }
  });
  afterAll(() => till.close());

  it.each([...refusals.map((f) => ({ ...f, refusal: true })), ...losses.map((f) => ({ ...f, refusal: false }))])("$name", async ({ fault, times, refusal }) => {
    for (const s of subjects()) {
      await s.prepare?.();
      const before = s.done();
      const sent = sb.faults.seen.length;
      sb.faults.add({ path: s.path, fault, times, after: true });
      const error = await s.call().then(
        () => undefined,
        (e: unknown) => e,
      );
      const reached = sb.faults.seen.slice(sent).filter((r) => s.path.test(r.path)).length;
      const where = `${s.name} answered ${JSON.stringify(fault)}`;
      expect(error, where).toBeInstanceOf(PaysysError);
      expect(reached, `${where}: requests sent`).toBe(1);
      expect(s.done() - before, `${where}: registrations`).toBe(1);
      expect((error as PaysysError).attempts, `${where}: attempts`).toBe(1);
      const expected = refusal
        ? s.learnt === "nothing"
          ? [BadRequestError, AuthenticationError]
          : [OutcomeUnknownError] // refused, yet it took effect: disputed, left to a person
        : s.learnt === "nothing"
          ? [OutcomeUnknownError]
          : [AnswerLostError];
      expect(
        expected.some((c) => error instanceof c),
        `${where}: got ${(error as Error).name}: ${(error as Error).message}`,
      ).toBe(true);
      if (error instanceof OutcomeUnknownError && s.settle) await s.settle(error);
      sb.faults.clear();
    }
  });
});

function receiptFor(Name: string) {
  return { idKkm: REGISTER, IdDomain: 1, Positions: [{ Name, IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" };
}
