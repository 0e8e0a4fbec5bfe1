// The conformance kit of @paysys/core, unchanged, against a real redis-server: `again` is a second
// handle over a second connection, as another process would open it.
import { callbackStoreConformance, storeConformance } from "@paysys/core/testing";
import { RESP_TYPES } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RedisCommandClient, RedisStore } from "../src/index.js";
import { redisForTests } from "./redis.js";

let redis: Awaited<ReturnType<typeof redisForTests>>;
beforeAll(async () => {
  redis = await redisForTests();
});
afterAll(() => redis.close());

const fresh = async () => new RedisStore(await redis.client());

describe("storeConformance", () => {
  for (const check of storeConformance({ fresh, again: fresh })) it(check.name, check.run);
});

describe("callbackStoreConformance", () => {
  for (const check of callbackStoreConformance({ fresh, again: fresh })) it(check.name, check.run);
});

// A client that maps Redis's strings to Buffers for every command (`commandOptions.typeMapping`, as
// apps that keep binary values set it): every script's answer was a Buffer, no state compared equal,
// and a begin on a key that had an entry read as written (a payment sent twice), a claim of a done
// callback as neither new nor done (its function run on every redelivery). The store asks for text
// whatever the client's own mapping.
describe("storeConformance, on a client that maps strings to Buffers", () => {
  const mapped = async () =>
    new RedisStore(await redis.client(undefined, { commandOptions: { typeMapping: { [RESP_TYPES.BLOB_STRING]: Buffer, [RESP_TYPES.SIMPLE_STRING]: Buffer } } }));
  for (const check of storeConformance({ fresh: mapped, again: mapped })) it(check.name, check.run);
  for (const check of callbackStoreConformance({ fresh: mapped, again: mapped })) it(check.name, check.run);
});

describe("a client that decodes answers its own way whatever it is asked", () => {
  it("is a StoreCorruptError, never a begin read as written", async () => {
    const real = await redis.client();
    const buffers = (answer: unknown): unknown => (typeof answer === "string" ? Buffer.from(answer) : Array.isArray(answer) ? answer.map(buffers) : answer);
    const client: RedisCommandClient = { sendCommand: async (args, options) => buffers(await real.sendCommand(args, options)) as never };
    const store = new RedisStore(client);
    const entry = { key: "k", id: "i", operation: "pay", hash: "h", holder: { id: "a" }, startedAt: 1, sendBy: 2, state: "pending" as const };
    await expect(store.beginIntent(entry)).rejects.toMatchObject({ name: "StoreCorruptError", message: expect.stringContaining("a Buffer where its script answers text") });
  });
});
