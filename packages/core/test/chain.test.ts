// The chain (chain.ts) on the memory store: when an outcome that waits in memory is written alone,
// and a lease the client gave up on is taken again. The journal's use of both is tested over HTTP
// against the sandbox and real stores (packages/integration-tests: fiscal, late-store-writes).
import { describe, expect, it } from "vitest";
import { HeaderChain } from "../src/internal/chain.js";
import { MemoryStore } from "../src/memory-store.js";
import type { Fence, Settlement } from "../src/stores.js";

const settled = { key: "k/1", settlement: { state: "applied", answer: { IdDocument: 1 }, settledAt: 0 } satisfies Settlement };

/** A chain on a fresh memory store, and the writes its deferred outcomes made alone. */
function chain(lease: { ttlMs: number; lingerMs: number }) {
  const store = new MemoryStore();
  const written: { name: string; link: string; fence: Fence }[] = [];
  const alone = async (name: string, link: string, fence: Fence) => {
    await store.settleIntentWithLink(settled.key, settled.settlement, { key: name, value: link }, fence);
    written.push({ name, link, fence });
  };
  const headerChain = new HeaderChain({ header: "Uid", current: async () => "link-0", store, holder: { id: "till" }, namespace: "t", lease, timeoutMs: 100 });
  return { store, chain: headerChain, written, alone };
}

describe("the chain's deferred outcome", () => {
  it("waits for the lease's linger, but is written while the lease still holds when the linger would outlast it", async () => {
    const { store, chain: c, written, alone } = chain({ ttlMs: 2_500, lingerMs: 60_000 });
    expect(await c.run("106", async (turn) => turn.defer("link-1", settled, alone))).toBe(true);
    expect(written).toEqual([]);
    // The lease ends in 2.5 s: the outcome is written and the lease given back before it does, not after the 60 s linger.
    await expect.poll(() => written.length, { timeout: 3_000, interval: 20 }).toBe(1);
    expect(await store.get("t/106")).toBe("link-1");
    expect(await store.acquireLease("t/106", { id: "other" }, 1_000)).toBeDefined();
  });

  it("is not kept once close() has begun: a call that answers then writes its outcome itself", async () => {
    const { chain: c, alone } = chain({ ttlMs: 60_000, lingerMs: 60_000 });
    let answer!: () => void;
    const answered = new Promise<void>((r) => {
      answer = r;
    });
    const call = c.run("106", async (turn) => {
      await answered;
      return turn.defer("link-1", settled, alone);
    });
    await new Promise((r) => setTimeout(r, 10));
    const closing = c.close();
    answer();
    expect(await call).toBe(false);
    await closing;
  });

  it("is not kept when the lease is given back after each call (lingerMs 0)", async () => {
    const { chain: c, alone } = chain({ ttlMs: 60_000, lingerMs: 0 });
    expect(await c.run("106", async (turn) => turn.defer("link-1", settled, alone))).toBe(false);
  });
});

describe("a lease the client cannot vouch for (ChainTurn.abandon)", () => {
  it("is taken again, with a higher fence, by the key's next call; a write under the old fence is then refused", async () => {
    const { store, chain: c } = chain({ ttlMs: 60_000, lingerMs: 60_000 });
    const first = await c.run("106", async (turn) => {
      const fence = turn.fence;
      turn.abandon(); // its intent write did not answer: it may still land
      return fence;
    });
    const second = await c.run("106", async (turn) => turn.fence);
    expect(second.value).toBeGreaterThan(first.value);
    await expect((async () => store.set("t/106", "late", first))()).rejects.toMatchObject({ name: "LeaseLostError" });
    // Kept from then on: the call after reuses the new lease.
    expect((await c.run("106", async (turn) => turn.fence)).value).toBe(second.value);
    await c.close();
  });
});
