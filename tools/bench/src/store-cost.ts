// What a shared store adds to one fiscal receipt: the store work a receipt does under its
// register's lease (the intent begun, the chain link kept, the outcome settled, each fenced) over
// PostgreSQL on loopback, interleaved with the same work on the memory store (measure.ts says why
// interleaved). A till holds its lease across receipts, so the lease is taken once, not timed.
//
// Measured twice: as the store runs (synchronous_commit on: each of the three writes waits for its
// WAL flush, so the disk's fsync time is in it), and with synchronous_commit off for this bench's
// connections only, which leaves the round trips and the statements: what the store itself costs.
// Never run a journal with it off: a crash of the database would lose the last intents.
import { type Fence, MemoryStore, type Store } from "@paysys/core";
import { migrate, PostgresStore } from "@paysys/store-postgres";
import { startPostgres } from "@paysys/test-servers";
import pg from "pg";
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
    await store.beginIntent(
      { key, operation: "operations.sale", scope: register, hash, holder: { id: "bench-till" }, startedAt: now, sendBy: now + 60_000, presented: `uid-${n}`, state: "pending" },
      lease,
    );
    await store.set(register, `uid-${n + 1}`, lease);
    await store.settleIntent(key, { state: "applied", answer: { IdDocument: n, Uid: `uid-${n + 1}` }, settledAt: Date.now() }, lease);
  };
}

interface Cost {
  p50: number;
  p99: number;
}
/** One pair: the memory store and PostgreSQL over `pool`, interleaved. */
async function pair(pool: pg.Pool, register: number, rounds: number): Promise<{ memory: Cost; postgres: Cost; added: Cost }> {
  const memory = await receiptStoreWork(new MemoryStore(), `fiscal/${register}`);
  const postgres = await receiptStoreWork(new PostgresStore(pool), `fiscal/${register + 1}`);
  await time(memory, 300);
  await time(postgres, 300);
  const times = await interleave(memory, postgres, rounds);
  const of = (xs: number[]): Cost => ({ p50: median(xs), p99: percentile(xs, 0.99) });
  const [base, candidate] = [of(times.baseline), of(times.candidate)];
  return { memory: base, postgres: candidate, added: { p50: candidate.p50 - base.p50, p99: candidate.p99 - base.p99 } };
}

/** Per-receipt store times (ms), p50 and p99: the memory store, PostgreSQL as it runs, and PostgreSQL without waiting for the disk. */
export async function storeCostPerReceipt(rounds: number) {
  const server = await startPostgres();
  const durable = new pg.Pool({ connectionString: server.url, max: 4 });
  const unflushed = new pg.Pool({ connectionString: server.url, max: 4, options: "-c synchronous_commit=off" });
  try {
    await migrate(durable);
    return { durable: await pair(durable, 201, rounds), unflushed: await pair(unflushed, 301, rounds) };
  } finally {
    await Promise.all([durable.end(), unflushed.end()]);
    await server.stop();
  }
}
