// A hostile probe of the portal client (2026-11-28), kept as tests: errors that are not PaysysError subclasses from public methods, with options that pass
// construction (so a JavaScript caller's mistake surfaces at the lazily loaded first call).
import { createPortalClient, PaysysError, type PortalClientOptions } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalClients } from "./portal-clients.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const portal = portalClients(() => sb);
const client = (extra: Partial<PortalClientOptions> = {}) => portal.client("v2", extra);
const describeError = (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message.slice(0, 160)}` : `not an error: ${String(e)}`);

describe("probe5 untyped errors", () => {
  it("authorize that returns nothing (JS caller): construction or the first call gives a PaysysError", async () => {
    let e: unknown;
    try {
      const p = client({ authorize: (() => undefined) as never });
      e = await p.user.me().catch((x) => x);
    } catch (x) {
      e = x;
    }
    expect(e, describeError(e)).toBeInstanceOf(PaysysError);
  });

  it("raw.use() with a bad middleware before the first call: later typed calls still give PaysysErrors", async () => {
    const p = client();
    let syncError: unknown;
    try {
      p.raw.use(null as never);
    } catch (e) {
      syncError = e;
    }
    const e = syncError ?? (await p.user.me().catch((x) => x));
    // a success (the null middleware ignored) is fine; an error must be typed
    if (e instanceof Error) expect(e, describeError(e)).toBeInstanceOf(PaysysError);
  });

  for (const baseUrl of ["", "/portal", "ftp://127.0.0.1/portal", "not a url"]) {
    it(`baseUrl ${JSON.stringify(baseUrl)}: refused at construction, or a typed error at the first call`, async () => {
      let e: unknown;
      try {
        const p = createPortalClient({ baseUrl });
        e = await p.requestCaptcha().catch((x) => x);
      } catch (x) {
        e = x;
      }
      expect(e, describeError(e)).toBeInstanceOf(PaysysError);
      expect((e as Error).constructor.name, describeError(e)).toBe("ConfigurationError");
    });
  }

  it("baseUrl with a fragment or a query: refused before anything is sent (else every path, account.token included, is dropped or moved into the query)", async () => {
    const seen: string[] = [];
    const wrong: string[] = [];
    for (const suffix of ["#x", "?x=1"]) {
      sb.faults.clear();
      let e: unknown;
      try {
        const p = createPortalClient({ baseUrl: sb.portalUrl + suffix });
        e = await p.requestCaptcha().catch((x) => x);
      } catch (x) {
        e = x;
      }
      seen.push(...sb.faults.seen.map((s) => `${s.method} ${s.path}`));
      if ((e as Error)?.constructor?.name !== "ConfigurationError") wrong.push(`${suffix}: ${describeError(e)} (server saw ${seen.join(", ")})`);
    }
    expect(wrong).toEqual([]);
  });
});
