// The program a dealer's accountant writes from the READMEs alone, on v2 and on v1: sign in,
// agents and terminals, a month of payments with totals per terminal, the dealer statistics as
// xlsx, log out. It is type-checked like the rest of this package, and it has no casts and no
// `Array.isArray`: lists are arrays, and rows are typed by the row schema the program passes.
// Then the three mistakes newcomers make, each a typed error that names its cause.
import { AuthenticationError, BinaryFile, createPortalClient, type PortalV2Client, period, RequestValidationError, RowValidationError } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as XLSX from "xlsx";
import { z } from "zod";
import { portalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const credentials = portalCredentials;
const solveCaptcha = async ({ captchaSession }: { captchaSession: string }) => sb.portal.captchaText(captchaSession) ?? "";

// What the accountant knows about the rows (the documents do not show them; the program says what it relies on).
const AgentRow = z.object({ idAgent: z.number().int(), name: z.string(), nowBalance: z.number() });
const TerminalRow = z.object({ idTerminal: z.number().int(), name: z.string(), active: z.number() });
const PaymentRow = z.object({ idPayment: z.number().int(), idTerminal: z.number().int(), amount: z.number(), date: z.string().regex(/^\d{14}$/) });

/** The whole program. It takes the v2 client's shape; the v1 client fits it unchanged. */
async function accountant(portal: Pick<PortalV2Client, "agents" | "terminals" | "reports" | "close">) {
  try {
    const agents = await portal.agents.list({ sub: 2, columns: ["nowBalance"] }, { rows: AgentRow });
    const terminals = await portal.terminals.list({ sub: 2 }, { rows: TerminalRow });
    const payments = await portal.reports.payments({ ...period.month(2024, 5), subOn: true }, { rows: PaymentRow });
    const totals = new Map<number, number>();
    for (const payment of payments) totals.set(payment.idTerminal, (totals.get(payment.idTerminal) ?? 0) + payment.amount);
    const statistics = await portal.reports.dealerStatistics({ ...period.month(2024, 5), subOn: true, format: "xlsx" });
    const workbook = XLSX.read(await statistics.bytes(), { type: "array" });
    return {
      balance: agents.reduce((sum, agent) => sum + agent.nowBalance, 0),
      agents: agents.length,
      activeTerminals: terminals.filter((t) => t.active === 1).length,
      payments: payments.length,
      totals,
      sheetRows: XLSX.utils.sheet_to_json(workbook.Sheets[workbook.SheetNames[0]!]!).length,
    };
  } finally {
    await portal.close();
  }
}

/** What the sandbox holds for May 2024 under the dealer (all subagents), computed from its data set. */
function mayInTheSandbox() {
  const scope = sb.portal.data.scope(sb.portal.data.root, 2);
  const totals = new Map<number, number>();
  let count = 0;
  for (let day = 1; day <= 31; day++) {
    for (const p of sb.portal.data.paymentsOn(`202405${String(day).padStart(2, "0")}`)) {
      if (!scope.has(p.idAgent)) continue;
      count++;
      totals.set(p.idTerminal, (totals.get(p.idTerminal) ?? 0) + p.amount);
    }
  }
  return { count, totals };
}

describe("the accountant's program", () => {
  for (const version of ["v2", "v1"] as const) {
    it(`runs on ${version}: typed rows, the whole month by calendar dates, totals per terminal, a real workbook, logged out`, async () => {
      const logouts = sb.portal.stats.logout;
      const portal =
        version === "v1"
          ? createPortalClient({ baseUrl: sb.portalUrl, version, credentials, solveCaptcha })
          : createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
      const result = await accountant(portal);
      const expected = mayInTheSandbox();
      expect(expected.count).toBe(1240);
      expect(result.payments).toBe(1240);
      expect(result.totals).toEqual(expected.totals);
      expect(result.agents).toBe(sb.portal.data.agents.length);
      expect(result.balance).toBeCloseTo(
        sb.portal.data.agents.reduce((s, a) => s + a.nowBalance, 0),
        6,
      );
      expect(result.activeTerminals).toBe(sb.portal.data.terminals.filter((t) => t.active === 1).length);
      expect(result.sheetRows).toBeGreaterThan(0);
      expect(sb.portal.stats.logout - logouts).toBe(1);
    });
  }

  it("a lone Date at UTC midnight is an instant (05:00 in Almaty) and misses the first hours; the calendar date does not", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    const instant = await portal.reports.payments({ dateFrom: new Date("2024-05-01"), dateTo: "2024-05-31", subOn: true });
    const calendar = await portal.reports.payments({ dateFrom: "2024-05-01", dateTo: { year: 2024, month: 5, day: 31 }, subOn: true });
    expect(calendar).toHaveLength(1240);
    expect(instant.length).toBeLessThan(1240);
  });
});

