// An intent write the client gave up on (Redis held it past the store's timeout) that lands late,
// for an operation whose outcome nothing can check (`x-outcome: none`: a cash-out withdrawal). The
// caller was told StoreUnavailableError, "nothing is sent"; and nothing was. The late intent stood
// pending, and the SDK never resolved it: the same key was answered "outcome unknown: it was sent
// before under this key", and journal.recover() left it pending for ever, though this very process
// knew the request never left (a hostile probe). Now the process settles it "not applied".
import { createCashoutClient, OutcomeUnknownError, StoreUnavailableError } from "@paysys/cashout";
import { type Fence, type JournalEntry, MemoryStore, type Settlement } from "@paysys/core";
import { defaultCashoutUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { RedisStore } from "@paysys/store-redis";
import { startRedis } from "@paysys/test-servers";
import { createClient } from "redis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { cashoutCredentials } from "./credentials.js";

let sb: Sandbox;
let redis: Awaited<ReturnType<typeof startRedis>>;
beforeAll(async () => {
  sb = await startSandbox({ cashout: { users: [defaultCashoutUser] } });
  redis = await startRedis();
});
afterAll(async () => {
  await sb.close();
  await redis.stop();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

it("a withdrawal whose intent write landed late (nothing sent) is not left 'unknown, sent before' for ever", async () => {
  const client = createClient({ url: redis.url });
  client.on("error", () => {});
  await client.connect();
  const admin = createClient({ url: redis.url });
  await admin.connect();
  const store = new RedisStore(client, { timeoutMs: 400 });
  const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store, holder: "provider-late" });
  try {
    await cashout.requests.create({ amount: 100, account: "77771112233", reference: "warm-up" }, { idempotencyKey: "warm-up" });
    const storedBefore = sb.cashout.stats.stored;

    // Writes are held by the server (reads go on): the intent's script waits past the store's timeout.
    await admin.sendCommand(["CLIENT", "PAUSE", "1500", "WRITE"]);
    const first = await cashout.requests.create({ amount: 500, account: "77771112233", reference: "w-late" }, { idempotencyKey: "w-late" }).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(StoreUnavailableError); // "before anything is sent"
    await admin.sendCommand(["CLIENT", "UNPAUSE"]);
    await pause(200);
    expect(sb.cashout.stats.stored).toBe(storedBefore); // truly nothing was sent

    // The caller tries again with the same key, as the error invites.
    const again = await cashout.requests.create({ amount: 500, account: "77771112233", reference: "w-late" }, { idempotencyKey: "w-late" }).catch((e: unknown) => e);
    const recovered = await cashout.journal.recover();
    const report = {
      again: again instanceof Error ? `${again.name}: ${again.message}` : "sent",
      storedByService: sb.cashout.stats.stored - storedBefore,
      recovered,
    };
    // Never sent, and this process knows it: the key must not be stuck as "sent before, outcome unknown".
    expect(again instanceof OutcomeUnknownError, JSON.stringify(report, null, 1)).toBe(false);
    expect(
      recovered.filter((r) => r.key === "w-late" && r.state === "pending"),
      JSON.stringify(report, null, 1),
    ).toEqual([]);
  } finally {
    await admin.sendCommand(["CLIENT", "UNPAUSE"]).catch(() => {});
    await admin.close();
    await client.close();
  }
}, 30_000);

it("an intent whose write answered with an error but landed: settled not applied when met again, even after that write fails once", async () => {
  /** A store whose intent write lands and then answers an error, and whose next settlement fails once. */
  class LateStore extends MemoryStore {
    failBegin = false;
    failSettle = false;
    override async beginIntent(entry: JournalEntry, fence?: Fence) {
      const raced = await super.beginIntent(entry, fence);
      if (!this.failBegin) return raced;
      this.failBegin = false;
      throw new StoreUnavailableError("write the intent: the store did not answer in time", "late");
    }
    override async settleIntent(key: string, settlement: Settlement, fence?: Fence) {
      if (this.failSettle) {
        this.failSettle = false;
        throw new StoreUnavailableError("settle the intent: the store did not answer in time", "late");
      }
      return super.settleIntent(key, settlement, fence);
    }
  }
  const store = new LateStore();
  const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store, holder: "provider-late-2" });
  await cashout.requests.create({ amount: 100, account: "77771112233", reference: "warm-up-2" }, { idempotencyKey: "warm-up-2" });
  store.failBegin = true;
  store.failSettle = true;
  const storedBefore = sb.cashout.stats.stored;
  const request = () => cashout.requests.create({ amount: 500, account: "77771112233", reference: "w-late-2" }, { idempotencyKey: "w-late-2" });
  expect(await request().catch((e: unknown) => e)).toBeInstanceOf(StoreUnavailableError);
  // Met again, it is settled first; that write fails: a typed error, nothing sent, and the note is kept.
  expect(await request().catch((e: unknown) => e)).toBeInstanceOf(StoreUnavailableError);
  expect(sb.cashout.stats.stored).toBe(storedBefore);
  await request();
  expect(sb.cashout.stats.stored).toBe(storedBefore + 1);
  expect((await cashout.journal.get({ operation: "requests.create", key: "w-late-2" }))?.state).toBe("applied");
});
