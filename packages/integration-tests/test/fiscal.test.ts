// The fiscal client against the sandbox, over HTTP on loopback: every operation, the receipt
// rules checked before sending, and the Uid chain under load, across a restart, after another
// till moved it, and when an answer is lost.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type Fence, type JournalEntry, MemoryStore, type SettledWithLink, type Settlement } from "@paysys/core";
import {
  AnswerLostError,
  APIError,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConnectionError,
  createFiscalClient,
  type FiscalClient,
  type FiscalClientOptions,
  IdempotencyKeyReusedError,
  type LogEvent,
  OutcomeUnknownError,
  RequestAbortedError,
  RequestValidationError,
  receiptChange,
  receiptTotal,
  StoreUnavailableError,
  UnexpectedResponseError,
  UnresolvedOutcomeError,
} from "@paysys/fiscal";
import { FileStore } from "@paysys/fiscal/node";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { registers: [10, 6] } });
});
afterAll(() => sb.close());

const credentials = fiscalCredentials;
const client = (extra: Partial<FiscalClientOptions> = {}) => createFiscalClient({ baseUrl: sb.fiscalUrl, credentials, validateResponses: true, ...extra });
/** Opens a register's shift unless an earlier test left it open (the service's 424); any other refusal fails the test. */
const openShift = (fiscal: FiscalClient, idKkm: number) =>
  fiscal.shifts.open({ IdKkm: idKkm }).catch((e: unknown) => {
    if (!(e instanceof APIError && e.status === 424)) throw e;
  });
/**
 * A receipt under `key` on register 205, left under way: its answer comes 50 ms after the service's,
 * and this answers once it has left (its intent is written by then). The client's lease lingers, so
 * the receipt's outcome then waits in memory while the store still says pending: for what a client
 * does while a receipt is under way.
 */
async function receiptUnderWay(key: string) {
  let sent!: () => void;
  const sending = new Promise<void>((r) => {
    sent = r;
  });
  const fetch = async (url: string, init: RequestInit) => {
    if (!url.endsWith("/sales")) return globalThis.fetch(url, init);
    sent();
    const answer = await globalThis.fetch(url, init);
    await new Promise((r) => setTimeout(r, 50));
    return answer;
  };
  const fiscal = client({ fetch, lease: { lingerMs: 60_000 } });
  await openShift(fiscal, 205);
  const selling = fiscal.operations.sale(sale(205), { idempotencyKey: key });
  await sending;
  return { fiscal, selling };
}
const coffee = (qty = 1) => ({ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: qty });
const sale = (idKkm: number, positions = [coffee()], pay: { Cash?: string; NonCash?: string } = {}) => {
  const Total = receiptTotal(positions);
  return { idKkm, IdDomain: 1, Positions: positions, Total, ...(pay.Cash === undefined && pay.NonCash === undefined ? { Cash: Total } : pay) };
};

