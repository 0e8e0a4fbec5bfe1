// A journaled call signs in before it leases its register or writes its intent. It used to sign in
// after both, in its first attempt: a slow sign-in held the register meanwhile (another till of the
// register, or another process on a file store, waited for it), and one slower than the window in
// which a request must start after its intent (10 s) failed the payment or receipt it preceded.
// A review of the first version found what moving the sign-in must keep of the attempt's: a typed
// error with the call's secrets cut out, an abort honoured, and a key the journal answers answered
// without credentials (a cashier told "sign-in failed" for a receipt made would make it again).
import { createCashoutClient } from "@paysys/cashout";
import { type Fence, type Holder, type JournalEntry, MemoryStore, PaysysError, type Settlement } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
  const opener = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore() });
  for (let register = 101; register <= 105; register++) await opener.shifts.open({ IdKkm: register });
  await opener.close();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

/** A memory store that notes when a lease is taken and an intent written. */
class WatchedStore extends MemoryStore {
  constructor(readonly events: string[]) {
    super();
  }
  override acquireLease(name: string, holder: Holder, ttlMs: number) {
    this.events.push("lease");
    return super.acquireLease(name, holder, ttlMs);
  }
  override beginIntent(entry: JournalEntry, fence?: Fence) {
    this.events.push(`intent ${entry.operation}`);
    return super.beginIntent(entry, fence);
  }
  override settleIntent(key: string, settlement: Settlement, fence?: Fence) {
    this.events.push(`settle ${settlement.state}`);
    return super.settleIntent(key, settlement, fence);
  }
}

/** The global fetch, noting when a sign-in (a request to `authPath`) starts and ends. */
const watchedFetch =
  (events: string[], authPath: string): typeof fetch =>
  async (input, init) => {
    const signIn = String(input).endsWith(authPath);
    if (signIn) events.push("sign-in");
    try {
      return await fetch(input, init);
    } finally {
      if (signIn) events.push("signed in");
    }
  };

const receipt = (idKkm: number) => ({ idKkm, IdDomain: 1, Positions: [{ Name: "tea", IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" });

describe("a journaled call signs in first, then leases and writes its intent", () => {
  it("fiscal: a till's first call is a sale after a slow sign-in: signed in before the register is leased and the intent written", async () => {
    const register = 101;
    const events: string[] = [];
    const till = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new WatchedStore(events), fetch: watchedFetch(events, "/fiscal/auth") });
    sb.faults.add({ path: "/fiscal/auth", fault: { kind: "delay", ms: 400 } });
    const before = sb.fiscal.documents(register).length;
    await till.operations.sale(receipt(register), { idempotencyKey: "sign-in-first-1" });
    expect(events).toEqual(["sign-in", "signed in", "lease", "intent operations.sale"]);
    expect(sb.fiscal.documents(register).length - before).toBe(1);
    expect((await till.journal.get({ operation: "operations.sale", key: "sign-in-first-1" }))?.state).toBe("applied");
    await till.close();
  });

  it("cash-out: a client's first payout signs in before its intent is written", async () => {
    const events: string[] = [];
    const cash = createCashoutClient({
      baseUrl: sb.cashoutUrl,
      credentials: cashoutCredentials,
      store: new WatchedStore(events),
      fetch: watchedFetch(events, "/cashout/authorize"),
    });
    const stored = sb.cashout.stats.stored;
    await cash.requests.create({ amount: 1_000, account: "77771112233" }, { idempotencyKey: "sign-in-first-2" });
    expect(events).toEqual(["sign-in", "signed in", "intent requests.create", "settle applied"]);
    expect(sb.cashout.stats.stored - stored).toBe(1);
    // Signed in already: the next payout asks nothing more before its intent.
    await cash.requests.create({ amount: 1_000, account: "77771112233" }, { idempotencyKey: "sign-in-first-3" });
    expect(events.slice(4)).toEqual(["intent requests.create", "settle applied"]);
  });

  it("a sign-in that fails fails the call before anything is journaled", async () => {
    const events: string[] = [];
    const store = new WatchedStore(events);
    const cash = createCashoutClient({
      baseUrl: sb.cashoutUrl,
      credentials: { ...cashoutCredentials, password: "wrong" },
      store,
      fetch: watchedFetch(events, "/cashout/authorize"),
    });
    const stored = sb.cashout.stats.stored;
    const error = await cash.requests.create({ amount: 1_000, account: "77771112233" }, { idempotencyKey: "sign-in-first-4" }).catch((e: unknown) => e);
    expect((error as Error).name).toBe("AuthenticationError");
    expect(events).toEqual(["sign-in", "signed in"]);
    expect(await cash.journal.get({ operation: "requests.create", key: "sign-in-first-4" })).toBeUndefined();
    expect(sb.cashout.stats.stored - stored).toBe(0);
  });
});

const till = (store: MemoryStore = new MemoryStore(), password = fiscalCredentials.password) =>
  createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: { ...fiscalCredentials, password }, store });
