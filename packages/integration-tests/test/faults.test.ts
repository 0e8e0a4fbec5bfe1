// The fault suite: every client against a hostile server (the sandbox's fault mode in front of
// it), over HTTP on loopback. Each case runs in a process of its own, so that besides the error
// class, the attempts, how many times the request reached the server (a money operation: at most
// once) and that no secret appears in any log event or any rendering of the error (message, stack,
// JSON, util.inspect, the cause chain), it can check that nothing is left unhandled and that the
// process is free to exit within a second after close(). The summary table is printed and saved in
// artifacts/. Cases: fault-cases.ts. Unhandled errors of the in-process property tests fail the run
// (vitest's default).
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCashoutClient, MemoryStore } from "@paysys/cashout";
import { PaysysError, RequestValidationError } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { createPortalClient } from "@paysys/portal";
import { defaultCashoutUser, defaultFiscalUser, defaultMerchant, defaultPortalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { bundle, specs } from "@paysys/spec-tools";
import { build } from "esbuild";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";
import { type CaseResult, cases, faultCard, labelOf } from "./fault-cases.js";

let sb: Sandbox;
/** Warnings Node printed while the sandbox served the faults (a listener piling up per write, say). */
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
beforeAll(async () => {
  process.on("warning", onWarning);
  sb = await startSandbox();
});
afterAll(() => process.off("warning", onWarning));
afterAll(() => sb.close());

/**
 * Every value the case's client held that must never show: its credentials (and the card, for the
 * e-commerce client), every token the sandbox issued, and what only the case knew (captcha texts,
 * cryptograms). Another client's credentials were never in the case's process.
 */
function secrets(client: string, known: string[]): string[] {
  const basic = Buffer.from(`${defaultMerchant.login}:${defaultMerchant.password}`).toString("base64");
  const credentials: Record<string, string[]> = {
    portal: [defaultPortalUser.psw],
    fiscal: [defaultFiscalUser.Password],
    ecommerce: [defaultMerchant.password, basic, faultCard.pan, faultCard.cvv],
    cashout: [defaultCashoutUser.password],
  };
  return [...credentials[client]!, ...known, ...sb.portal.issuedTokens(), ...sb.cashout.issuedTokens(), ...sb.fiscal.issuedTokens()].filter((s) => s.length >= 4);
}

/**
 * Whether a secret shows in a text. A short one (the CVV, a captcha text) counts where it stands
 * alone, not inside a longer run of letters, digits and hyphens (a UUID, a port, a timestamp, an
 * order id), where a 4-digit CVV turns up by chance about once in a thousand cases; a leak would
 * print it alone, as a JSON string or after a space, a colon or an equals sign.
 */
function shows(secret: string, text: string): boolean {
  if (secret.length >= 8) return text.includes(secret);
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\w-])${escaped}(?![\\w-])`).test(text);
}

/** Which secret shows and around what, every secret masked: a failure must say what leaked without printing it. */
function whereItShows(secret: string, known: string[], text: string): string {
  const masked = (t: string) => known.reduce((out, s, i) => out.split(s).join(`[secret #${i}, ${s.length} chars]`), t);
  const at = text.indexOf(secret);
  return `secret #${known.indexOf(secret)} (${secret.length} chars) in …${masked(text.slice(Math.max(0, at - 60), at + secret.length + 60))}…`;
}

interface Row {
  client: string;
  operation: string;
  fault: string;
  outcome: string;
  attempts: number | string;
  reached: number;
  leaks: number;
  exit: string;
}
const rows: Row[] = [];

/** The case runner, bundled once so each case's process starts in a fraction of a second. */
const runner = join(import.meta.dirname, "../node_modules/.fault-suite/fault-case.mjs");
beforeAll(async () => {
  await build({
    entryPoints: [join(import.meta.dirname, "fixtures/fault-case.ts")],
    outfile: runner,
    bundle: true,
    platform: "node",
    format: "esm",
    packages: "external",
    logLevel: "error",
  });
});

