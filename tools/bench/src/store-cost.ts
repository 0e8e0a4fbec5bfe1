// What a shared store adds to one fiscal receipt: the store work a receipt does under its
// register's lease, as the journal does it (the intent begun, its write answering any entry the key
// already has, so the key is not looked up first; the outcome settled with the chain link its
// answer carried, in one write where the store has settleIntentWithLink; each write fenced), over
// PostgreSQL and Redis on loopback, interleaved with the same work on the memory store (measure.ts
// says why interleaved). A till holds its lease across receipts, so the lease is taken once, and
// the register's unresolved intents listed once, not timed.
//
// Each is measured as it should run (PostgreSQL's synchronous_commit on, so the intent is on disk
// before it is answered, the outcome-with-link being relaxed by the store itself; Redis's
// appendfsync always) and without waiting for the disk (synchronous_commit off for the bench's
// connections; appendfsync everysec), which leaves the round trips and the statements: what the
// store itself costs. Never run a journal without the first: a crash of the database would lose
// the last intents.
//
// Each is also timed against its engine's floor, interleaved: the fewest operations a receipt's
// exactly-once needs on that engine, written bare with no SDK: a durable write (the intent) and a
// write whose commit does not wait for the disk (the outcome; on Redis every write waits under
// appendfsync always). What remains above the floor is the SDK's part; the floor itself is the
// disk's and the round trips'.
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
  /** The engine's floor (above), and the store's work over it, interleaved with each other. */
  floor: Cost;
  aboveFloor: Cost;
}

/** The floor's two writes, as a function to time (each call a new key). */
type Floor = () => Promise<void>;
const intentSized = "i".repeat(300);
const outcomeSized = "o".repeat(120);

let registers = 200;
/** One pair: the memory store and `store`, interleaved. */
async function pair(store: Store, rounds: number, floor: Floor): Promise<StoreCost> {
  const memory = await receiptStoreWork(new MemoryStore(), `fiscal/${registers++}`);
  const shared = await receiptStoreWork(store, `fiscal/${registers++}`);
  await time(memory, 300);
  await time(shared, 300);
  await time(floor, 300);
  const of = (xs: number[]): Cost => ({ p50: median(xs), p99: percentile(xs, 0.99) });
  const minus = (a: Cost, b: Cost): Cost => ({ p50: a.p50 - b.p50, p99: a.p99 - b.p99 });
  const times = await interleave(memory, shared, rounds);
  const [base, candidate] = [of(times.baseline), of(times.candidate)];
  const overFloor = await interleave(floor, shared, rounds);
  const [bare, again] = [of(overFloor.baseline), of(overFloor.candidate)];
  return { memory: base, store: candidate, added: minus(candidate, base), floor: bare, aboveFloor: minus(again, bare) };
}

/** PostgreSQL's floor: an insert committed to disk, an update whose commit does not wait. */
async function postgresFloor(pool: pg.Pool, name: string): Promise<Floor> {
  await pool.query("CREATE TABLE IF NOT EXISTS bench_floor (k text PRIMARY KEY, v text NOT NULL)");
  let n = 0;
  return async () => {
    const key = `${name}-${n++}`;
    await pool.query("INSERT INTO bench_floor (k, v) VALUES ($1, $2)", [key, intentSized]);
    await pool.query("WITH relaxed AS (SELECT set_config('synchronous_commit', 'off', true)) UPDATE bench_floor SET v = $2 FROM relaxed WHERE k = $1", [key, outcomeSized]);
  };
}

/** Redis's floor: two SETs. */
function redisFloor(client: ReturnType<typeof createClient>): Floor {
  let n = 0;
  return async () => {
    const key = `bench-floor:${n++}`;
    await client.set(key, intentSized);
    await client.set(key, outcomeSized);
  };
}

/** PostgreSQL: as it runs, and with commits not waiting for the disk (this bench's connections only). */
export async function postgresCost(rounds: number): Promise<{ durable: StoreCost; unflushed: StoreCost }> {
  const server = await startPostgres();
  const durable = new pg.Pool({ connectionString: server.url, max: 4 });
  const unflushed = new pg.Pool({ connectionString: server.url, max: 4, options: "-c synchronous_commit=off" });
  try {
    await migrate(durable);
    return {
      durable: await pair(new PostgresStore(durable), rounds, await postgresFloor(durable, "durable")),
      unflushed: await pair(new PostgresStore(unflushed), rounds, await postgresFloor(unflushed, "unflushed")),
    };
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
    const floor = redisFloor(client);
    const durable = await pair(store, rounds, floor);
    await client.configSet("appendfsync", "everysec");
    return { durable, unflushed: await pair(store, rounds, floor) };
  } finally {
    await client.close();
    await server.stop();
  }
}
