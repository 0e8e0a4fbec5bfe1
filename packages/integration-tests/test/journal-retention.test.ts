// What the default store keeps of calls that answered. A receipt sent without a key gets a key the
// SDK makes and shows nobody when the receipt is registered: no caller can ask about it again, so
// the memory store drops its entry once settled (a busy till's heap held every receipt for two
// days, or 100,000 of them, and its garbage collector paid for each). A key the caller knows, its
// own or an order id, keeps its entry, so the same key answers without sending again.
import { type JournalEntry, MemoryStore, type SettledWithLink } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ fiscal: { registers: [2, 0] } });
});
afterAll(() => sb.close());

/** A memory store that remembers every key an intent was begun under. */
class RecordingStore extends MemoryStore {
  readonly begun: string[] = [];
  override beginIntent(entry: JournalEntry, fence?: Parameters<MemoryStore["beginIntent"]>[1]) {
    this.begun.push(entry.key);
    return super.beginIntent(entry, fence);
  }
  override settleThenBegin(settled: SettledWithLink, entry: JournalEntry, fence: Parameters<MemoryStore["settleThenBegin"]>[2]) {
    this.begun.push(entry.key);
    return super.settleThenBegin(settled, entry, fence);
  }
  states = () => Promise.all(this.begun.map(async (key) => [key.slice(key.lastIndexOf("/") + 1), (await this.getIntent(key))?.state ?? "gone"]));
}

const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];
const sale = { idKkm: 101, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" };

describe("the memory store keeps only what a caller can ask about", () => {
  it("a receipt registered under a key the SDK made leaves no entry; one under the caller's key keeps its answer, which the key replays", async () => {
    const store = new RecordingStore();
    const fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store, lease: { lingerMs: 60_000 } });
    await fiscal.shifts.open({ IdKkm: 101 });
    for (let i = 0; i < 3; i++) await fiscal.operations.sale(sale);
    const kept = await fiscal.operations.sale(sale, { idempotencyKey: "kept-1" });
    await fiscal.operations.sale(sale);
    await fiscal.close(); // the last outcome, carried until the next receipt, is written now
    const states = Object.fromEntries(await store.states());
    expect(Object.keys(states)).toHaveLength(6); // the shift, five receipts
    expect(states["kept-1"]).toBe("applied");
    expect(Object.entries(states).filter(([key]) => key !== "kept-1")).toEqual(
      Object.entries(states)
        .filter(([key]) => key !== "kept-1")
        .map(([key]) => [key, "gone"]),
    );
    const { documents } = sb.fiscal.stats;
    await using again = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store });
    expect(await again.operations.sale(sale, { idempotencyKey: "kept-1" })).toEqual(kept);
    expect(sb.fiscal.stats.documents).toBe(documents);
  });

  it("a key journal.pending() showed while its receipt was under way is kept: recover and get find it applied, and sent again under it nothing is sent twice", async () => {
    // A hostile review's case: the key was the SDK's own, but listing the pending intents showed it.
    const slow = await startSandbox({ latencyMs: 200, fiscal: { registers: [1, 0] } });
    try {
      const store = new MemoryStore();
      await using fiscal = createFiscalClient({ baseUrl: slow.fiscalUrl, credentials: fiscalCredentials, store });
      await fiscal.shifts.open({ IdKkm: 101 });
      const selling = fiscal.operations.sale(sale);
      let shown: string | undefined;
      for (let i = 0; i < 100 && !shown; i++) {
        await new Promise((r) => setTimeout(r, 20));
        shown = (await fiscal.journal.pending()).find((p) => p.operation === "operations.sale")?.key;
      }
      expect(shown).toBeDefined();
      const recovering = fiscal.journal.recover(); // waits for the register's turn, as an admin's endpoint would
      const answer = await selling;
      expect((await recovering).filter((r) => r.operation === "operations.sale")).toEqual([{ operation: "operations.sale", key: shown, state: "applied" }]);
      expect((await fiscal.journal.get({ operation: "operations.sale", key: shown! }))?.state).toBe("applied");
      const { documents } = slow.fiscal.stats;
      expect(await fiscal.operations.sale(sale, { idempotencyKey: shown })).toEqual(answer);
      expect(slow.fiscal.stats.documents).toBe(documents);
    } finally {
      await slow.close();
    }
  });

  it("a payment keyed by its order id (the caller's) keeps its entry", async () => {
    const store = new RecordingStore();
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store });
    const orderId = `retained-${Math.random().toString(36).slice(2)}`;
    await shop.payments.create({ amount: 1_000, orderId });
    expect((await shop.journal.get({ operation: "payments.create", key: orderId }))?.state).toBe("applied");
  });
});
