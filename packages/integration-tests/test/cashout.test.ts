// The cash-out client against the sandbox, over HTTP on loopback: every operation, one token per
// credential across clients and processes (a new token kills the old one), expiry of tokens and of
// requests on the sandbox clock, the maximum amount, lost answers and secrets.

import { createHash, pbkdf2Sync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import {
  AnswerLostError,
  AuthenticationError,
  type CashoutClientOptions,
  ConfigurationError,
  ConnectionError,
  createCashoutClient,
  type LogEvent,
  OutcomeUnknownError,
  RequestValidationError,
} from "@paysys/cashout";
import { FileStore } from "@paysys/cashout/node";
import { MemoryStore } from "@paysys/core";
import { defaultCashoutUser, SANDBOX_PASSWORD_AUTH_TYPE, type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials } from "./credentials.js";
import { ask, startWorker, type Worker } from "./workers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ cashout: { users: [defaultCashoutUser, { login: "provider02", password: "other-password" }, { login: "provider03", password: "third-password" }] } });
});
/** Token-store folders, removed at the end: each test's store starts empty. */
const folders: string[] = [];
const storeFolder = () => {
  const folder = mkdtempSync(join(tmpdir(), "cashout-store-"));
  folders.push(folder);
  return folder;
};
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  return sb.close();
});

const HOUR = 3_600_000;
const credentials = cashoutCredentials;
/** Each test its own credential store, so no token carries over from another test. */
const client = (extra: Partial<CashoutClientOptions> = {}) => createCashoutClient({ baseUrl: sb.cashoutUrl, credentials, store: new MemoryStore(), ...extra });
const delta = () => {
  const before = { ...sb.cashout.stats };
  return () => Object.fromEntries(Object.entries(sb.cashout.stats).map(([k, v]) => [k, v - before[k as keyof typeof before]])) as typeof before;
};

