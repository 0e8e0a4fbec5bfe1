// A journaled call signs in before it leases its register or writes its intent. It used to sign in
// after both, in its first attempt: a slow sign-in held the register meanwhile (another till of the
// register, or another process on a file store, waited for it), and one slower than the window in
// which a request must start after its intent (10 s) failed the payment or receipt it preceded.
import { createCashoutClient } from "@paysys/cashout";
import { type Fence, type Holder, type JournalEntry, MemoryStore } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
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
    const opener = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore() });
    await opener.shifts.open({ IdKkm: register });
    await opener.close();
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
    expect(events).toEqual(["sign-in", "signed in", "intent requests.create"]);
    expect(sb.cashout.stats.stored - stored).toBe(1);
    // Signed in already: the next payout asks nothing more before its intent.
    await cash.requests.create({ amount: 1_000, account: "77771112233" }, { idempotencyKey: "sign-in-first-3" });
    expect(events.slice(3)).toEqual(["intent requests.create"]);
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