/** Runs case `index` in its own process; its lines are the result and, at exit, what held it. */
function inChild(
  index: number | "unread-file" | "unread-file-over-fetch" | "cancelled-file-over-fetch",
): Promise<{ result: CaseResult; code: number | null; end: { unhandled: string[]; heldBy?: string[] } }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [runner, String(index), sb.url], { timeout: 15_000 }, (error, stdout) => {
      const lines = stdout.trim().split("\n");
      if (lines.length < 2) return reject(new Error(`the case process printed no result (${error?.message ?? "no error"}):\n${stdout}`));
      resolve({ result: JSON.parse(lines[0]!), code: error ? Number(error.code ?? 1) : 0, end: JSON.parse(lines.at(-1)!) });
    });
  });
}

describe("fault suite", () => {
  it("finds a short secret standing alone, and not inside a UUID, a port or a timestamp", () => {
    expect(shows("7391", '{"cvv":"7391"}')).toBe(true);
    expect(shows("7391", "card 4111…1111, CVV 7391.")).toBe(true);
    expect(shows("7391", "http://127.0.0.1:37391/ 25a629a7-7391-418a-927c-70c93df3ca64 fault-7391-1732337391000")).toBe(false);
    expect(shows("A1B2C", "captcha A1B2C refused")).toBe(true);
    expect(shows("a-long-token-value", "…xa-long-token-valuex…")).toBe(true);
  });

  cases.forEach((c, index) => {
    const label = `${c.client} ${c.operation}: ${labelOf(c)}`;
    it(label, { timeout: 20_000 }, async () => {
      sb.faults.clear(); // whatever an earlier, failed case left
      const { result, code, end } = await inChild(index);
      const reached = sb.faults.count(c.path);
      const known = secrets(c.client, result.secrets);
      const leaked = known.filter((s) => shows(s, result.text));
      const leaks = leaked.length;
      rows.push({
        client: c.client,
        operation: c.operation,
        fault: labelOf(c),
        outcome: result.outcome,
        attempts: result.attempts,
        reached,
        leaks,
        exit: code === 0 ? "free" : `held by ${end.heldBy?.join(", ")}`,
      });
      if (result.outcome !== "ok") expect(result.isPaysysError, result.stack).toBe(true);
      expect(result.outcome).toBe(c.expect);
      if (c.attempts !== undefined && result.outcome !== "ok") expect(result.attempts).toBe(c.attempts);
      if (c.reached !== undefined) expect(reached).toBe(c.reached);
      if (c.tellsOutcome) expect(result.text).toMatch(/not retried: sent once, and its outcome is learnt from the service/);
      expect(leaks, `secrets in logs or error renderings: ${leaked.map((x) => whereItShows(x, known, result.text)).join("; ")}`).toBe(0);
      // The case-only secrets were there to look for: the portal read a captcha, the shop made a cryptogram.
      if (c.client === "portal" || c.client === "ecommerce") expect(result.secrets.length).toBeGreaterThan(0);
      expect(end.unhandled, "unhandled rejections or uncaught exceptions").toEqual([]);
      expect({ code, heldBy: end.heldBy }, "the process must be free to exit within a second after close()").toEqual({ code: 0, heldBy: undefined });
      sb.faults.clear();
    });
  });

  it("the exit check catches what holds a process: over Node's fetch a file left unread holds its socket, a cancelled one does not", { timeout: 20_000 }, async () => {
    const unread = await inChild("unread-file-over-fetch");
    expect(unread.code).toBe(3);
    expect(unread.end.heldBy).toContain("TCPSocketWrap");
    const cancelled = await inChild("cancelled-file-over-fetch");
    expect({ code: cancelled.code, heldBy: cancelled.end.heldBy }).toEqual({ code: 0, heldBy: undefined });
  });

  it("over the default HTTP (node:http) a file left unread holds nothing: its socket is paused", { timeout: 20_000 }, async () => {
    const unread = await inChild("unread-file");
    expect({ code: unread.code, heldBy: unread.end.heldBy }).toEqual({ code: 0, heldBy: undefined });
  });

  it("credentials never follow a redirect to another host", () => {
    const other = sb.faults.seen.filter((s) => s.host.startsWith("localhost"));
    expect(other.every((s) => s.authorization === undefined)).toBe(true);
  });

  it("the sandbox served every fault without a listener piling up", () => {
    expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
  });

  it("the summary is saved", () => {
    expect(rows.length).toBe(cases.length);
    const table = [
      "| client | operation | fault | outcome | attempts | reached the server | secrets leaked | process after close() |",
      "|---|---|---|---|---|---|---|---|",
      ...rows.map((r) => `| ${r.client} | ${r.operation} | ${r.fault} | ${r.outcome} | ${r.attempts} | ${r.reached} | ${r.leaks} | ${r.exit} |`),
    ].join("\n");
    const dir = join(import.meta.dirname, "../../../artifacts");
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, "fault-suite.md"),
      `# Fault suite\n\n${rows.length} cases, ${rows.filter((r) => r.leaks > 0).length} with a leak, ${rows.filter((r) => r.exit !== "free").length} held the process after close().\n\n${table}\n`,
    );
    console.log(`fault suite: ${rows.length} cases\n${table}`);
  });
});

