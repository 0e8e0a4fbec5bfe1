// Cash-out sign-in answers that lie about the token's expiry, from a lying service on loopback
// (the sandbox's own answers are right). Where a new token kills the old one, an expiry trusted as
// given made holders sign in against each other: a huge `expiresIn` became Infinity, which a shared
// store keeps as null and every other holder read as expired; one in the past, or closer than the
// early renewal, meant a sign-in per call. Now such an expiry counts as unknown: the scheme's hour,
// and a 401 renews the token.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createCashoutClient } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { describe, expect, it } from "vitest";

const credentials = { authType: 1, login: "provider01", password: "Lies-About-Expiry-1" };

/** A cash-out service that issues one live token at a time (a new one kills the old) and answers sign-ins with `answer`. */
async function lyingService(answer: (token: string) => Record<string, unknown>) {
  const stats = { signIns: 0, refused: 0, accepted: 0 };
  let current: string | undefined;
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.url?.endsWith("/authorize")) {
      current = `tok-${++stats.signIns}-${Math.random().toString(36).slice(2)}`;
      return json(200, answer(current));
    }
    if (req.url?.endsWith("/cash-out-request")) {
      if (req.headers.authorization !== `Bearer ${current}`) {
        stats.refused++;
        return json(401, { message: "token revoked" });
      }
      return json(200, { id: `co-${++stats.accepted}`, status: 1 });
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, stats, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe("cash-out sign-ins whose expiry lies", () => {
  for (const [what, answer] of [
    ["a huge expiresIn (1e306 s: Infinity ms)", (token: string) => ({ token, expiresIn: 1e306 })],
    ["an expiresIn in the past", (token: string) => ({ token, expiresIn: -3600 })],
    ["an expiresIn of 0", (token: string) => ({ token, expiresIn: 0 })],
    ["an expiresIn of 5 s, inside the 10 s early renewal", (token: string) => ({ token, expiresIn: 5 })],
  ] as const) {
    it(`${what}: two holders of one store sign in once, and no payout is refused`, async () => {
      const service = await lyingService(answer);
      const store = new MemoryStore();
      const a = createCashoutClient({ baseUrl: service.url, credentials, store });
      const b = createCashoutClient({ baseUrl: service.url, credentials, store });
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).requests.create({ amount: i + 1 })));
      for (let i = 0; i < 4; i++) for (const c of [a, b]) outcomes.push(...(await Promise.allSettled([c.requests.create({ amount: 100 + i })])));
      await service.close();
      expect({ ...service.stats, failed: outcomes.filter((o) => o.status === "rejected").length }).toEqual({ signIns: 1, refused: 0, accepted: 28, failed: 0 });
    });
  }

  it("an extractToken that gives expiresAt NaN: one sign-in, not one per call", async () => {
    const service = await lyingService((token) => ({ token }));
    const c = createCashoutClient({ baseUrl: service.url, credentials, store: new MemoryStore(), extractToken: (a) => ({ accessToken: String(a.token), expiresAt: Number.NaN }) });
    for (let i = 0; i < 5; i++) await c.requests.create({ amount: i + 1 });
    await service.close();
    expect(service.stats).toEqual({ signIns: 1, refused: 0, accepted: 5 });
  });
});
