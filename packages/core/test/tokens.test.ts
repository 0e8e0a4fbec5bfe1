import { describe, expect, it } from "vitest";
import { AuthenticationError } from "../src/index.js";
import { TokenManager } from "../src/internal/index.js";

describe("TokenManager", () => {
  it("200 concurrent callers on an expired token cause exactly one renewal", async () => {
    let now = 0;
    let refreshes = 0;
    const tm = new TokenManager({
      now: () => now,
      refresh: async () => {
        refreshes++;
        await new Promise((r) => setTimeout(r, 10));
        return { accessToken: "new", refreshToken: "r2", expiresAt: now + 60_000 };
      },
    });
    tm.set({ accessToken: "old", refreshToken: "r1", expiresAt: 1_000 });
    now = 5_000;
    const got = await Promise.all(Array.from({ length: 200 }, () => tm.accessToken()));
    expect(new Set(got)).toEqual(new Set(["new"]));
    expect(refreshes).toBe(1);
  });

  it("renews early, before the token expires on the wire", async () => {
    let obtained = 0;
    const tm = new TokenManager({ now: () => 55_000, earlyRenewalMs: 10_000, obtain: async () => ({ accessToken: `t${++obtained}`, expiresAt: 120_000 }) });
    tm.set({ accessToken: "t0", expiresAt: 60_000 });
    expect(await tm.accessToken()).toBe("t1");
  });

  it("a rejection of an older token does not renew again", async () => {
    let obtained = 0;
    const tm = new TokenManager({ obtain: async () => ({ accessToken: `t${++obtained}` }) });
    const first = await tm.accessToken();
    tm.reject(first);
    const second = await tm.accessToken();
    tm.reject(first); // a late 401 that was sent with the first token
    expect(await tm.accessToken()).toBe(second);
    expect(obtained).toBe(2);
  });

  it("falls back to a full sign-in when the refresh fails", async () => {
    const tm = new TokenManager({ refresh: async () => Promise.reject(new Error("refresh token revoked")), obtain: async () => ({ accessToken: "fresh" }) });
    tm.set({ accessToken: "a", refreshToken: "r" });
    tm.reject("a");
    expect(await tm.accessToken()).toBe("fresh");
  });

  it("without a way to sign in, says so with a typed error", async () => {
    const tm = new TokenManager({});
    await expect(tm.accessToken()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it("a failed renewal is not cached: the next caller tries again", async () => {
    let calls = 0;
    const tm = new TokenManager({ obtain: async () => (++calls === 1 ? Promise.reject(new Error("down")) : { accessToken: "ok" }) });
    await expect(tm.accessToken()).rejects.toThrow("down");
    expect(await tm.accessToken()).toBe("ok");
  });
});