describe("the three common mistakes, each a typed error that names its cause, before anything moves", () => {
  it("a wrong password: AuthenticationError from the sign-in, with the service's code and what to check", async () => {
    for (const version of ["v2", "v1"] as const) {
      const portal = createPortalClient({ baseUrl: sb.portalUrl, version, credentials: { ...credentials, psw: "not-the-password" }, solveCaptcha });
      const err = await portal.agents.list().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AuthenticationError);
      expect(err).toMatchObject({ operation: "account.token", attempts: 1 });
      expect(String((err as Error).message)).toMatch(/account\.token.*check the login, the password and the captcha text/);
      expect(String((err as Error).message)).not.toContain("not-the-password");
    }
  });

  it("a reversed period: RequestValidationError naming both ends, nothing sent", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    await portal.user.me();
    const before = sb.portal.stats.requests;
    const err = await portal.reports.payments({ dateFrom: "2024-05-31", dateTo: "2024-05-01" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect(String((err as Error).message)).toMatch(/dateFrom.*after.*dateTo/);
    expect(() => period.days("2024-05-31", "2024-05-01")).toThrow(/after the last/);
    expect(sb.portal.stats.requests).toBe(before);
  });

  it("a misspelt parameter: refused by the types and at run time, naming it; unknown names only through extraParams", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    await portal.user.me();
    const before = sb.portal.stats.requests;
    // @ts-expect-error `dateFro` is not a parameter of reports.payments
    const err = await portal.reports.payments({ dateFro: "2024-05-01", subOn: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    expect((err as RequestValidationError).issues.map((i) => i.path)).toContain("/dateFro");
    // @ts-expect-error `subOnn` is not a parameter of terminals.list either
    await expect(portal.terminals.list({ subOnn: true })).rejects.toBeInstanceOf(RequestValidationError);
    expect(sb.portal.stats.requests).toBe(before);
    // The document calls the payments list open: a parameter it does not name goes by name, apart.
    const rows = await portal.reports.payments({ ...period.day("2024-05-01"), subOn: true }, { extraParams: { shiftNumber: 1 } });
    expect(rows).toHaveLength(40);
  });
});

describe("row schemas (any Standard Schema)", () => {
  it("valibot works as well as zod, and the rows are its output", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    const Row = v.object({
      idTerminal: v.number(),
      amount: v.pipe(
        v.number(),
        v.transform((tenge) => Math.round(tenge * 100)),
      ),
    });
    const rows = await portal.reports.payments({ ...period.day("2024-05-02"), subOn: true }, { rows: Row });
    expect(rows).toHaveLength(40);
    const first = rows[0]!;
    expect(Object.keys(first).sort()).toEqual(["amount", "idTerminal"]);
    expect(Number.isInteger(first.amount)).toBe(true);
  });

  it("async schemas are awaited", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    const known = new Set(sb.portal.data.terminals.map((t) => t.idTerminal));
    const Row = z.object({ idTerminal: z.number().refine(async (id) => known.has(id), "unknown terminal") });
    const rows = await portal.reports.payments({ ...period.day("2024-05-03"), subOn: true }, { rows: Row });
    expect(rows).toHaveLength(40);
  });

  it("a row the schema refuses fails the whole call with the row and field named, never a shorter list", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    const Row = z.object({ idTerminal: z.number(), amount: z.string() });
    const err = await portal.reports.payments({ ...period.day("2024-05-04"), subOn: true }, { rows: Row }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RowValidationError);
    const issues = (err as RowValidationError).issues;
    expect(issues).toHaveLength(40);
    expect(issues[0]).toMatchObject({ path: "/0/amount" });
    expect(issues[39]).toMatchObject({ path: "/39/amount" });
    expect(String((err as Error).message)).toMatch(/reports\.payments: 40 problem\(s\) in the 40 rows.*\/0\/amount.*\(and 35 more\)/);
  });

  it("rows is refused where the answer is not a list, or the parameters ask for a file", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    await portal.user.me();
    const before = sb.portal.stats.requests;
    // @ts-expect-error user.me answers with one record, not rows
    const notList = await portal.user.me({}, { rows: z.object({}) }).catch((e: unknown) => e);
    expect(notList).toBeInstanceOf(RequestValidationError);
    expect(String((notList as Error).message)).toContain("(rows) this operation does not answer with a list of rows");
    // @ts-expect-error a file has no rows
    const file = await portal.reports.dealerStatistics({ format: "xlsx" }, { rows: z.object({}) }).catch((e: unknown) => e);
    expect(file).toBeInstanceOf(RequestValidationError);
    // @ts-expect-error not a Standard Schema
    const notSchema = await portal.reports.payments({}, { rows: { parse: () => 1 } }).catch((e: unknown) => e);
    expect(String((notSchema as Error).message)).toContain("must be a Standard Schema v1");
    expect(sb.portal.stats.requests).toBe(before);
    await using workbook = await portal.reports.dealerStatistics({ ...period.day("2024-05-01"), format: "xlsx" }); // cancelled unread at the end
    expect(workbook).toBeInstanceOf(BinaryFile);
  });
});

describe("files nobody reads", () => {
  it("cancel() drops an unread file and frees it; await using cancels one left unread", async () => {
    await using portal = createPortalClient({ baseUrl: sb.portalUrl, credentials, solveCaptcha });
    const file = await portal.reports.dealerStatistics({ ...period.day("2024-05-01"), format: "xlsx" });
    await file.cancel();
    await expect(file.bytes()).rejects.toThrow();
    await file.cancel(); // twice is harmless
    let kept: BinaryFile | undefined;
    {
      await using unread = await portal.reports.dealerStatistics({ ...period.day("2024-05-02"), format: "xlsx" });
      kept = unread;
    }
    await expect(kept.bytes()).rejects.toThrow();
    const read = await portal.reports.dealerStatistics({ ...period.day("2024-05-03"), format: "xlsx" });
    expect((await read.bytes()).byteLength).toBeGreaterThan(0);
    await read.cancel(); // after reading: nothing to do
  });
});
