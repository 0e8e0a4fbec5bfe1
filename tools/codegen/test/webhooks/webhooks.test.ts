// Webhooks: a typed event and a validator per inbound message, parsed from raw bytes.
import { parseInbound } from "@paysys/core/internal";
import { describe, expect, expectTypeOf, it } from "vitest";
import { webhooks } from "./generated/operations.js";
import type { CallbacksPaidEvent } from "./generated/schema.js";

describe("webhooks", () => {
  it("types the event and parses raw bodies against the spec", () => {
    expectTypeOf<CallbacksPaidEvent["amount"]>().toEqualTypeOf<number>();
    const event = parseInbound(webhooks["callbacks.paid"], new TextEncoder().encode('{"id":"t1","amount":100,"status":1}'));
    expectTypeOf(event).toEqualTypeOf<CallbacksPaidEvent>();
    expect(event).toEqual({ id: "t1", amount: 100, status: 1 });
    expect(() => parseInbound(webhooks["callbacks.paid"], '{"id":"t1","amount":-1}')).toThrow(/\/amount must be >= 0/);
    expect(() => parseInbound(webhooks["callbacks.paid"], "[1]")).toThrow(/not a JSON object/);
    expect(() => parseInbound(webhooks["callbacks.paid"], new Uint8Array([0x7b, 0xff]))).toThrow(/not valid UTF-8/);
    expect(() => parseInbound(webhooks["callbacks.paid"], `{"id":"${"x".repeat(300_000)}","amount":1}`)).toThrow(/larger than/);
  });

  it("carries the addresses the spec says the service sends from (x-source-ip), as an object or a bare address", () => {
    expect(webhooks["callbacks.paid"].sources).toEqual(["192.0.2.10", "192.0.2.11"]);
  });
});