describe("fiscal: every operation against the sandbox", () => {
  it("companies, registers (with the official empty sub-objects), a shift with every receipt operation, X and Z reports", async () => {
    await using fiscal = client();
    expect((await fiscal.companies.list()).map((c) => c.ShortName)).toEqual(["TOO Romashka", "IP Lotos"]);
    const company1 = await fiscal.kkms.list({ companies: [1] });
    expect(company1).toHaveLength(10);
    expect(company1[0]!.Company).toMatchObject({ Id: 1, ShortName: "TOO Romashka" });
    const everything = await fiscal.kkms.list();
    expect(everything).toHaveLength(16);
    expect(everything[0]!.Company).toMatchObject({ Id: 0, Bin: "", Nds: "" });
    expect(await fiscal.kkms.get({ idKkm: 102 })).toMatchObject({ Id: 102, Allowed: true });

    const shift = await fiscal.shifts.open({ IdKkm: 102 });
    expect(shift).toMatchObject({ IdKkm: 102, IdStatusShift: 1 });
    expect(await fiscal.shifts.get({ idShift: shift.Id })).toEqual({ Id: shift.Id, IdStatusShift: 1 });
    const first = await fiscal.knownUid(102);
    expect(await fiscal.uid.get({ idKkm: 102 })).toBe(first);

    await fiscal.operations.cashIn({ idKkm: 102, Amount: "1000" });
    const sold = await fiscal.operations.sale(sale(102, [coffee(2)], { Cash: "1300" }));
    expect(sold).toMatchObject({ IdDocument: expect.any(Number), Receipt: expect.any(String), Location: expect.stringContaining("/receipts/") });
    await fiscal.operations.sale(sale(102, [coffee()], { NonCash: "625.25" }));
    await fiscal.operations.saleRefund(sale(102, [coffee()]));
    await fiscal.operations.purchase(sale(102, [{ Name: "Milk", IdSection: 2, Price: "100", Qty: 3 }]));
    await fiscal.operations.purchaseRefund(sale(102, [{ Name: "Milk", IdSection: 2, Price: "100", Qty: 1 }]));
    await fiscal.operations.cashOut({ idKkm: 102, Amount: "50.50" });
    expect(await fiscal.knownUid(102)).not.toBe(first);

    const x = await fiscal.shifts.xReport({ idShift: shift.Id });
    expect(x).toMatchObject({ Count: 7, SalesQty: 2, SalesAmount: 1875.75 });
    const z = await fiscal.shifts.closeWithZReport({ idShift: shift.Id, IdKkm: 102 });
    // Cash: +1000 in, +1250.50 sale (change 49.50), −625.25 refund, −300 purchase, +100 purchase refund, −50.50 out.
    expect(z).toMatchObject({
      Count: 7,
      SalesAmount: 1875.75,
      RefundsAmount: 625.25,
      PurchasesAmount: 300,
      PurchaseRefundsAmount: 100,
      IncomesAmount: 1000,
      ExpensesAmount: 50.5,
      BalanceClose: 1374.75,
      BalanceCloseNonCash: 625.25,
    });
    expect(await fiscal.shifts.get({ idShift: shift.Id })).toEqual({ Id: shift.Id, IdStatusShift: 2 });
  });

  it("a second opening is refused with the service's 424, never re-sent", async () => {
    await using fiscal = client();
    await fiscal.shifts.open({ IdKkm: 103 });
    const err = await fiscal.shifts.open({ IdKkm: 103 }).catch((e) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err).toMatchObject({ status: 424, attempts: 1, serviceCode: 424 });
  });

  it("a wrong password is an AuthenticationError; the password never shows", async () => {
    const lines: string[] = [];
    const fiscal = client({ credentials: { login: credentials.login, password: "Wrong-Pass-777" }, logger: (e: LogEvent) => lines.push(JSON.stringify(e)) });
    const err = await fiscal.companies.list().catch((e) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(`${err.message} ${JSON.stringify(err)} ${err.stack} ${lines.join("")}`).not.toContain("Wrong-Pass-777");
  });

  it("the token lives one day: after it, 50 calls at once sign in exactly once", async () => {
    await using fiscal = client();
    await fiscal.companies.list();
    const { logins } = sb.fiscal.stats;
    sb.clock.advance(24 * 3600_000);
    await Promise.all(Array.from({ length: 50 }, () => fiscal.kkms.get({ idKkm: 101 })));
    expect(sb.fiscal.stats.logins - logins).toBe(1);
  });
});

describe("fiscal: receipts are checked before sending", () => {
  it("refuses wrong totals and payments with the field that is wrong, and sends nothing", async () => {
    await using fiscal = client();
    const { requests } = sb.fiscal.stats;
    const bad = async (input: object) => (await fiscal.operations.sale(input as never).catch((e) => e)) as RequestValidationError;
    const base = sale(104, [coffee(2)]);
    expect((await bad({ ...base, Total: "1250.51", Cash: "1250.51" })).issues).toEqual([
      expect.objectContaining({ path: "/Total", message: expect.stringContaining("1250.5 (got 1250.51)") }),
    ]);
    expect((await bad({ ...base, Cash: undefined, NonCash: "1300" })).issues[0]).toMatchObject({ path: "/NonCash" });
    expect((await bad({ ...base, Cash: "10", NonCash: base.Total })).issues[0]).toMatchObject({ path: "/Cash", message: "must be 0 when NonCash covers the Total" });
    expect((await bad({ ...base, Cash: "1000" })).issues[0]).toMatchObject({ path: "/Cash", message: expect.stringContaining("cannot be negative") });
    expect((await bad({ ...base, Positions: [{ ...coffee(), Price: "625.255" }] })).issues[0]).toMatchObject({ path: "/Positions/0/Price" });
    expect((await bad({ ...base, Positions: [] })).issues[0]).toMatchObject({ path: "/Positions" });
    // Nothing reached the service: not even a sign-in or a look-up of the register's Uid.
    expect(sb.fiscal.stats.requests - requests).toBe(0);
  });

  it("tenge amounts are exact: 1,000 positions of 0.10 total exactly 100; a float sum is refused", async () => {
    await using fiscal = client();
    await fiscal.shifts.open({ IdKkm: 105 });
    const bolts = Array.from({ length: 1000 }, () => ({ Name: "Bolt", IdSection: 1, Price: 0.1, Qty: 1 }));
    expect(receiptTotal(bolts)).toBe("100");
    let floatSum = 0;
    for (const b of bolts) floatSum += b.Price * b.Qty;
    expect(floatSum).not.toBe(100);
    const err = await fiscal.operations.sale({ idKkm: 105, IdDomain: 1, Positions: bolts, Total: floatSum, Cash: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues[0]).toMatchObject({ path: "/Total", message: expect.stringContaining("compute totals in tiyn") });
    expect(await fiscal.operations.sale({ idKkm: 105, IdDomain: 1, Positions: bolts, Total: receiptTotal(bolts), Cash: "100.00" })).toHaveProperty("IdDocument");
    expect(receiptChange({ Cash: "150", NonCash: "0.10", Total: "100.00" })).toBe("50.1");
  });
});

describe("fiscal: the Uid chain", () => {
  it("1,000 concurrent receipts across 10 registers: no broken chain, no duplicate, Z totals equal the receipts", async () => {
    await using fiscal = client({ validateResponses: false });
    const registers = Array.from({ length: 10 }, (_, i) => 101 + i);
    // Registers left open by earlier tests are closed first.
    for (const id of registers) {
      const kkm = await fiscal.kkms.get({ idKkm: id });
      const info = kkm.IdShift ? await fiscal.shifts.get({ idShift: kkm.IdShift }) : undefined;
      if (info?.IdStatusShift === 1) await fiscal.shifts.closeWithZReport({ idShift: kkm.IdShift!, IdKkm: id });
    }
    const shifts = await Promise.all(registers.map((id) => fiscal.shifts.open({ IdKkm: id })));
    const before = { ...sb.fiscal.stats };
    const amounts = Array.from({ length: 1000 }, (_, i) => `${1 + (i % 97)}.${String(i % 100).padStart(2, "0")}`);
    const results = await Promise.all(amounts.map((price, i) => fiscal.operations.sale(sale(registers[i % 10]!, [{ Name: `Item ${i}`, IdSection: 1, Price: price, Qty: 1 }]))));
    expect(sb.fiscal.stats.refusedUids - before.refusedUids).toBe(0);
    expect(sb.fiscal.stats.documents - before.documents).toBe(1000);
    expect(new Set(results.map((r) => r.IdDocument)).size).toBe(1000);
    const tiyn = (s: string) => Math.round(Number(s) * 100);
    for (const [k, id] of registers.entries()) {
      const state = sb.fiscal.register(id)!;
      expect(new Set(state.shift!.uids).size, `register ${id}: every receipt presented its own Uid`).toBe(100);
      const z = await fiscal.shifts.closeWithZReport({ idShift: shifts[k]!.Id, IdKkm: id });
      const expected = amounts.filter((_, i) => i % 10 === k).reduce((s, a) => s + tiyn(a), 0);
      expect(z.SalesQty).toBe(100);
      expect(Math.round(z.SalesAmount! * 100)).toBe(expected);
    }
  });

  it("a receipt is sent as it was when the call was made, however long it waits for its register", async () => {
    const sent: string[] = [];
    const fetch = async (url: string, init: RequestInit) => {
      if (url.endsWith("/sales")) sent.push(String(init.body));
      return globalThis.fetch(url, init);
    };
    await using fiscal = client({ fetch });
    await fiscal.shifts.open({ IdKkm: 104 });
    // A till that reuses its cart: while the second receipt waits for the first on the same register,
    // the cart is changed for the next customer (the total still matches, so nothing would refuse it).
    const cart = [{ Name: "Tea", IdSection: 1, Price: 250, Qty: 2 }];
    const first = fiscal.operations.sale({ idKkm: 104, IdDomain: 1, Positions: [{ Name: "Bread", IdSection: 1, Price: 100, Qty: 1 }], Total: 100, Cash: 100 });
    const second = fiscal.operations.sale({ idKkm: 104, IdDomain: 1, Positions: cart, Total: 500, Cash: 500 });
    Object.assign(cart[0]!, { Name: "Coffee", Price: 100, Qty: 5 });
    cart.push({ Name: "Free refill", IdSection: 1, Price: 0, Qty: 1 });
    await Promise.all([first, second]);
    expect(sent).toHaveLength(2);
    expect(JSON.parse(sent[1]!).Positions).toEqual([{ Name: "Tea", IdSection: 1, Price: 250, Qty: 2 }]);
  });

  it("a link another program moved while this client did not hold the register is read afresh when it takes the lease", async () => {
    await using fiscal = client({ lease: { lingerMs: 0 } });
    await fiscal.shifts.open({ IdKkm: 201 });
    const moved = sb.fiscal.advanceUid(201);
    const { refusedUids, documents } = { ...sb.fiscal.stats };
    expect(await fiscal.operations.sale(sale(201))).toHaveProperty("IdDocument");
    expect(sb.fiscal.stats.refusedUids - refusedUids).toBe(0);
    expect(sb.fiscal.stats.documents - documents).toBe(1);
    expect(await fiscal.knownUid(201)).not.toBe(moved);
  });

  it("a refusal while the chain moved (a lying answer, or another program on the register) is disputed: never re-sent, the register waits for a person", async () => {
    const fiscal = client({ lease: { lingerMs: 60_000 } });
    await openShift(fiscal, 205);
    await fiscal.operations.sale(sale(205));
    sb.fiscal.advanceUid(201); // another register: nothing to do with this one
    const moved = sb.fiscal.advanceUid(205); // another program, while this client holds the lease
    const { documents } = sb.fiscal.stats;
    const err = await fiscal.operations.sale(sale(205), { idempotencyKey: "disputed-1" }).catch((e) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err.cause).toBeInstanceOf(BadRequestError);
    expect(err.wasApplied).toBeUndefined();
    expect(err.message).toMatch(/refused, yet the register's chain moved.*journal\.settle/);
    expect(sb.fiscal.stats.documents - documents).toBe(0);
    expect((await fiscal.journal.get({ operation: "operations.sale", key: "disputed-1" }))?.state).toBe("disputed");
    const blocked = await fiscal.operations.sale(sale(205)).catch((e) => e);
    expect(blocked).toBeInstanceOf(UnresolvedOutcomeError);
    expect(blocked).toMatchObject({ pending: { operation: "operations.sale", key: "disputed-1" }, attempts: 0 });
    // The service's people say it was not registered: the register works again, and the key may be sent.
    await fiscal.journal.settle({ operation: "operations.sale", key: "disputed-1" }, false);
    expect(await fiscal.operations.sale(sale(205), { idempotencyKey: "disputed-1" })).toHaveProperty("IdDocument");
    expect(sb.fiscal.stats.documents - documents).toBe(1);
    expect(await fiscal.knownUid(205)).not.toBe(moved);
    await fiscal.close();
  });

  it("a till program that restarts finds its registers in the file store, and reads each one's link when it takes its lease", async () => {
    const store = new FileStore(join(mkdtempSync(join(tmpdir(), "paysys-uid-")), "till.json"));
    const first = client({ store });
    await first.shifts.open({ IdKkm: 202 });
    await first.operations.sale(sale(202));
    expect(await first.knownUid(202)).toBe(sb.fiscal.register(202)!.uid);
    await first.close();
    // A new process: a new client over the same file. One look-up of the link, no refusal.
    const { requests, refusedUids } = { ...sb.fiscal.stats };
    await using restarted = client({ store: new FileStore(store.path) });
    await restarted.operations.sale(sale(202));
    expect(sb.fiscal.stats.refusedUids - refusedUids).toBe(0);
    expect(sb.fiscal.stats.requests - requests).toBe(3); // sign-in, GET /uid, the sale
    rmSync(dirname(store.path), { recursive: true, force: true });
  });

  it("a receipt the service took stands when the store cannot keep its new Uid; the next call reads it from the service", async () => {
    let failNext = false;
    let listed = 0; // how often the journal lists the register's unresolved intents
    const diskFull = () => {
      if (!failNext) return;
      failNext = false;
      throw new Error("disk full");
    };
    // The link is kept alone (set), with the outcome (settleIntentWithLink) or with the outcome and
    // the next intent (settleThenBegin): each fails once.
    class FailingStore extends MemoryStore {
      override set(key: string, value: string, fence?: Fence) {
        diskFull();
        super.set(key, value, fence);
      }
      override async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence) {
        diskFull();
        await super.settleIntentWithLink(key, settlement, link, fence);
      }
      override async settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Fence) {
        diskFull();
        return super.settleThenBegin(settled, entry, fence);
      }
      override async pendingIntents(prefix: string, scope?: string) {
        listed++;
        return super.pendingIntents(prefix, scope);
      }
    }
    const store = new FailingStore();
    await using fiscal = client({ store, lease: { lingerMs: 60_000 } });
    await openShift(fiscal, 103);
    await fiscal.operations.sale(sale(103));
    await fiscal.operations.sale(sale(103));
    expect(listed).toBe(1); // once when the lease was taken: only its holder can leave one since
    const { documents, refusedUids } = sb.fiscal.stats;
    // The next receipt's intent carries the last one's outcome: a store that fails that write fails the receipt before it is sent.
    failNext = true;
    expect(await fiscal.operations.sale(sale(103)).catch((e) => e)).toBeInstanceOf(StoreUnavailableError);
    expect(sb.fiscal.stats.documents - documents).toBe(0);
    // The outcome it carried was not written: the register's intents are listed and resolved (as applied) before the next receipt.
    expect(await fiscal.operations.sale(sale(103))).toHaveProperty("IdDocument");
    expect(listed).toBe(2);
    // Registered by the service (it moved the chain), its outcome and new Uid not kept (written alone
    // here, when the link is asked for): an error would invite sending it again.
    expect(await fiscal.operations.sale(sale(103))).toHaveProperty("IdDocument");
    failNext = true;
    expect(await fiscal.knownUid(103)).not.toBe(sb.fiscal.register(103)!.uid);
    expect(await fiscal.operations.sale(sale(103))).toHaveProperty("IdDocument");
    expect(sb.fiscal.stats.documents - documents).toBe(3);
    expect(sb.fiscal.stats.refusedUids - refusedUids).toBe(0); // the stale link was never presented
    expect(await fiscal.knownUid(103)).toBe(sb.fiscal.register(103)!.uid);
    // The receipt whose outcome could not be kept was resolved (applied) before the next one was sent.
    expect(listed).toBe(3);
    expect(await fiscal.journal.pending()).toEqual([]);
  });

  it("receipts on a held register: each outcome rides on the next receipt's intent, one store write per receipt; the last is written when the lease goes back", async () => {
    class CountingStore extends MemoryStore {
      writes = { beginIntent: 0, settleThenBegin: 0, settleIntentWithLink: 0, settleIntent: 0 };
      override beginIntent(entry: JournalEntry, fence?: Fence) {
        this.writes.beginIntent++;
        return super.beginIntent(entry, fence);
      }
      override settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Fence) {
        this.writes.settleThenBegin++;
        return super.settleThenBegin(settled, entry, fence);
      }
      override settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence) {
        this.writes.settleIntentWithLink++;
        return super.settleIntentWithLink(key, settlement, link, fence);
      }
      override settleIntent(key: string, settlement: Settlement, fence?: Fence) {
        this.writes.settleIntent++;
        return super.settleIntent(key, settlement, fence);
      }
    }
    const store = new CountingStore();
    const fiscal = client({ store, lease: { lingerMs: 60_000 } });
    await openShift(fiscal, 203);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await fiscal.operations.sale(sale(203), { idempotencyKey: `carried-${i}` }));
    // Seven calls (the shift, six receipts, the last 50 ms after the one before): the first begins alone, each next carries its predecessor's outcome.
    await new Promise((r) => setTimeout(r, 50));
    await fiscal.operations.sale(sale(203), { idempotencyKey: "carried-a-moment-later" });
    expect(store.writes).toEqual({ beginIntent: 1, settleThenBegin: 6, settleIntentWithLink: 0, settleIntent: 0 });
    // The last outcome waits for the next receipt; reading the register's link writes it first.
    expect(await store.pendingIntents("")).toHaveLength(1);
    expect(await fiscal.knownUid(203)).toBe(sb.fiscal.register(203)!.uid);
    expect(store.writes.settleIntentWithLink).toBe(1);
    expect(await store.pendingIntents("")).toEqual([]);
    // Each receipt's answer is kept, so its key replays it without sending.
    const { documents } = sb.fiscal.stats;
    expect(await fiscal.operations.sale(sale(203), { idempotencyKey: "carried-2" })).toEqual(answers[2]);
    expect(sb.fiscal.stats.documents).toBe(documents);
    // A receipt whose outcome waits is read from the journal as the SDK knows it; close writes it first.
    const alone = store.writes.settleIntentWithLink;
    await fiscal.operations.sale(sale(203), { idempotencyKey: "carried-5" });
    expect((await fiscal.journal.get({ operation: "operations.sale", key: "carried-5" }))?.state).toBe("applied");
    expect(store.writes.settleIntentWithLink).toBe(alone + 1);
    await fiscal.operations.sale(sale(203), { idempotencyKey: "carried-6" });
    await fiscal.close();
    expect(store.writes.settleIntentWithLink).toBe(alone + 2);
    expect(await store.pendingIntents("")).toEqual([]);
    // A lease given back after each call (lingerMs 0) has no next call to carry the outcome: it is written before the call answers.
    await using once = client({ store, lease: { lingerMs: 0 } });
    await once.operations.sale(sale(203), { idempotencyKey: "carried-never" });
    expect(store.writes.settleIntentWithLink).toBe(alone + 3);
    expect(await store.pendingIntents("")).toEqual([]);
  });

  it("an outcome written alone that fails while the next receipt waits for it: that receipt is not sent, the next resolves the register first", async () => {
    let stall: Promise<void> | undefined;
    let listed = 0;
    class StallingStore extends MemoryStore {
      override async settleIntentWithLink(key: string, settlement: Settlement, link: { key: string; value: string }, fence: Fence) {
        if (stall) {
          await stall;
          throw new Error("timed out");
        }
        return super.settleIntentWithLink(key, settlement, link, fence);
      }
      override async pendingIntents(prefix: string, scope?: string) {
        listed++;
        return super.pendingIntents(prefix, scope);
      }
    }
    const store = new StallingStore();
    await using fiscal = client({ store, lease: { lingerMs: 60_000 } });
    await openShift(fiscal, 206);
    await fiscal.operations.sale(sale(206), { idempotencyKey: "stalled-1" });
    const { documents, refusedUids } = sb.fiscal.stats;
    const listedBefore = listed;
    let open!: () => void;
    stall = new Promise((r) => {
      open = r;
    });
    const first = await fiscal.operations.sale(sale(206), { idempotencyKey: "stalled-2" });
    const asked = fiscal.knownUid(206); // writes stalled-2's outcome alone first: that write stalls
    await new Promise((r) => setTimeout(r, 10));
    const waiting = fiscal.operations.sale(sale(206), { idempotencyKey: "stalled-3" }).catch((e) => e);
    await new Promise((r) => setTimeout(r, 10));
    stall = undefined;
    open();
    const refused = await waiting;
    expect(await asked).not.toBe(sb.fiscal.register(206)!.uid); // the store's link is behind: its write failed
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect(refused.message).toMatch(/failed to keep the outcome of the register's previous call while this one waited: nothing was sent/);
    expect(sb.fiscal.stats.documents - documents).toBe(1);
    // The next call lists the register's intents and settles stalled-2 (applied: the chain moved past it) before it sends.
    expect(await fiscal.operations.sale(sale(206), { idempotencyKey: "stalled-3" })).toHaveProperty("IdDocument");
    expect(listed).toBe(listedBefore + 1);
    expect(sb.fiscal.stats.documents - documents).toBe(2);
    expect(sb.fiscal.stats.refusedUids - refusedUids).toBe(0);
    expect((await fiscal.journal.get({ operation: "operations.sale", key: "stalled-2" }))?.state).toBe("applied");
    expect(await fiscal.journal.pending()).toEqual([]);
    expect(first).toHaveProperty("IdDocument");
  });

  it("recover() while a receipt of this client is under way waits for it in the register's turn, and keeps its answer", async () => {
    const under = await receiptUnderWay("recovered-while-sent");
    await using fiscal = under.fiscal;
    const { selling } = under;
    const recovered = await fiscal.journal.recover(); // lists the intent while its call runs
    const done = await selling;
    expect(recovered).toEqual([{ operation: "operations.sale", key: "recovered-while-sent", state: "applied" }]);
    const kept = await fiscal.journal.get({ operation: "operations.sale", key: "recovered-while-sent" });
    expect(kept?.settlement).toMatchObject({ state: "applied", answer: done });
    expect(kept?.settlement?.answerLost).toBeUndefined();
    expect(await fiscal.operations.sale(sale(205), { idempotencyKey: "recovered-while-sent" })).toEqual(done);
  });

  it("journal.settle while a receipt of this client is under way waits for it in the register's turn, and refuses to mark it not applied", async () => {
    const under = await receiptUnderWay("settled-while-sent");
    await using fiscal = under.fiscal;
    const { selling } = under;
    const refused = await fiscal.journal.settle({ operation: "operations.sale", key: "settled-while-sent" }, false).catch((e) => e);
    const done = await selling;
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(String(refused.message)).toContain("has no unresolved intent (applied)");
    const kept = await fiscal.journal.get({ operation: "operations.sale", key: "settled-while-sent" });
    expect(kept?.settlement).toMatchObject({ state: "applied", answer: done });
    expect(await fiscal.operations.sale(sale(205), { idempotencyKey: "settled-while-sent" })).toEqual(done);
  });

  it("a receipt whose answer was lost is never re-sent; the SDK learns whether it was registered: at once if it was, once it can no longer land if not", async () => {
    for (const reached of [true, false]) {
      let cut = true;
      const fetch = async (url: string, init: RequestInit) => {
        if (url.endsWith("/sales") && cut) {
          cut = false;
          if (reached) await globalThis.fetch(url, init);
          throw new TypeError("socket hang up");
        }
        return globalThis.fetch(url, init);
      };
      await using fiscal = client({ fetch, landingMs: 200 });
      const id = reached ? 106 : 107;
      await openShift(fiscal, id);
      const { documents } = sb.fiscal.stats;
      const err = await fiscal.operations.sale(sale(id), { idempotencyKey: `lost-${reached}` }).catch((e) => e);
      // Cut off after it left: "not there" is only "not yet" while the service may still be at work on it.
      expect(err).toBeInstanceOf(reached ? AnswerLostError : OutcomeUnknownError);
      expect(err).toMatchObject({ attempts: 1, key: `lost-${reached}` });
      expect(err.cause).toBeInstanceOf(ConnectionError);
      if (!reached) expect(await err.wasApplied()).toBe(false);
      expect(sb.fiscal.stats.documents - documents).toBe(reached ? 1 : 0);
      expect((await fiscal.journal.get({ operation: "operations.sale", key: `lost-${reached}` }))?.state).toBe(reached ? "applied" : "not-applied");
      // The same key again: a registered receipt is never sent twice; one not registered is sent now.
      const again = await fiscal.operations.sale(sale(id), { idempotencyKey: `lost-${reached}` }).catch((e) => e);
      if (reached) expect(again).toBeInstanceOf(AnswerLostError);
      else expect(again).toHaveProperty("IdDocument");
      expect(sb.fiscal.stats.documents - documents).toBe(1);
    }
  });
  it("a key used before on a register the client holds is answered from its journal: never sent again, another receipt under it refused", async () => {
    // While the register is clear under its lease, the journal is not read before a receipt: the
    // intent's write answers the entry a key already has. Counted, so the saved round trip stays saved.
    class CountingStore extends MemoryStore {
      reads = 0;
      override getIntent(key: string) {
        this.reads++;
        return super.getIntent(key);
      }
    }
    const store = new CountingStore();
    await using fiscal = client({ store });
    await openShift(fiscal, 204);
    const first = await fiscal.operations.sale(sale(204), { idempotencyKey: "held-1" });
    await fiscal.operations.sale(sale(204), { idempotencyKey: "held-2" });
    const { documents } = sb.fiscal.stats;
    const reads = store.reads;
    expect(await fiscal.operations.sale(sale(204), { idempotencyKey: "held-1" })).toEqual(first);
    const other = await fiscal.operations.sale(sale(204, [coffee(2)]), { idempotencyKey: "held-2" }).catch((e) => e);
    expect(other).toBeInstanceOf(IdempotencyKeyReusedError);
    expect(other.message).toMatch(/held-2 was used for operations.sale with other parameters/);
    expect(sb.fiscal.stats.documents).toBe(documents);
    // The register goes on: a new key is registered once, and each of these calls read no entry first.
    expect(await fiscal.operations.sale(sale(204), { idempotencyKey: "held-3" })).toHaveProperty("IdDocument");
    expect(sb.fiscal.stats.documents).toBe(documents + 1);
    expect(store.reads).toBe(reads);
    expect((await fiscal.journal.get({ operation: "operations.sale", key: "held-3" }))?.state).toBe("applied");
  });

  it("a receipt the caller aborts once it is under way is learnt at once; aborted before, nothing is sent", async () => {
    const controller = new AbortController();
    // The till's cancel button, pressed as the service's answer arrives.
    const fetch = async (url: string, init: RequestInit) => {
      const answer = await globalThis.fetch(url, init);
      if (url.endsWith("/sales")) controller.abort();
      return answer;
    };
    await using fiscal = client({ fetch });
    await openShift(fiscal, 105);
    const { documents } = sb.fiscal.stats;
    const err = await fiscal.operations.sale(sale(105), { signal: controller.signal }).catch((e) => e);
    expect(err).toBeInstanceOf(AnswerLostError);
    expect(err.cause).toBeInstanceOf(RequestAbortedError);
    expect(err.message).toMatch(/aborted by the caller.*took effect/);
    expect(sb.fiscal.stats.documents - documents).toBe(1);
    const before = await fiscal.operations.sale(sale(105), { signal: AbortSignal.abort() }).catch((e) => e);
    expect(before).toBeInstanceOf(RequestAbortedError);
    expect(before).toMatchObject({ outcomeUnknown: false, attempts: 0 });
    expect(sb.fiscal.stats.documents - documents).toBe(1);
  });

  it("a lost receipt's outcome stays right while the receipts queued behind it go through", async () => {
    // The till sends three receipts at once; the first one's answer is lost (registered or not).
    for (const reached of [true, false]) {
      let cut = true;
      const fetch = async (url: string, init: RequestInit) => {
        if (!url.endsWith("/sales") || !cut) return globalThis.fetch(url, init);
        cut = false;
        if (reached) await (await globalThis.fetch(url, init)).arrayBuffer();
        throw new TypeError("socket hang up");
      };
      await using fiscal = client({ fetch, landingMs: 200 });
      const id = reached ? 106 : 107;
      await openShift(fiscal, id);
      const { documents } = sb.fiscal.stats;
      const [first, ...rest] = await Promise.allSettled([0, 1, 2].map(() => fiscal.operations.sale(sale(id))));
      // Learnt before the receipts behind it moved the chain: registered, they go through; not there
      // (yet), nothing is sent on the register until it can no longer land.
      expect((first as PromiseRejectedResult).reason).toBeInstanceOf(reached ? AnswerLostError : OutcomeUnknownError);
      expect(rest.map((r) => (r.status === "fulfilled" ? "registered" : (r.reason as Error).name))).toEqual(
        reached ? ["registered", "registered"] : ["UnresolvedOutcomeError", "UnresolvedOutcomeError"],
      );
      expect(sb.fiscal.stats.documents - documents).toBe(reached ? 3 : 0);
      if (!reached) {
        expect(await (first as PromiseRejectedResult).reason.wasApplied()).toBe(false);
        await fiscal.operations.sale(sale(id));
        expect(sb.fiscal.stats.documents - documents).toBe(1);
      }
    }
  });

  it("a receipt answered with a page it cannot read is never re-sent either: its outcome is learnt", async () => {
    // A proxy between the till and the service answers 200 with its own page, after the service
    // registered the receipt (reached) or without passing the request on (or while the service is
    // still at work on it, as far as the till can tell: not applied only once it can no longer land).
    for (const reached of [true, false]) {
      const fetch = async (url: string, init: RequestInit) => {
        if (!url.endsWith("/sales")) return globalThis.fetch(url, init);
        if (reached) await (await globalThis.fetch(url, init)).arrayBuffer();
        return new Response("<html><body>Gateway says OK</body></html>", { status: 200, headers: { "content-type": "text/html" } });
      };
      await using fiscal = client({ fetch, landingMs: 200 });
      const id = reached ? 106 : 107;
      const { documents } = sb.fiscal.stats;
      const err = await fiscal.operations.sale(sale(id)).catch((e) => e);
      expect(err).toBeInstanceOf(reached ? AnswerLostError : OutcomeUnknownError);
      expect(err).toMatchObject({ attempts: 1, status: 200 });
      expect(err.message).toMatch(/not JSON.*sent once/);
      expect(err.cause).toBeInstanceOf(UnexpectedResponseError);
      if (!reached) expect(await err.wasApplied()).toBe(false);
      expect(sb.fiscal.stats.documents - documents).toBe(reached ? 1 : 0);
    }
    expect(await client().operations.sale(sale(107))).toHaveProperty("IdDocument");
  });
});

