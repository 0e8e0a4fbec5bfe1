import { pbkdf2Sync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AuthenticationError, MemoryStore } from "../src/index.js";
import { proofFor, proves } from "../src/internal/credential-proof.js";
import { bearerScheme, hashOf, TokenManager } from "../src/internal/index.js";
import { hashedText } from "../src/internal/request-hash.js";

/** What a holder of `credential` under `key` proves itself with (the text the proof is derived from). */
const secretOf = (key: string, credential: unknown) => hashedText(key, { credential }, new Set());
/** A proof made by another implementation of PBKDF2 (node:crypto's): `rounds` of 100,000 iterations, each on the last one's bits, under a salt of the test's choosing. */
const proofBy = (secret: string, salt: string, rounds: number) => {
  let bits: Buffer | string = secret;
  for (let i = 0; i < rounds; i++) bits = pbkdf2Sync(bits, salt, 100_000, 32, "sha256");
  return `pbkdf2-sha256$${rounds}x100000$${salt}$${bits.toString("hex")}`;
};
const PROOF = /^pbkdf2-sha256\$6x100000\$[0-9a-f]{32}\$[0-9a-f]{64}$/;

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
    tm.set({ accessToken: "old", refreshToken: "r1", expiresAt: 30_000 });
    now = 25_000;
    const got = await Promise.all(Array.from({ length: 200 }, () => tm.accessToken()));
    expect(new Set(got)).toEqual(new Set(["new"]));
    expect(refreshes).toBe(1);
  });

  it("a token whose answer gives no expiry lives the scheme's lifetime; one that gives it keeps its own", async () => {
    let now = 0;
    let obtained = 0;
    const tm = new TokenManager({ now: () => now, earlyRenewalMs: 60_000, lifetime: "PT1H", obtain: async () => ({ accessToken: `t${++obtained}` }) });
    expect(tm.tokens).toBeUndefined();
    expect(await tm.accessToken()).toBe("t1");
    expect(tm.tokens?.expiresAt).toBe(3_600_000);
    now = 3_600_000 - 60_001;
    expect(await tm.accessToken()).toBe("t1");
    now = 3_600_000 - 60_000; // a minute early: renewed
    expect(await tm.accessToken()).toBe("t2");
    const own = new TokenManager({ now: () => 0, lifetime: "PT1H", obtain: async () => ({ accessToken: "x", expiresAt: 50_000 }) });
    await own.accessToken();
    expect(own.tokens?.expiresAt).toBe(50_000);
  });

  it("an expiry that leaves no time before the early renewal (NaN, Infinity, past, 5 s away, 1 ms of use left) is a lying answer: the scheme's lifetime instead", async () => {
    for (const expiresAt of [Number.NaN, Number.POSITIVE_INFINITY, -1, 0, 1_000, 1_000 + 5_000, 1_000 + 10_001]) {
      let obtained = 0;
      const tm = new TokenManager({ now: () => 1_000, lifetime: "PT1H", obtain: async () => ({ accessToken: `t${++obtained}`, expiresAt }) });
      expect(await tm.accessToken()).toBe("t1");
      expect(await tm.accessToken(), String(expiresAt)).toBe("t1"); // one sign-in, not one per call
      expect(tm.tokens?.expiresAt).toBe(1_000 + 3_600_000);
      // Without a lifetime the expiry is unknown: only a 401 renews the token.
      const bare = new TokenManager({ now: () => 1_000, obtain: async () => ({ accessToken: "b", expiresAt }) });
      await bare.accessToken();
      expect(bare.tokens?.expiresAt).toBeUndefined();
    }
  });

  it("a real 8-minute token under a 5-minute early renewal is trusted, and renewed before it expires", async () => {
    let now = 0;
    let obtained = 0;
    const tm = new TokenManager({ now: () => now, earlyRenewalMs: 300_000, lifetime: "PT1H", obtain: async () => ({ accessToken: `t${++obtained}`, expiresAt: now + 480_000 }) });
    expect(await tm.accessToken()).toBe("t1");
    now = 180_001; // inside the early renewal
    expect(await tm.accessToken()).toBe("t2");
  });

  it("a shared token whose stored expiry is no number (another writer's null for Infinity) is taken, not renewed", async () => {
    const store = new MemoryStore();
    const credential = await proofFor(secretOf("k", "pw"));
    await store.update("k", async () => JSON.stringify({ accessToken: "theirs", expiresAt: null, credential }));
    let obtained = 0;
    const tm = new TokenManager({ now: () => 0, shared: { store, key: "k", credential: "pw" }, obtain: async () => ({ accessToken: `t${++obtained}` }) });
    tm.set({ accessToken: "mine", expiresAt: 1 });
    tm.reject("mine");
    expect(await tm.accessToken()).toBe("theirs");
    expect(obtained).toBe(0);
  });

  it("current() gives only a token usable now; the bearer scheme presents it without waiting, and waits only to renew", async () => {
    let now = 0;
    let obtained = 0;
    const tm = new TokenManager({ now: () => now, earlyRenewalMs: 0, obtain: async () => ({ accessToken: `t${++obtained}`, expiresAt: now + 1_000 }) });
    const scheme = bearerScheme(tm);
    const headers: Record<string, string> = {};
    const sink = {
      set: (k: string, v: string) => {
        headers[k] = v;
      },
    };
    expect(tm.current()).toBeUndefined();
    const first = scheme.present(sink);
    expect(first).toBeInstanceOf(Promise); // no token yet: the attempt waits for the sign-in
    expect(tm.current()).toBeUndefined(); // nor while it is under way
    expect(await first).toBe("t1");
    expect(headers.Authorization).toBe("Bearer t1");
    expect(scheme.present(sink)).toBe("t1"); // in hand: presented at once
    tm.reject("t1");
    expect(tm.current()).toBeUndefined();
    expect(await scheme.present(sink)).toBe("t2");
    now = 5_000; // expired
    expect(tm.current()).toBeUndefined();
    expect(await scheme.present(sink)).toBe("t3");
    expect(headers.Authorization).toBe("Bearer t3");
    expect(obtained).toBe(3);
  });

  it("asks the presentation for a token's headers once per token, and again for a new token", async () => {
    const tm = new TokenManager({ obtain: async () => ({ accessToken: "a" }) });
    const asked: string[] = [];
    const scheme = bearerScheme(tm, (token) => {
      asked.push(token);
      return { "X-Token": token, "X-Kind": "bearer" };
    });
    const seen: Record<string, string>[] = [];
    const present = async () => {
      const headers: Record<string, string> = {};
      await scheme.present({
        set: (k, v) => {
          headers[k] = v;
        },
      });
      seen.push(headers);
    };
    await present();
    await present();
    tm.set({ accessToken: "b" });
    await present();
    expect(asked).toEqual(["probe", "a", "b"]);
    expect(seen).toEqual([
      { "X-Token": "a", "X-Kind": "bearer" },
      { "X-Token": "a", "X-Kind": "bearer" },
      { "X-Token": "b", "X-Kind": "bearer" },
    ]);
  });

  it("renews early, before the token expires on the wire", async () => {
    let obtained = 0;
    let now = 0;
    const tm = new TokenManager({ now: () => now, earlyRenewalMs: 10_000, obtain: async () => ({ accessToken: `t${++obtained}`, expiresAt: 120_000 }) });
    tm.set({ accessToken: "t0", expiresAt: 60_000 });
    now = 49_999;
    expect(await tm.accessToken()).toBe("t0");
    now = 55_000;
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

describe("TokenManager with a shared store (one token per credential)", () => {
  const shared = () => ({ store: new MemoryStore(), key: "svc:login", credential: { password: "pw" } as unknown });

  it("a token stored by a holder of another secret (or by an earlier version with no proof) is not taken: the manager authorizes itself", async () => {
    let obtained = 0;
    const obtain = async () => ({ accessToken: `t${++obtained}`, expiresAt: Date.now() + 3_600_000 });
    const where = shared();
    const real = new TokenManager({ obtain, shared: where });
    expect(await real.accessToken()).toBe("t1");
    const stored = JSON.parse(where.store.get(where.key)!);
    expect(stored.credential).toMatch(PROOF);
    expect(JSON.stringify(stored)).not.toContain("pw");
    const impostor = new TokenManager({ obtain, shared: { ...where, credential: { password: "wrong" } } });
    expect(await impostor.accessToken()).toBe("t2");
    await where.store.update(where.key, async () => JSON.stringify({ accessToken: "no-hash", expiresAt: Date.now() + 3_600_000 }));
    expect(await new TokenManager({ obtain, shared: where }).accessToken()).toBe("t3");
    // The same secret under another account proves nothing: the account's name is part of what is derived.
    expect(await proves(stored.credential, secretOf(where.key, where.credential))).toEqual({ legacy: false });
    expect(await proves(stored.credential, secretOf("svc:other", where.credential))).toBeUndefined();
  });

  it("an earlier version's SHA-256 proof is taken (a fleet being upgraded does not sign in against itself), and replaced on the next renewal", async () => {
    let obtained = 0;
    const obtain = async () => ({ accessToken: `t${++obtained}`, expiresAt: Date.now() + 3_600_000 });
    const where = shared();
    const sha256 = await hashOf(where.key, { credential: where.credential }, new Set());
    const wrong = await hashOf(where.key, { credential: { password: "wrong" } }, new Set());
    await where.store.update(where.key, async () => JSON.stringify({ accessToken: "old-host", expiresAt: Date.now() + 3_600_000, credential: wrong }));
    expect(await new TokenManager({ obtain, shared: where }).accessToken()).toBe("t1");
    await where.store.update(where.key, async () => JSON.stringify({ accessToken: "old-host", expiresAt: Date.now() + 3_600_000, credential: sha256 }));
    const tm = new TokenManager({ obtain, shared: where });
    expect(await tm.accessToken()).toBe("old-host");
    tm.reject("old-host");
    expect(await tm.accessToken()).toBe("t2");
    expect(JSON.parse(where.store.get(where.key)!).credential).toMatch(PROOF);
  });

  it("the stored proof is PBKDF2-HMAC-SHA-256, 6 rounds of 100,000 iterations (Workers' cap), under a random salt of its own", async () => {
    const secret = secretOf("svc:salted", { password: "pw" });
    const proof = await proofFor(secret);
    expect(proof).toMatch(PROOF);
    const salt = proof.split("$")[2]!;
    // Recomputed by node:crypto: the derivation is what the proof says, not a fast hash dressed as one.
    expect(proofBy(secret, salt, 6)).toBe(proof);
    expect(await proofFor(secretOf("svc:salted-2", { password: "pw" }))).not.toContain(`$${salt}$`);
    // Another writer's proof of the same secret, under its own salt or with more rounds, is taken.
    expect(await proves(proofBy(secret, "0".repeat(32), 6), secret)).toEqual({ legacy: false });
    expect(await proves(proofBy(secret, "1".repeat(32), 7), secret)).toEqual({ legacy: false });
    expect(await proves(proofBy("another secret", "1".repeat(32), 6), secret)).toBeUndefined();
    // Too few rounds to protect anything, or so many that checking would stall the client: no proof.
    expect(await proves(proofBy(secret, "2".repeat(32), 1), secret)).toBeUndefined();
    expect(await proves(`pbkdf2-sha256$99x100000$${"3".repeat(32)}$${"0".repeat(64)}`, secret)).toBeUndefined();
    expect(await proves(`pbkdf2-sha256$6x1000$${"3".repeat(32)}$${"0".repeat(64)}`, secret)).toBeUndefined();
  });

  it("a proof of this secret another holder wrote is kept when the token is renewed, not replaced by this process's own", async () => {
    const where = shared();
    const theirs = proofBy(secretOf(where.key, where.credential), "4".repeat(32), 6);
    await where.store.update(where.key, async () => JSON.stringify({ accessToken: "theirs", expiresAt: Date.now() - 1, credential: theirs }));
    const tm = new TokenManager({ obtain: async () => ({ accessToken: "mine", expiresAt: Date.now() + 3_600_000 }), shared: where });
    expect(await tm.accessToken()).toBe("mine");
    expect(JSON.parse(where.store.get(where.key)!)).toEqual({ accessToken: "mine", expiresAt: expect.any(Number), credential: theirs });
  });

  it("two managers and 200 concurrent callers: exactly one authorization; the second takes the stored token", async () => {
    let obtained = 0;
    const obtain = async () => {
      obtained++;
      await new Promise((r) => setTimeout(r, 5));
      return { accessToken: `t${obtained}`, expiresAt: Date.now() + 3_600_000 };
    };
    const where = shared();
    const a = new TokenManager({ obtain, shared: where });
    const b = new TokenManager({ obtain, shared: where });
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).accessToken()));
    expect(new Set(got)).toEqual(new Set(["t1"]));
    expect(obtained).toBe(1);
  });

  it("a refusal of a token another holder already replaced takes the newer one, without authorizing", async () => {
    let obtained = 0;
    const obtain = async () => ({ accessToken: `t${++obtained}`, expiresAt: Date.now() + 3_600_000 });
    const where = shared();
    const a = new TokenManager({ obtain, shared: where });
    const b = new TokenManager({ obtain, shared: where });
    expect(await a.accessToken()).toBe("t1");
    expect(await b.accessToken()).toBe("t1");
    a.reject("t1"); // t1 expired: a authorizes once
    expect(await a.accessToken()).toBe("t2");
    b.reject("t1"); // b's request with t1 came back 401: b takes t2 from the store
    expect(await b.accessToken()).toBe("t2");
    expect(obtained).toBe(2);
  });

  it("without a shared store the same two holders authorize against each other (the failure the store prevents)", async () => {
    let obtained = 0;
    const obtain = async () => ({ accessToken: `t${++obtained}`, expiresAt: Date.now() + 3_600_000 });
    const a = new TokenManager({ obtain });
    const b = new TokenManager({ obtain });
    await a.accessToken();
    await b.accessToken(); // kills a's token on a single-token service
    a.reject("t1");
    await a.accessToken(); // kills b's
    expect(obtained).toBe(3);
  });

  it("an unreadable stored value is replaced, and a failed authorization leaves the store as it was", async () => {
    const where = shared();
    await where.store.update(where.key, () => "not json");
    let fail = true;
    const tm = new TokenManager({
      obtain: async () => {
        if (fail) throw new AuthenticationError("refused", {});
        return { accessToken: "ok" };
      },
      shared: where,
    });
    await expect(tm.accessToken()).rejects.toThrow("refused");
    expect(where.store.get(where.key)).toBe("not json");
    fail = false;
    expect(await tm.accessToken()).toBe("ok");
    expect(JSON.parse(where.store.get(where.key)!)).toEqual({ accessToken: "ok", credential: expect.stringMatching(PROOF) });
  });
});
