import { describe, expect, it } from "vitest";
import { ConnectionError, PaysysError, ServiceError, TimeoutError } from "../src/index.js";
import { randomUuid } from "../src/internal/index.js";

describe("randomUuid", () => {
  const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
  it("is a v4 UUID, with or without crypto.randomUUID (insecure browser contexts lack it)", () => {
    expect(randomUuid()).toMatch(v4);
    const original = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(crypto), "randomUUID")!;
    Object.defineProperty(crypto, "randomUUID", { value: undefined, configurable: true });
    let ids: Set<string>;
    try {
      ids = new Set(Array.from({ length: 1000 }, () => randomUuid()));
    } finally {
      // Remove the own property so the prototype's randomUUID shows through again.
      delete (crypto as { randomUUID?: unknown }).randomUUID;
    }
    expect(typeof original.value).toBe("function");
    expect(typeof crypto.randomUUID).toBe("function");
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(v4);
  });
});

describe("error names", () => {
  it("are spelt out, so a minifier cannot rename them", () => {
    expect(new ServiceError("x").name).toBe("ServiceError");
    expect(new TimeoutError("x").name).toBe("TimeoutError");
    expect(new TimeoutError("x")).toBeInstanceOf(ConnectionError);
    expect(new TimeoutError("x")).toBeInstanceOf(PaysysError);
    expect(String(new ServiceError("boom"))).toBe("ServiceError: boom");
  });
});