describe("cash-out: every operation against the sandbox", () => {
  it("submits a request (status 1, STATUS_PROCESSING) that expires three days later (status 2, STATUS_EXPIRED)", async () => {
    const cashout = client();
    const stored = await cashout.requests.create({ amount: 50_000, account: "77771112233", reference: "prov-000001" });
    expect(stored).toEqual({ id: expect.stringMatching(/^co-/), status: 1, expiresAt: expect.any(String) });
    const id = stored.id as string;
    expect(sb.cashout.request(id)).toMatchObject({ status: 1, body: { amount: 50_000, account: "77771112233", reference: "prov-000001" } });
    sb.clock.advance(3 * 24 * HOUR - 1000);
    expect(sb.cashout.request(id)?.status).toBe(1);
    sb.clock.advance(1000);
    expect(sb.cashout.request(id)?.status).toBe(2);
  });

  it("sends Accept: application/json by default, takes another JSON media type, refuses one that is not JSON before sending", async () => {
    const seen: string[] = [];
    const cashout = client({ hooks: { beforeRequest: ({ request }) => void seen.push(request.headers.get("accept") ?? "") } });
    await cashout.requests.create({ amount: 1 });
    await cashout.requests.create({ Accept: "application/json; charset=utf-8", amount: 2 });
    await cashout.requests.create({ Accept: "application/vnd.api+json", amount: 3 });
    expect(seen).toEqual(["application/json", "application/json", "application/json; charset=utf-8", "application/vnd.api+json"]);
    const refused = await cashout.requests.create({ Accept: "text/html", amount: 4 }).catch((e) => e);
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(refused.issues[0].path).toBe("/Accept");
    expect(seen).toHaveLength(4);
  });

  it("another authorization variant (the certificate one is a gap) sends its fields as given, names the spec does not show too", async () => {
    const cashout = client({
      credentials: {
        authType: SANDBOX_PASSWORD_AUTH_TYPE,
        id: "provider01-cert",
        fields: { login: defaultCashoutUser.login, password: defaultCashoutUser.password, certificateSerial: "7F3A" },
      },
    });
    expect(await cashout.requests.create({ amount: 1 })).toMatchObject({ status: 1 });
  });

  it("wrong credentials are an AuthenticationError; no password or token in any log line or error", async () => {
    const lines: string[] = [];
    const logger = (e: LogEvent) => lines.push(JSON.stringify(e));
    const wrong = client({ credentials: { ...credentials, password: "Wr0ng-Cashout-Pass" }, logger });
    const error = await wrong.requests.create({ amount: 1 }).catch((e) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain("auth.authorize");
    const right = client({ logger });
    await right.requests.create({ amount: 1 });
    sb.clock.advance(HOUR); // a 401 (never re-sent: it moves money) and a renewal: more places a token could show
    expect(await right.requests.create({ amount: 1 }).catch((e) => e)).toBeInstanceOf(AuthenticationError);
    await right.requests.create({ amount: 1 });
    const text = [...lines, error.message, error.stack, JSON.stringify(error), inspect(error, { depth: 5 })].join("\n");
    expect(lines.length).toBeGreaterThan(4);
    for (const secret of ["Wr0ng-Cashout-Pass", defaultCashoutUser.password, ...sb.cashout.issuedTokens()]) expect(text).not.toContain(secret);
  });
});

describe("cash-out: one token per credential", () => {
  it("200 concurrent requests from a new client: exactly one authorization", async () => {
    const d = delta();
    const cashout = client();
    const stored = await Promise.all(Array.from({ length: 200 }, (_, i) => cashout.requests.create({ amount: i + 1 })));
    expect(new Set(stored.map((s) => s.id)).size).toBe(200);
    expect(d()).toMatchObject({ authorizations: 1, revokedUses: 0, stored: 200 });
  });

  it("two clients in one process share the token without being told (the default store is the process's)", async () => {
    const d = delta();
    const shared = { credentials: { authType: 1, login: "provider02", password: "other-password" } };
    const a = createCashoutClient({ baseUrl: sb.cashoutUrl, ...shared });
    const b = createCashoutClient({ baseUrl: sb.cashoutUrl, ...shared });
    for (let round = 0; round < 5; round++) await Promise.all([a.requests.create({ amount: 1 }), b.requests.create({ amount: 2 })]);
    expect(d()).toMatchObject({ authorizations: 1, revokedUses: 0, stored: 10 });
  });

  it("the failure the shared store prevents: two clients with stores of their own kill each other's tokens", async () => {
    const d = delta();
    const a = client();
    const b = client();
    let refused = 0;
    for (let round = 0; round < 5; round++) {
      for (const [c, amount] of [[a, 1] as const, [b, 2] as const]) {
        // A request refused with 401 moves money: it is never re-sent, the caller sees the refusal.
        const error = await c.requests.create({ amount }).catch((e) => e);
        if (error instanceof AuthenticationError) refused++;
        else expect(error).toMatchObject({ status: 1 });
      }
    }
    // Each client's authorization kills the other's token: a refusal, a new authorization that kills
    // the other's, and so on (a, b ok; a refused; a authorizes, b refused; b authorizes, a refused).
    expect(refused).toBe(3);
    expect(d()).toMatchObject({ authorizations: 4, revokedUses: refused, stored: 10 - refused });
  });

  it("five hours of sandbox time, two clients: one authorization an hour, no revoked-token loop, no call lost unseen", async () => {
    const d = delta();
    const store = new MemoryStore();
    const a = client({ store: store });
    const b = client({ store: store });
    let refused = 0;
    for (let hour = 0; hour < 5; hour++) {
      if (hour > 0) sb.clock.advance(HOUR);
      // The sandbox's clock jumped an hour; the clients' did not, so the hour's first calls carry an
      // expired token. Refused with 401, they are never re-sent (they move money): the caller sees them.
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).requests.create({ amount: i + 1 })));
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(AuthenticationError);
      refused += results.filter((r) => r.status === "rejected").length;
      // Once the token was renewed, the hour's next calls go through on the one new token.
      expect(await Promise.all([a.requests.create({ amount: 99 }), b.requests.create({ amount: 98 })])).toHaveLength(2);
    }
    const counts = d();
    expect(counts.authorizations).toBe(5);
    expect(counts.stored + refused).toBe(110);
    expect(counts.revokedUses + counts.expiredUses).toBe(refused);
  });

  it("two processes sharing a FileStore: one authorization an hour between them", { timeout: 60_000 }, async () => {
    const d = delta();
    const path = join(storeFolder(), "tokens.json");
    const workers = [0, 1].map(() =>
      startWorker(new URL("./fixtures/cashout-worker.mjs", import.meta.url), [sb.cashoutUrl, JSON.stringify({ kind: "file", path }), "provider03", "third-password"]),
    );
    const run = (w: Worker, n: number) => ask<{ ok?: number; refused?: number; error?: string }>(w, `run ${n}`);
    let refused = 0;
    try {
      for (let hour = 0; hour < 3; hour++) {
        if (hour > 0) sb.clock.advance(HOUR);
        // The hour's first requests may carry the token the sandbox's jump expired: refused, never re-sent.
        for (const answer of await Promise.all(workers.map((w) => run(w, 25)))) {
          expect(answer).toEqual({ ok: expect.any(Number), refused: expect.any(Number), inUse: 0 });
          refused += answer.refused!;
        }
        expect(await Promise.all(workers.map((w) => run(w, 5)))).toEqual([
          { ok: 5, refused: 0, inUse: 0 },
          { ok: 5, refused: 0, inUse: 0 },
        ]);
      }
    } finally {
      for (const w of workers) w.child.stdin!.end("exit\n");
    }
    const counts = d();
    expect(counts).toMatchObject({ authorizations: 3, stored: 180 - refused });
    expect(counts.revokedUses + counts.expiredUses).toBe(refused);
    // The store file holds the token only for this machine's processes; it is written owner-only.
    expect(JSON.parse(readFileSync(path, "utf8")).values).toHaveProperty([`cashout ${sb.cashoutUrl} provider03`]);
  });

  it("the token's row shows a reader of the store no cheap way to the password: a PBKDF2 proof under a salt of its own", async () => {
    const path = join(storeFolder(), "tokens.json");
    await client({ store: new FileStore(path) }).requests.create({ amount: 1 });
    const row = JSON.parse(JSON.parse(readFileSync(path, "utf8")).values[`cashout ${sb.cashoutUrl} ${defaultCashoutUser.login}`]);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain(defaultCashoutUser.password);
    const [scheme, rounds, salt, hash] = String(row.credential).split("$");
    expect([scheme, rounds, salt?.length, hash?.length]).toEqual(["pbkdf2-sha256", "6x100000", 32, 64]);
    // What a reader must do per guess: 600,000 HMACs under this row's salt (the probe's dictionary
    // tested a fast SHA-256 per guess, its only salt the account's name, in 200 ms). One right guess:
    const secret = `${JSON.stringify(`cashout ${sb.cashoutUrl} ${defaultCashoutUser.login}`)}:${JSON.stringify({ credential: credentials })}`;
    let bits: Buffer | string = secret;
    for (let i = 0; i < 6; i++) bits = pbkdf2Sync(bits, salt!, 100_000, 32, "sha256");
    expect(bits.toString("hex")).toBe(hash);
    expect(createHash("sha256").update(secret).digest("hex")).not.toBe(row.credential);
  });

  it("a FileStore also shares the token between clients of one process", async () => {
    const d = delta();
    const path = join(storeFolder(), "tokens.json");
    const a = client({ store: new FileStore(path) });
    const b = client({ store: new FileStore(path) });
    await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).requests.create({ amount: i + 1 })));
    expect(d()).toMatchObject({ authorizations: 1, revokedUses: 0 });
  });
});

