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
import { PaysysError } from "@paysys/core";
import { createPortalClient } from "@paysys/portal";
import { defaultCashoutUser, defaultFiscalUser, defaultMerchant, defaultPortalUser, type Sandbox, startSandbox } from "@paysys/sandbox";
import { build } from "esbuild";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CaseResult, cases, labelOf } from "./fault-cases.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

/** Every value the clients held that must never show: credentials, every token the sandbox issued, every captcha text. */
function secrets(captchas: string[]): string[] {
  const basic = Buffer.from(`${defaultMerchant.login}:${defaultMerchant.password}`).toString("base64");
  return [
    defaultPortalUser.psw,
    defaultFiscalUser.Password,
    defaultMerchant.password,
    basic,
    defaultCashoutUser.password,
    ...captchas,
    ...sb.portal.issuedTokens(),
    ...sb.cashout.issuedTokens(),
    ...sb.fiscal.issuedTokens(),
  ].filter((s) => s.length >= 4);
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
function inChild(index: number | "unread-file" | "cancelled-file"): Promise<{ result: CaseResult; code: number | null; end: { unhandled: string[]; heldBy?: string[] } }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [runner, String(index), sb.url], { timeout: 15_000 }, (error, stdout) => {
      const lines = stdout.trim().split("\n");
      if (lines.length < 2) return reject(new Error(`the case process printed no result (${error?.message ?? "no error"}):\n${stdout}`));
      resolve({ result: JSON.parse(lines[0]!), code: error ? Number(error.code ?? 1) : 0, end: JSON.parse(lines.at(-1)!) });
    });
  });
}

describe("fault suite", () => {
  cases.forEach((c, index) => {
    const label = `${c.client} ${c.operation}: ${labelOf(c)}`;
    it(label, { timeout: 20_000 }, async () => {
      sb.faults.clear(); // whatever an earlier, failed case left
      const { result, code, end } = await inChild(index);
      const reached = sb.faults.count(c.path);
      const leaks = secrets(result.captchas).filter((s) => result.text.includes(s)).length;
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
      expect(leaks, "secrets in logs or error renderings").toBe(0);
      expect(end.unhandled, "unhandled rejections or uncaught exceptions").toEqual([]);
      expect({ code, heldBy: end.heldBy }, "the process must be free to exit within a second after close()").toEqual({ code: 0, heldBy: undefined });
      sb.faults.clear();
    });
  });

  it("the exit check catches what holds a process: a file left unread holds its socket, a cancelled one does not", { timeout: 20_000 }, async () => {
    const unread = await inChild("unread-file");
    expect(unread.code).toBe(3);
    expect(unread.end.heldBy).toContain("TCPSocketWrap");
    const cancelled = await inChild("cancelled-file");
    expect({ code: cancelled.code, heldBy: cancelled.end.heldBy }).toEqual({ code: 0, heldBy: undefined });
  });

  it("credentials never follow a redirect to another host", () => {
    const other = sb.faults.seen.filter((s) => s.host.startsWith("localhost"));
    expect(other.every((s) => s.authorization === undefined)).toBe(true);
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

describe("hostile parameters (10,000 runs each, seeded)", () => {
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
  const key = fc.constantFrom("dateFrom", "dateTo", "subOn", "sub", "idAgent", "columns", "format", "__proto__", "constructor", "prototype", "dateFro", "toString");
  const params = fc
    .dictionary(key, odd, { maxKeys: 4 })
    .map((p) => JSON.parse(JSON.stringify(p, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? `${v}` : v))) as object);
  // Non-finite numbers do not survive JSON: put some back as numbers, next to the parsed (own) __proto__ keys.
  const withNumbers = fc.tuple(params, fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 1), key).map(([p, n, k]) => Object.assign(p, { [k]: n }));

  for (const version of ["v2", "v1"] as const) {
    it(`portal ${version}: every refusal is a PaysysError and nothing reaches the server`, { timeout: 120_000 }, async () => {
      // No credentials: a call whose input passes every check ends in AuthenticationError (sign in first), before any request.
      const portal = createPortalClient({ baseUrl: sb.portalUrl, version } as { baseUrl: string; version: "v2" });
      const methods = [portal.reports.payments, portal.agents.list, portal.terminals.list, portal.reports.cashCollections, portal.reports.dealerStatistics] as ((
        p: unknown,
      ) => Promise<unknown>)[];
      sb.faults.clear();
      let refusedByChecks = 0;
      await fc.assert(
        fc.asyncProperty(withNumbers, fc.nat(methods.length - 1), async (p, m) => {
          const e = await methods[m]!(p).then(
            () => undefined,
            (x: unknown) => x,
          );
          expect(e).toBeInstanceOf(PaysysError);
          if ((e as Error).name === "RequestValidationError") refusedByChecks++;
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        }),
        { numRuns: 10_000, seed: 22112026 },
      );
      expect(sb.faults.seen).toEqual([]);
      expect(refusedByChecks).toBeGreaterThan(9_000);
    });
  }
});