const payout = { amount: 1_000, account: "77771112233" };

describe("moved before the intent, the sign-in keeps what it had in the attempt", () => {
  it("an aborted call signs in nowhere (in cash-out a new token kills the other holders')", async () => {
    const events: string[] = [];
    const [logins, authorizations] = [sb.fiscal.stats.logins, sb.cashout.stats.authorizations];
    const sale = await till(new WatchedStore(events))
      .operations.sale(receipt(102), { idempotencyKey: "aborted-1", signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    const cash = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new WatchedStore(events) });
    const paid = await cash.requests.create(payout, { idempotencyKey: "aborted-2", signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect([(sale as Error).name, (paid as Error).name]).toEqual(["RequestAbortedError", "RequestAbortedError"]);
    expect([sb.fiscal.stats.logins - logins, sb.cashout.stats.authorizations - authorizations, events]).toEqual([0, 0, []]);
  });

  it("a call aborted during a slow sign-in stops waiting at once; nothing is leased or journaled", async () => {
    const events: string[] = [];
    sb.faults.add({ path: "/fiscal/auth", fault: { kind: "delay", ms: 1_500 } });
    const started = Date.now();
    const error = await till(new WatchedStore(events))
      .operations.sale(receipt(102), { idempotencyKey: "aborted-3", signal: AbortSignal.timeout(100) })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("RequestAbortedError");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(events).toEqual([]);
  });

  it("a sign-in that fails on the client's side is a typed error, and a token a store's error quotes is cut out", async () => {
    const create = (store: MemoryStore, extra = {}) =>
      createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store, ...extra })
        .requests.create(payout)
        .catch((e: unknown) => e);
    class FailingTokens extends MemoryStore {
      override async update(): Promise<string | undefined> {
        throw new Error("token store down");
      }
    }
    class Unreadable extends MemoryStore {
      override async update(): Promise<string | undefined> {
        return "not json";
      }
    }
    const extractToken = () => {
      throw new Error("no token in this answer");
    };
    for (const error of [await create(new FailingTokens()), await create(new Unreadable()), await create(new MemoryStore(), { extractToken })]) {
      expect(error).toBeInstanceOf(PaysysError);
    }
    // A store whose error quotes the token it holds: the client knew that token, so it is cut out.
    let armed = false;
    class Quoting extends MemoryStore {
      override async update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>) {
        if (armed) throw new Error(`update of ${key} refused; it holds ${await this.get(key)}`);
        return super.update(key, decide);
      }
    }
    const held = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new Quoting() });
    await held.requests.create({ amount: 1 });
    await createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() }).requests.create({ amount: 1 }); // a new token kills the held one
    await held.requests.create({ amount: 2 }).catch(() => undefined); // refused: the held token is marked stale
    armed = true;
    const error = (await held.requests.create({ amount: 3 }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(PaysysError);
    expect(error.message).toContain("refused; it holds");
    expect(sb.cashout.issuedTokens().filter((token) => error.message.includes(token))).toEqual([]);
  });

  it("a key the journal answers is answered without a sign-in: while signing in fails, and after the password changed", async () => {
    const store = new MemoryStore();
    const first = till(store);
    const answer = await first.operations.sale(receipt(104), { idempotencyKey: "answered-1" });
    await first.close();
    const documents = sb.fiscal.documents(104).length;
    const logins = sb.fiscal.stats.logins;
    sb.faults.add({ path: "/fiscal/auth", fault: { kind: "status", status: 503, body: "{}", contentType: "application/json" }, times: 10 });
    expect(await till(store).operations.sale(receipt(104), { idempotencyKey: "answered-1" })).toEqual(answer);
    sb.faults.clear();
    expect(await till(store, "changed").operations.sale(receipt(104), { idempotencyKey: "answered-1" })).toEqual(answer);
    expect([sb.fiscal.documents(104).length - documents, sb.fiscal.stats.logins - logins]).toEqual([0, 0]);
    // A key the journal does not answer still signs in first, and fails as a sign-in does.
    await expect(till(store, "changed").operations.sale(receipt(104), { idempotencyKey: "answered-2" })).rejects.toMatchObject({ name: "AuthenticationError" });
  });
});
