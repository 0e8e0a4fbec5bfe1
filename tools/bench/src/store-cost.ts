// What a shared store adds to one fiscal receipt: the store work a receipt does under its
// register's lease, as the journal does it (the key looked up; the intent begun; the outcome settled
// with the chain link its answer carried, in one write where the store has settleIntentWithLink;
// each write fenced), over PostgreSQL and Redis on loopback, interleaved with the same work on the
// memory store (measure.ts says why interleaved). A till holds its lease across receipts, so the
// lease is taken once, and the register's unresolved intents listed once, not timed.
//
// Each is measured as it should run (PostgreSQL's synchronous_commit on, so the intent is on disk
// before it is answered, the outcome-with-link being relaxed by the store itself; Redis's
// appendfsync always) and without waiting for the disk
// (synchronous_commit off for the bench's connections; appendfsync everysec), which leaves the round
// trips and the statements: what the store itself costs. Never run a journal without the first: a
// crash of the database would lose the last intents.
import { type Fence, MemoryStore, type Store } from "@paysys/core";
import { migrate, PostgresStore } from "@paysys/store-postgres";
import { RedisStore } from "@paysys/store-redis";
import { startPostgres, startRedis } from "@paysys/test-servers";
import pg from "pg";
import { createClient } from "redis";
import { interleave, median, time } from "./measure.js";

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** One receipt's store work on `store`, as a function to time (each call a new key). */
async function receiptStoreWork(store: Store, register: string): Promise<() => Promise<void>> {
  const lease: Fence | undefined = await store.acquireLease(register, { id: "bench-till" }, 3_600_000);
  if (!lease) throw new Error(`the bench could not take the lease ${register}`);
  let n = 0;
  return async () => {
    const key = `bench ${register}/operations.sale/r-${n++}`;
    const now = Date.now();
    const hash = "0".repeat(64);
    await store.getIntent(key); // a key seen before is answered from the journal, not sent
    await store.beginIntent(
      { key, operation: "operations.sale", scope: register, hash, holder: { id: "bench-till" }, startedAt: now, sendBy: now + 60_000, presented: `uid-${n}`, state: "pending" },
      lease,
    );
    // As the journal does it: the outcome and the link in one write where the store can.
    const settlement = { state: "applied" as const, answer: { IdDocument: n, Uid: `uid-${n + 1}` }, settledAt: Date.now() };
    const link = { key: register, value: `uid-${n + 1}` };
    if (store.settleIntentWithLink) return store.settleIntentWithLink(key, settlement, link, lease);
    await store.set(link.key, link.value, lease);
    await store.settleIntent(key, settlement, lease);
  };
}

export interface Cost {
  p50: number;
  p99: number;
}
export interface StoreCost {
  memory: Cost;
  store: Cost;
  added: Cost;
}

let registers = 200;
/** One pair: the memory store and `store`, interleaved. */
async function pair(store: Store, rounds: number): Promise<StoreCost> {
  const memory = await receiptStoreWork(new MemoryStore(), `fiscal/${registers++}`);
  const shared = await receiptStoreWork(store, `fiscal/${registers++}`);
  await time(memory, 300);
  await time(shared, 300);
  const times = await interleave(memory, shared, rounds);
  const of = (xs: number[]): Cost => ({ p50: median(xs), p99: percentile(xs, 0.99) });
  const [base, candidate] = [of(times.baseline), of(times.candidate)];
  return { memory: base, store: candidate, added: { p50: candidate.p50 - base.p50, p99: candidate.p99 - base.p99 } };
}

/** PostgreSQL: as it runs, and with commits not waiting for the disk (this bench's connections only). */
export async function postgresCost(rounds: number): Promise<{ durable: StoreCost; unflushed: StoreCost }> {
  const server = await startPostgres();
  const durable = new pg.Pool({ connectionString: server.url, max: 4 });
  const unflushed = new pg.Pool({ connectionString: server.url, max: 4, options: "-c synchronous_commit=off" });
  try {
    await migrate(durable);
    return { durable: await pair(new PostgresStore(durable), rounds), unflushed: await pair(new PostgresStore(unflushed), rounds) };
  } finally {
    await Promise.all([durable.end(), unflushed.end()]);
    await server.stop();
  }
}

/** Redis: with the append-only file fsync'd on every write (what the store's README asks), and once a second. */
export async function redisCost(rounds: number): Promise<{ durable: StoreCost; unflushed: StoreCost }> {
  const server = await startRedis();
  const client = createClient({ url: server.url });
  client.on("error", () => {});
  await client.connect();
  try {
    const store = new RedisStore(client, { prefix: "bench:" });
    await client.configSet("appendfsync", "always");
    const durable = await pair(store, rounds);
    await client.configSet("appendfsync", "everysec");
    return { durable, unflushed: await pair(store, rounds) };
  } finally {
    await client.close();
    await server.stop();
  }
}
