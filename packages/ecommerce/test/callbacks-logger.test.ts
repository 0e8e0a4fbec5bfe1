// A callback receiver whose store fails after the caller's function processed an event tells the
// logger and acknowledges the event all the same. A logger that throws (or rejects) must not turn
// that acknowledgement into an error: the gateway would deliver the event again, and it would be
// processed twice once its claim lapsed.
import { MemoryCallbackStore } from "@paysys/core";
import { describe, expect, it } from "vitest";
import { createCallbackReceiver } from "../src/callbacks.js";
import { webhooks } from "../src/generated/operations.js";

describe("a logger that throws in the callback receiver", () => {
  it.each([
    [
      "throws",
      () => {
        throw new Error("log sink down");
      },
    ],
    [
      "rejects",
      async () => {
        throw new Error("log sink down");
      },
    ],
  ])("a processed event is still acknowledged when the store fails and the logger %s", async (_how, logger) => {
    const store = new MemoryCallbackStore();
    store.complete = async () => {
      throw new Error("db down");
    };
    const receiver = createCallbackReceiver(webhooks["callbacks.payment"] as never, {
      namespace: "ecommerce test",
      allowedAddresses: "any",
      maxBodyBytes: 65536,
      leaseMs: 60_000,
      store,
      logger,
    });
    let processed = 0;
    const body = JSON.stringify({ id: "t1", orderId: "o-1", merchantId: "m", amount: 1000, status: 1, errCode: 0 });
    const answer = await receiver
      .handle(body, {}, () => {
        processed++;
      })
      .catch((e: unknown) => e);
    expect(processed).toBe(1);
    expect(answer).toEqual({ status: 200, body: { accepted: true } });
  });
});