describe("cash-out: money", () => {
  it("maxAmount, when you give it, refuses a larger request before sending; without it nothing is assumed", async () => {
    const limited = client({ maxAmount: { value: 135_000, at: "/amount" } });
    const d = delta();
    const refused = await limited.requests.create({ amount: 135_001 }).catch((e) => e);
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect(refused.issues).toEqual([{ path: "/amount", message: "must not exceed maxAmount 135000" }]);
    await expect(limited.requests.create({ sum: 10 })).rejects.toThrow(
      "/amount must be the amount (a number, or a string of plain decimal digits), to be checked against maxAmount 135000",
    );
    expect(d().stored).toBe(0);
    expect(await limited.requests.create({ amount: "135000" })).toMatchObject({ status: 1 });
    expect(await client().requests.create({ amount: 10_000_000 })).toMatchObject({ status: 1 });
    expect(() => client({ maxAmount: { value: 1, at: "amount" } })).toThrow(ConfigurationError);
  });

  it("a submission whose answer is lost is not re-sent: nothing can tell its outcome, so the error says so and the key is never sent again", async () => {
    const cashout = client({
      retry: { maxRetries: 3, baseDelayMs: 1 },
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        if (url.endsWith("/cash-out-request")) throw new TypeError("fetch failed: socket hang up");
        return response;
      },
    });
    const d = delta();
    const error = await cashout.requests.create({ amount: 7 }, { idempotencyKey: "withdrawal-7" }).catch((e) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).toMatchObject({ outcomeUnknown: true, key: "withdrawal-7", wasApplied: undefined });
    expect(error.cause).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/offers no way to ask.*journal\.settle/);
    expect(d().stored).toBe(1);
    // Asked again under the same key: still unknown, still not sent.
    expect(await cashout.requests.create({ amount: 7 }, { idempotencyKey: "withdrawal-7" }).catch((e) => e)).toBeInstanceOf(OutcomeUnknownError);
    expect(d().stored).toBe(1);
    // The provider's people say it was stored: the key then answers so, and is never sent.
    await cashout.journal.settle({ operation: "requests.create", key: "withdrawal-7" }, true);
    expect(await cashout.requests.create({ amount: 7 }, { idempotencyKey: "withdrawal-7" }).catch((e) => e)).toBeInstanceOf(AnswerLostError);
    expect(d().stored).toBe(1);
  });
});