describe("hostile parameters (10,000 runs per client, seeded)", () => {
  const odd = fc.oneof(
    fc.constantFrom(
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      -1,
      -0,
      2 ** 53,
      1.5,
      "",
      "x".repeat(100_000),
      "20241399",
      "2024-02-30",
      "0000-00-00T25:61:00Z",
      "\u0000",
      "__proto__",
      null,
      true,
      [],
      {},
    ),
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.object({ maxDepth: 1 }),
    fc.date({ noInvalidDate: false }),
  );
  const hostileKeys = ["__proto__", "constructor", "prototype", "toString", "dateFro"];

  /** The parameter and field names of an interface's spec, so the fuzz meets real checks, not only unknown-name refusals. */
  function namesOf(iface: string): string[] {
    const names = new Set<string>();
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      if (o.properties && typeof o.properties === "object") for (const k of Object.keys(o.properties)) names.add(k);
      if (typeof o.name === "string" && typeof o.in === "string") names.add(o.name);
      for (const child of Object.values(o)) walk(child);
    };
    for (const spec of specs.filter((s) => s.iface === iface)) walk(bundle(spec));
    return [...names];
  }
  const paramsFor = (iface: string) => {
    const key = fc.constantFrom(...namesOf(iface), ...hostileKeys);
    const params = fc
      .dictionary(key, odd, { maxKeys: 4 })
      .map((p) => JSON.parse(JSON.stringify(p, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? `${v}` : v))) as object);
    // Values JSON cannot carry do not survive the round trip: put one back, next to the parsed (own)
    // __proto__ keys: a non-finite number, a BigInt, a function, a symbol, a Map, an array hole,
    // binary data, an object that contains itself.
    const cyclic: Record<string, unknown> = {};
    cyclic.self = { back: cyclic };
    const jsOnly = [Number.NaN, Number.POSITIVE_INFINITY, 10n, () => 1, Symbol("s"), new Map([["a", 1]]), [1, undefined], new Uint8Array(2), cyclic];
    return fc.tuple(params, fc.constantFrom(1, ...jsOnly), key).map(([p, n, k]) => Object.assign(p, { [k]: n }));
  };

  /**
   * Every method of a client's namespaces (`portal.reports.payments`, …), by its dotted name. `raw`
   * is left out: it is openapi-fetch's own client (path and init, not params), the escape hatch.
   */
  function methodsOf(client: object): [string, (p: unknown) => Promise<unknown>][] {
    return Object.entries(client).flatMap(([ns, value]) =>
      ns !== "raw" && value !== null && typeof value === "object"
        ? Object.entries(value as Record<string, unknown>)
            .filter(([, m]) => typeof m === "function")
            .map(([name, m]): [string, (p: unknown) => Promise<unknown>] => [`${ns}.${name}`, m as (p: unknown) => Promise<unknown>])
        : [],
    );
  }

  const noRetry = { retry: { maxRetries: 0 } };
  // The portal without credentials: a call whose input passes every check ends in AuthenticationError
  // (sign in first) before any request. The others hold credentials; their module answers 503 to
  // whatever gets through, so no money moves and nothing is retried.
  const clients = [
    { name: "portal v2", iface: "portal", prefix: "/portal/v2", make: () => createPortalClient({ baseUrl: sb.portalUrl, version: "v2" }) },
    { name: "portal v1", iface: "portal", prefix: "/portal/v1", make: () => createPortalClient({ baseUrl: sb.portalUrl, version: "v1" }) },
    {
      name: "fiscal",
      iface: "fiscal",
      prefix: "/fiscal",
      make: () => createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, ...noRetry }),
    },
    {
      name: "ecommerce",
      iface: "ecommerce",
      prefix: "/ecommerce",
      make: () => createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, ...noRetry }),
    },
    {
      name: "cashout",
      iface: "cashout",
      prefix: "/cashout",
      make: () =>
        createCashoutClient({
          baseUrl: sb.cashoutUrl,
          credentials: cashoutCredentials,
          store: new MemoryStore(),
          ...noRetry,
        }),
    },
  ];

  it("values JSON cannot carry are refused at their path, also inside objects the spec leaves open, and nothing is sent", async () => {
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    sb.faults.clear();
    const fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, ...noRetry });
    // A receipt position allows properties the spec does not name: the validator does not look there.
    const position = { Name: "Tea", IdSection: 1, Price: 250, Qty: 2 };
    const odd = { Weight: 10n, Note: () => "x", Tags: new Set(["a"]), Parts: [1, undefined], Loop: cyclic, Ratio: Number.NaN };
    const sale = fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions: [{ ...position, ...odd }], Total: 500, Cash: 500 });
    const refused = await sale.catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RequestValidationError);
    expect((refused as RequestValidationError).issues.map((i) => i.path)).toEqual([
      "/Positions/0/Weight",
      "/Positions/0/Note",
      "/Positions/0/Tags",
      "/Positions/0/Parts/1",
      "/Positions/0/Loop/self",
      "/Positions/0/Ratio",
    ]);
    // An open parameter list (the portal's report filters) is not validated either.
    const portal = createPortalClient({ baseUrl: sb.portalUrl, ...noRetry });
    const period = { dateFrom: "2024-05-01", dateTo: "2024-05-01" };
    const open = await portal.reports.payments(period, { extraParams: { agent: 7n } }).catch((e: unknown) => e);
    expect(open).toBeInstanceOf(RequestValidationError);
    expect((open as RequestValidationError).issues).toEqual([{ path: "(extraParams)/agent", message: expect.stringContaining("BigInt") }]);
    // A toJSON that throws is the caller's input too.
    const throwing = {
      toJSON() {
        throw new Error("the cart is locked");
      },
    };
    const late = await portal.reports.payments(period, { extraParams: { agent: throwing } }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(RequestValidationError);
    expect((late as Error).message).not.toContain("locked");
    expect(sb.faults.seen).toEqual([]);
  });

  for (const { name, iface, prefix, make } of clients) {
    it(`${name}: every method refuses hostile params with a PaysysError and sends nothing it refused`, { timeout: 120_000 }, async () => {
      const methods = methodsOf(make());
      expect(methods.length).toBeGreaterThan(0); // cash-out has one: requests.create (it authorizes by itself)
      sb.faults.clear();
      sb.faults.add({ path: prefix, times: Number.POSITIVE_INFINITY, fault: { kind: "status", status: 503, body: "" } });
      let refusedByChecks = 0;
      await fc.assert(
        fc.asyncProperty(paramsFor(iface), fc.nat(methods.length - 1), async (p, m) => {
          const [method, call] = methods[m]!;
          const seen = sb.faults.seen.length;
          // A synchronous throw counts as a failure too: it must be a PaysysError as well.
          const e = await Promise.resolve()
            .then(() => call(p))
            .then(
              () => undefined,
              (x: unknown) => x,
            );
          if (e !== undefined) expect(e, `${method}: ${String((e as Error)?.stack)}`).toBeInstanceOf(PaysysError);
          if ((e as Error | undefined)?.name === "RequestValidationError") {
            refusedByChecks++;
            expect(sb.faults.seen.length, `${method} sent a request it refused`).toBe(seen);
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { numRuns: 10_000, seed: 22112026 },
      );
      sb.faults.clear();
      expect(refusedByChecks).toBeGreaterThan(5_000);
    });
  }
});
