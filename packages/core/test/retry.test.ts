import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffDelay, isRetryableStatus, parseRetryAfter, retryDefaults } from "../src/internal/index.js";

describe("retry policy", () => {
  it("backoff stays within [step/2, step] and the step never exceeds the cap", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (retry, r) => {
        const step = Math.min(retryDefaults.maxDelayMs, retryDefaults.baseDelayMs * 2 ** (retry - 1));
        const d = backoffDelay(retry, retryDefaults, () => r);
        return d >= Math.floor(step / 2) && d <= step;
      }),
    );
  });
  it("backoff grows exponentially before the cap", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, retryDefaults, mid))).toEqual([225, 450, 900, 1800]);
  });
  it("reads Retry-After as seconds or an HTTP date", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter("0.5")).toBe(500);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });
  it("retries 408, 429 and 5xx only", () => {
    expect([408, 429, 500, 502, 503, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 409, 422].some(isRetryableStatus)).toBe(false);
  });
});
