// What the Redis store adds to one fiscal receipt: the store work of a receipt under its register's
// lease (the intent begun, the register's new Uid kept, the outcome settled, each fenced), against
// the same work on the memory store, interleaved in one run on a redis-server on loopback. Shown with
// the append-only file fsync'd on every write (what the store's README asks) and once a second.
import { type Fence, type JournalEntry, MemoryStore, type Store } from "@paysys/core";
import { RedisStore } from "@paysys/store-redis";
import { startRedis } from "@paysys/test-servers";
import { createClient } from "redis";

type Report = (what: string, value: string, goal?: string) => void;

/** The `q` quantile of a sample, in ms. */
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

/** One receipt's store work on `store`, under `fence`. */
async function receiptWork(store: Store, fence: Fence, n: number): Promise<void> {
  const key = `fiscal 77771112233/bench-${n}`;
  const now = Date.now();
  const intent: JournalEntry = {
    key,
    operation: "operations.sale",
    scope: fence.name,
    hash: "h".repeat(64),
    holder: { id: "bench" },
    startedAt: now,
    sendBy: now + 60_000,
    state: "pending",
  };
  await store.beginIntent(intent, fence);
  await store.set(fence.name, `uid-${n}`, fence);
  await store.settleIntent(key, { state: "applied", answer: { IdDocument: n }, settledAt: now }, fence);
}

/** Per-receipt times of both stores, one of each per round, in alternating order. */
async function measure(redis: Store, rounds: number): Promise<{ memory: number[]; redis: number[] }> {
  const memory = new MemoryStore();
  const fences = await Promise.all([memory, redis].map((s) => s.acquireLease(`fiscal/bench-${Math.random()}`, { id: "bench" }, 600_000)));
  const sides = [
    { store: memory, fence: fences[0]!, times: [] as number[] },
    { store: redis, fence: fences[1]!, times: [] as number[] },
  ];
  for (let n = 0; n < 200; n++) for (const s of sides) await receiptWork(s.store, s.fence, n); // warm-up
  for (let n = 0; n < rounds; n++) {
    for (const s of n % 2 ? sides : [...sides].reverse()) {
      const t = performance.now();
      await receiptWork(s.store, s.fence, 200 + n);
      s.times.push(performance.now() - t);
    }
  }
  return { memory: sides[0]!.times, redis: sides[1]!.times };
}

export async function storeCostPerReceipt(report: Report): Promise<void> {
  const server = await startRedis();
  const client = createClient({ url: server.url });
  client.on("error", () => {});
  await client.connect();
  try {
    const store = new RedisStore(client, { prefix: "bench:" });
    for (const fsync of ["always", "everysec"]) {
      await client.configSet("appendfsync", fsync);
      const times = await measure(store, 2000);
      const [p50, p99] = [0.5, 0.99].map((q) => quantile(times.redis, q) - quantile(times.memory, q));
      const shownMs = (xs: number[]) => `p50 ${quantile(xs, 0.5).toFixed(3)} ms, p99 ${quantile(xs, 0.99).toFixed(3)} ms`;
      report(`store cost per receipt: memory store (begin, chain set, settle, fenced)`, shownMs(times.memory));
      report(`store cost per receipt: Redis, appendfsync ${fsync}`, shownMs(times.redis));
      report(
        `store cost per receipt: Redis ÷ memory store, appendfsync ${fsync}`,
        `${(quantile(times.redis, 0.5) / quantile(times.memory, 0.5)).toFixed(1)}× (added p50 ${p50!.toFixed(3)} ms, p99 ${p99!.toFixed(3)} ms)`,
        "≤ 1 ms added (p50)",
      );
    }
  } finally {
    await client.close();
    await server.stop();
  }
}
