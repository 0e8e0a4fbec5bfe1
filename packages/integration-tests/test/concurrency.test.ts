// For every client that holds a token (portal, fiscal, cash-out; e-commerce sends Basic credentials
// with each call): 200 concurrent calls with no token yet, with a token the client's clock says has
// expired, and with a token the server has just revoked cause exactly one sign-in or renewal, and
// every call succeeds. The counts are the sandbox's own.

import { AuthenticationError, createCashoutClient } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { createFiscalClient } from "@paysys/fiscal";
import { createPortalClient } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cashoutCredentials, fiscalCredentials, portalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const CALLS = 200;
const DAY = 86_400_000;

/** A token-bearing client reduced to what this test needs, with the sandbox counters that matter. */
interface Subject {
  call: () => Promise<unknown>;
  close: () => Promise<void>;
  /** The server drops the client's token (the client still believes it valid). */
  revoke: () => Promise<void>;
  /** Sign-ins and renewals counted by the sandbox. */
  counts: () => { signIns: number; renewals: number };
}

const subjects: Record<string, () => Subject> = {
  portal: () => {
    const portal = createPortalClient({
      baseUrl: sb.portalUrl,
      credentials: portalCredentials,
      solveCaptcha: async ({ captchaSession }) => sb.portal.captchaText(captchaSession) ?? "",
    });
    return {
      call: () => portal.user.me(),
      close: () => portal.close(),
      revoke: async () => sb.portal.expireAccessTokens(),
      counts: () => ({ signIns: sb.portal.stats.token, renewals: sb.portal.stats.refresh }),
    };
  },
  fiscal: () => {
    const fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials });
    return {
      call: () => fiscal.companies.list(),
      close: () => fiscal.close(),
      revoke: async () => sb.fiscal.expireTokens(),
      // The fiscal service has no refresh token: every renewal is a sign-in.
      counts: () => ({ signIns: sb.fiscal.stats.logins, renewals: 0 }),
    };
  },
  cashout: () => {
    const credentials = cashoutCredentials;
    const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials, store: new MemoryStore() });
    let amount = 0;
    return {
      call: () => cashout.requests.create({ amount: ++amount }),
      close: async () => {},
      // The document's rule: a new authorization for the login kills the old token at once.
      revoke: async () => {
        await createCashoutClient({ baseUrl: sb.cashoutUrl, credentials, store: new MemoryStore() }).requests.create({ amount: 1 });
      },
      // A cash-out token cannot be refreshed: every renewal is an authorization.
      counts: () => ({ signIns: sb.cashout.stats.authorizations, renewals: 0 }),
    };
  },
};

/** Runs `body` with Date.now() two days ahead (the sandbox's clock follows it too, so both sides agree the token expired). */
async function twoDaysLater<T>(body: () => Promise<T>): Promise<T> {
  const real = Date.now.bind(Date);
  const spy = vi.spyOn(Date, "now").mockImplementation(() => real() + 2 * DAY);
  try {
    return await body();
  } finally {
    spy.mockRestore();
  }
}

function since(s: Subject) {
  const before = s.counts();
  return () => {
    const after = s.counts();
    return after.signIns - before.signIns + (after.renewals - before.renewals);
  };
}

const burst = (s: Subject) => Promise.all(Array.from({ length: CALLS }, () => s.call()));

describe.each(Object.keys(subjects))("%s: 200 concurrent calls cause exactly one sign-in or renewal", (name) => {
  it("with no token yet", async () => {
    const s = subjects[name]!();
    const authorizations = since(s);
    expect(await burst(s)).toHaveLength(CALLS);
    expect(authorizations()).toBe(1);
    await s.close();
  });

  it("with a token the client's clock says has expired", async () => {
    const s = subjects[name]!();
    await s.call();
    const authorizations = since(s);
    expect(await twoDaysLater(() => burst(s))).toHaveLength(CALLS);
    expect(authorizations()).toBe(1);
    await twoDaysLater(() => s.close());
  });

  it("with a token the server has just revoked", async () => {
    const s = subjects[name]!();
    await s.call();
    await s.revoke();
    const authorizations = since(s);
    if (name === "cashout") {
      // Its one operation moves money, so a refusal is never re-sent: the calls on their way with
      // the revoked token fail, and the next ones share one new authorization.
      const first = await Promise.allSettled(Array.from({ length: CALLS }, () => s.call()));
      expect(first.every((r) => r.status === "fulfilled" || r.reason instanceof AuthenticationError)).toBe(true);
      expect(first.some((r) => r.status === "rejected")).toBe(true);
    }
    expect(await burst(s)).toHaveLength(CALLS);
    expect(authorizations()).toBe(1);
    await s.close();
  });
});
