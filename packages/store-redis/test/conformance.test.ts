// The conformance kit of @paysys/core, unchanged, against a real redis-server: `again` is a second
// handle over a second connection, as another process would open it.
import { callbackStoreConformance, storeConformance } from "@paysys/core/testing";
import { afterAll, beforeAll, describe, it } from "vitest";
import { RedisStore } from "../src/index.js";
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
