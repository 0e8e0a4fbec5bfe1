// What a shared store adds to one fiscal receipt: the store work a receipt does under its
// register's lease, as the journal does it for receipts on a held register: one write, the intent
// (answering any entry the key already has, so the key is not looked up first) carrying the previous
// receipt's outcome with its chain link (settleThenBegin; a store without it settles the outcome in
// a second write), fenced, over PostgreSQL and Redis on loopback, interleaved with the same work on
// the memory store (measure.ts says why interleaved). A till holds its lease across receipts, so
// the lease is taken once, and the register's unresolved intents listed once, not timed.
//
// Each is measured as it should run (PostgreSQL's synchronous_commit on, so the intent is on disk
// before it is answered; Redis's appendfsync always) and without waiting for the disk
// (synchronous_commit off for the bench's connections; appendfsync everysec), which leaves the round
// trips and the statements: what the store itself costs. Never run a journal without the first: a
// crash of the database would lose the last intents.
//
// Each is also timed against its engine's floor, interleaved: the fewest operations a receipt's
// exactly-once needs on that engine, written bare with no SDK: one statement or command writing the
// intent and the previous receipt's outcome, whose commit waits for the disk. What remains above
// the floor is the SDK's part; the floor itself is the disk's and the round trips'.
import { type Fence, MemoryStore, type SettledWithLink, type Store } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { defaultFiscalUser } from "@paysys/sandbox";
import { migrate, PostgresStore } from "@paysys/store-postgres";
import { RedisStore } from "@paysys/store-redis";
import { startPostgres, startRedis } from "@paysys/test-servers";
import pg from "pg";
import type { createClient } from "redis";
import { interleave, median, startSandbox, time } from "./measure.js";

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

/** One receipt's store work on `store`, as a function to time (each call a new key). */
async function receiptStoreWork(store: Store, register: string): Promise<() => Promise<void>> {
  const lease: Fence | undefined = await store.acquireLease(register, { id: "bench-till" }, 3_600_000);
  if (!lease) throw new Error(`the bench could not take the lease ${register}`);
  let n = 0;
  let carried: SettledWithLink | undefined;
  return async () => {
    const key = `bench ${register}/operations.sale/r-${n++}`;
    const now = Date.now();
    const hash = "0".repeat(64);
    const intent = {
      key,
      operation: "operations.sale",
      scope: register,
      hash,
      holder: { id: "bench-till" },
      startedAt: now,
      sendBy: now + 60_000,
      presented: `uid-${n}`,
      state: "pending" as const,
    };
    const settlement = { state: "applied" as const, answer: { IdDocument: n, Uid: `uid-${n + 1}` }, settledAt: Date.now() };
    const link = { key: register, value: `uid-${n + 1}` };
    if (store.settleThenBegin) {
      // The outcome is written by the next receipt's intent, after this one has answered.
      await (carried ? store.settleThenBegin(carried, intent, lease) : store.beginIntent(intent, lease));
      carried = { key, settlement, link };
      return;
    }
    await store.beginIntent(intent, lease);
    // The outcome and the link in one write where the store can.
    if (store.settleIntentWithLink) return store.settleIntentWithLink(key, settlement, link, lease);
    await store.set(link.key, link.value, lease);
    await store.settleIntent(key, settlement, lease);
  };
}

export interface Cost {
  p50: number;
  p99: number;
}
const of = (xs: number[]): Cost => ({ p50: median(xs), p99: percentile(xs, 0.99) });
const minus = (a: Cost, b: Cost): Cost => ({ p50: a.p50 - b.p50, p99: a.p99 - b.p99 });

export interface StoreCost {
  memory: Cost;
  store: Cost;
  added: Cost;
  /** The engine's floor (above), and the store's work over it, interleaved with each other. */
  floor: Cost;
  aboveFloor: Cost;
}

/** The floor's writes, as a function to time (each call a new key). */
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
  const times = await interleave(memory, shared, rounds);
  const [base, candidate] = [of(times.baseline), of(times.candidate)];
  const overFloor = await interleave(floor, shared, rounds);
  const [bare, again] = [of(overFloor.baseline), of(overFloor.candidate)];
  return { memory: base, store: candidate, added: minus(candidate, base), floor: bare, aboveFloor: minus(again, bare) };
}

/** PostgreSQL's floor: one statement committed to disk, the intent inserted and the previous receipt's outcome updated. */
async function postgresFloor(pool: pg.Pool, name: string): Promise<Floor> {
  await pool.query("CREATE TABLE IF NOT EXISTS bench_floor (k text PRIMARY KEY, v text NOT NULL)");
  let n = 0;
  return async () => {
    n++;
    await pool.query("WITH settled AS (UPDATE bench_floor SET v = $3 WHERE k = $2) INSERT INTO bench_floor (k, v) VALUES ($1, $4)", [
      `${name}-${n}`,
      `${name}-${n - 1}`,
      outcomeSized,
      intentSized,
    ]);
  };
}

/** Redis's floor: one MSET, the intent and the previous receipt's outcome. */
/**
 * node-redis, imported when a section needs it: its client declares a class that extends `String`
 * (`VerbatimString`), and from then on every `charCodeAt` loop of the process ran six to ten times
 * slower (Node 20); the sections that run before this one measure the SDK, not node-redis's effect on it. Users of the Redis store have it in their process:
 * core's checks read bytes where they loop for that reason.
 */
const redisClient = async () => (await import("redis")).createClient;

function redisFloor(client: ReturnType<typeof createClient>): Floor {
  let n = 0;
  return async () => {
    n++;
    await client.mSet([
      [`bench-floor:${n}`, intentSized],
      [`bench-floor:${n - 1}:outcome`, outcomeSized],
    ]);
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
  const client = (await redisClient())({ url: server.url });
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

/**
 * The same question end to end: fiscal receipts one after another through the client on the
 * sandbox, the RedisStore (appendfsync always) against the memory store, interleaved, each on a
 * register of its own held under its lease. What the store adds to a receipt as a till sees it.
 */
export async function redisReceiptCost(rounds: number): Promise<{ memory: Cost; redis: Cost; added: Cost }> {
  const [sandbox, server] = await Promise.all([startSandbox(), startRedis()]);
  const redis = (await redisClient())({ url: server.url });
  redis.on("error", () => {});
  await redis.connect();
  await redis.configSet("appendfsync", "always");
  const options = {
    baseUrl: `${sandbox.url}/fiscal`,
    credentials: { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password },
    lease: { lingerMs: 60_000 },
  };
  const inMemory = createFiscalClient({ ...options, store: new MemoryStore() });
  const inRedis = createFiscalClient({ ...options, store: new RedisStore(redis, { prefix: "bench-e2e:" }) });
  try {
    const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];
    const receipt = (client: typeof inMemory, idKkm: number) => () => client.operations.sale({ idKkm, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
    await inMemory.shifts.open({ IdKkm: 101 });
    await inRedis.shifts.open({ IdKkm: 102 });
    const [memory, shared] = [receipt(inMemory, 101), receipt(inRedis, 102)];
    await time(memory, 200);
    await time(shared, 200);
    const times = await interleave(memory, shared, rounds);
    const [base, candidate] = [of(times.baseline), of(times.candidate)];
    return { memory: base, redis: candidate, added: minus(candidate, base) };
  } finally {
    await Promise.all([inMemory.close(), inRedis.close()]);
    await redis.close();
    sandbox.child.kill();
    await server.stop();
  }
}