describe("fiscal: autonomous mode and the order of operations", () => {
  it("newer rules (default): AFP and ReceiptDate are optional; older rules want ReceiptDate with AFP", async () => {
    await using fiscal = client();
    // Sandbox time, which other tests move forward.
    await fiscal.shifts.open({ IdKkm: 108, Date: new Date(sb.clock.now() - 3600_000) });
    expect(await fiscal.operations.sale({ ...sale(108), AFP: 1 })).toMatchObject({ AutonomousNumber: 1 });
    expect(await fiscal.operations.sale({ ...sale(108), AFP: 2, ReceiptDate: new Date(sb.clock.now()) })).toMatchObject({ AutonomousNumber: 2 });
    await using older = client({ autonomousRules: "older" });
    const err = await older.operations.sale({ ...sale(108), AFP: 3 }).catch((e) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(err.issues[0]).toMatchObject({ path: "/ReceiptDate" });
  });

  it("a receipt dated before the register's last operation is refused by the service, and the chain stays whole", async () => {
    await using fiscal = client();
    await fiscal.shifts.open({ IdKkm: 109 });
    await fiscal.operations.sale(sale(109));
    const { refusedUids } = sb.fiscal.stats;
    const err = await fiscal.operations.sale({ ...sale(109), AFP: 9, ReceiptDate: "2020-01-01T00:00:00+05:00" }).catch((e) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.serviceMessage).toBe("Нарушена очередность операций");
    expect(sb.fiscal.stats.refusedUids).toBe(refusedUids);
    expect(await fiscal.operations.sale(sale(109))).toHaveProperty("IdDocument");
  });

  it("a refund above the register's cash balance is refused with the service's message", async () => {
    await using fiscal = client();
    await fiscal.shifts.open({ IdKkm: 110 });
    const above = (sb.fiscal.register(110)!.cash + 0.01).toFixed(2);
    // Sold by card, so the cash drawer never had it; given back in cash, it is more than the drawer holds.
    await fiscal.operations.sale(sale(110, [{ Name: "Everything", IdSection: 1, Price: above, Qty: 1 }], { NonCash: above }));
    const err = await fiscal.operations.saleRefund(sale(110, [{ Name: "Everything", IdSection: 1, Price: above, Qty: 1 }])).catch((e) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.serviceMessage).toBe("Сумма операции превышает баланс кассы");
  });
});

describe("fiscal: the sandbox is as strict as the service is known to be", () => {
  it("weighed goods: a line rounded to tiyn as the caller chose is taken end to end", async () => {
    await using fiscal = client();
    await openShift(fiscal, 104);
    const Positions = [{ Name: "Cheese, kg", IdSection: 1, Price: "625.25", Qty: 0.75 }];
    const Total = receiptTotal(Positions, { rounding: "half-up" });
    expect(Total).toBe("468.94"); // exactly 468.9375
    expect(await fiscal.operations.sale({ idKkm: 104, IdDomain: 1, Positions, Total, Cash: Total })).toHaveProperty("IdDocument");
    // Without a rounding mode the helper refuses, naming the line, rather than choose one silently.
    expect(() => receiptTotal(Positions)).toThrow(RequestValidationError);
  });

  it("refuses an unknown activity type or section, a refund of goods never sold, and a non-cash refund above the non-cash balance", async () => {
    await using fiscal = client();
    await openShift(fiscal, 103);
    const domain = await fiscal.operations.sale({ ...sale(103), IdDomain: 99 }).catch((e) => e);
    expect(domain).toBeInstanceOf(BadRequestError);
    expect(domain.serviceMessage).toMatch(/unknown IdDomain/);
    const section = await fiscal.operations.sale(sale(103, [{ Name: "Tea", IdSection: 42, Price: "10", Qty: 1 }])).catch((e) => e);
    expect(section.serviceMessage).toMatch(/unknown IdSection/);
    const neverSold = await fiscal.operations.saleRefund(sale(103, [{ Name: "Never sold here", IdSection: 1, Price: "10", Qty: 1 }])).catch((e) => e);
    expect(neverSold.serviceMessage).toMatch(/never sold/);
    // Sold once, refunded once: a second refund of it is more than was sold.
    await fiscal.operations.sale(sale(103, [{ Name: "Scarf", IdSection: 1, Price: "10", Qty: 1 }], { NonCash: "10" }));
    expect(await fiscal.operations.saleRefund(sale(103, [{ Name: "Scarf", IdSection: 1, Price: "10", Qty: 1 }], { NonCash: "10" }))).toHaveProperty("IdDocument");
    const twice = await fiscal.operations.saleRefund(sale(103, [{ Name: "Scarf", IdSection: 1, Price: "10", Qty: 1 }], { NonCash: "10" })).catch((e) => e);
    expect(twice.serviceMessage).toMatch(/never sold/);
    // More back by card than the register took by card.
    const nonCash = sb.fiscal.register(103)!.nonCash;
    const big = (nonCash + 100).toFixed(2);
    await fiscal.operations.sale(sale(103, [{ Name: "Coat", IdSection: 1, Price: big, Qty: 1 }]));
    const aboveNonCash = await fiscal.operations.saleRefund(sale(103, [{ Name: "Coat", IdSection: 1, Price: big, Qty: 1 }], { NonCash: big })).catch((e) => e);
    expect(aboveNonCash.serviceMessage).toBe("Сумма операции превышает баланс кассы");
  });
});

describe("fiscal: what the spec leaves to the client", () => {
  it('Message is never compared: a Cyrillic "ОК" is success as well', async () => {
    const fetch = async (url: string, init: RequestInit) => {
      const r = await globalThis.fetch(url, init);
      const text = (await r.text()).replace('"Message":"OK"', '"Message":"ОК"');
      return new Response(text, { status: r.status, headers: r.headers });
    };
    await using fiscal = client({ fetch });
    expect(await fiscal.companies.list()).toHaveLength(2);
  });

  it("paths no source shows can be changed; documented ones cannot", async () => {
    expect(() => client({ paths: { "operations.sale": "/sell/{idKkm}" } })).toThrow(ConfigurationError);
    expect(() => client({ paths: { "operations.sale": "/sell/{idKkm}" } })).toThrow("paths: the path of operations.sale is documented; it cannot be changed");
    expect(() => client({ paths: { "shifts.reopen": "/shifts/{idShift}/reopen" } })).toThrow("paths: no operation shifts.reopen");
    expect(() => client({ paths: { toString: "/x" } })).toThrow("paths: no operation toString");
    expect(() => client({ paths: { "operations.purchase": "/kkms/purchase" } })).toThrow("paths: operations.purchase must keep the placeholders of /kkms/{idKkm}/purchases");
    expect(() => client({ paths: { "operations.purchase": "/kkms/{idKkm}/buy" } })).not.toThrow();
    // The changed path is the one sent: the sandbox serves only the default, so the X report is not found there.
    await using moved = client({ paths: { "shifts.xReport": "/shifts/{idShift}/x-moved" } });
    const idShift = (await moved.kkms.get({ idKkm: 108 })).IdShift || (await moved.shifts.open({ IdKkm: 108 })).Id;
    await expect(moved.shifts.xReport({ idShift })).rejects.toMatchObject({ status: 404 });
    await using usual = client();
    expect(await usual.shifts.xReport({ idShift })).toMatchObject({ Count: expect.any(Number) });
  });
});
