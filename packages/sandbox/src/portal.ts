// The portal, v1 and v2, as the sandbox plays it: captcha sessions, tokens with a lifetime,
// refresh with rotation, logout, and every list and report over a deterministic data set.
// Every request is checked with the validators generated from the specs and every answer is
// checked before it is sent, so the sandbox cannot drift from the spec.
//
// Where the source documents are silent the sandbox has to choose, and says so here: the token
// answer is { accessToken, refreshToken, expiresIn }; the token is presented as
// `Authorization: Bearer`; error codes are the sandbox's own (below); the captcha answer is
// { image }; lists and reports answer in `data`; an omitted period is the last 7 days and
// periods longer than `maxPeriodDays` are refused.
import { randomBytes } from "node:crypto";
import { evaluatePointer, type OperationSpec, parsePointer, type Validator, validatorIssues } from "@paysys/core/internal";
import { formatPortalDate, parsePortalDate } from "@paysys/portal";
import { v1Operations, v1WireValidators, v2Operations, v2WireValidators } from "@paysys/portal/spec";
import { createDataSet, type DataSet, type Payment, services } from "./data.js";
import { json, type ModuleContext, type SandboxAnswer, SandboxClock, type SandboxModule, type SandboxRequest } from "./module.js";
import { workbook } from "./xlsx.js";

/** The sandbox's own error codes (the real ones are not shown in any source). */
export const SandboxCodes = {
  OK: 0,
  MALFORMED: 1,
  INVALID_PARAMS: 2,
  WRONG_CREDENTIALS: 3,
  UNAUTHORIZED: 4,
  PERIOD_TOO_LONG: 5,
  NOT_FOUND: 6,
} as const;

export interface SandboxUser {
  idUser: number;
  lgn: string;
  psw: string;
  userFIO: string;
  groupChar: string;
  groupName: string;
  phone: string;
  email: string;
  /** The agent the user acts for. */
  idAgent: number;
}

export const defaultPortalUser: SandboxUser = {
  idUser: 1001,
  lgn: "dealer01",
  psw: "sandbox-password",
  userFIO: "Ivanov Ivan",
  groupChar: "D",
  groupName: "Dealers",
  phone: "77771112233",
  email: "dealer01@example.com",
  idAgent: 1001,
};

export interface PortalSandboxOptions {
  users?: SandboxUser[];
  /** Access-token lifetime in seconds. Default 900. */
  tokenTtlSeconds?: number;
  /** Payments per day in the data set. Default 40. */
  paymentsPerDay?: number;
  /** Longest report period in days. Default 92. */
  maxPeriodDays?: number;
  /** Time zone of the dates. Default Asia/Almaty. */
  timeZone?: string;
}

interface Session {
  user: SandboxUser;
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

type Params = Record<string, unknown>;
type Version = "v1" | "v2";

class PortalError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status = 200,
  ) {
    super(message);
  }
}

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";
const DAY_MS = 86_400_000;

/** Every operation id of either version: the handler table has one handler for each. */
type PortalOperationId = keyof typeof v1Operations | keyof typeof v2Operations;

interface Route {
  id: PortalOperationId;
  op: OperationSpec;
  validateRequest: Validator | undefined;
  validateResponse: Validator | undefined;
}

const routes = <Id extends PortalOperationId>(ops: Record<Id, OperationSpec>, validators: Record<string, Validator>) =>
  new Map<string, Route>(
    (Object.keys(ops) as Id[]).map((key) => {
      const op = ops[key];
      const id = op.id.replace(/\./g, "_");
      return [op.path, { id: key, op, validateRequest: validators[`${id}_request`], validateResponse: validators[`${id}_response`] }];
    }),
  );

/** What a handler gets: the parameters (out of their envelope), the version asked, and the session (read only by operations that need one). */
interface PortalCall {
  p: Params;
  version: Version;
  readonly session: Session;
}

export class PortalSandbox implements SandboxModule {
  readonly name = "portal";
  readonly prefix = "/portal";
  /** How many requests of each kind arrived (tests use it to count sign-ins and renewals). */
  readonly stats = { requests: 0, captcha: 0, token: 0, refresh: 0, logout: 0, rejectedTokens: 0 };
  readonly data: DataSet;
  readonly #users: SandboxUser[];
  readonly #options: PortalSandboxOptions;
  readonly #captchas = new Map<string, string>();
  readonly #byAccess = new Map<string, Session>();
  readonly #byRefresh = new Map<string, Session>();
  readonly #routes: Record<Version, Map<string, Route>> = { v2: routes(v2Operations, v2WireValidators), v1: routes(v1Operations, v1WireValidators) };
  readonly #clock: SandboxClock;

  constructor(options: PortalSandboxOptions = {}, context: Partial<ModuleContext> = {}) {
    this.#options = options;
    this.#clock = context.clock ?? new SandboxClock();
    this.#users = options.users ?? [defaultPortalUser];
    this.data = createDataSet({ paymentsPerDay: options.paymentsPerDay });
  }

  describe(url: string): string[] {
    const u = defaultPortalUser;
    return [
      `portal v2 and v1   ${url}${this.prefix}   (user ${u.lgn} / ${u.psw})`,
      `  captcha text     GET  ${url}/__sandbox/portal/captcha?session=<captchaSession>`,
      `  expire tokens    POST ${url}/__sandbox/portal/expire-tokens`,
      `  counters         GET  ${url}/__sandbox/portal/stats`,
    ];
  }

  async control(path: string, request: SandboxRequest): Promise<SandboxAnswer | undefined> {
    if (path === "/captcha" && request.method === "GET") {
      const text = this.captchaText(request.query.get("session") ?? "");
      return text ? json(200, { text }) : json(404, { error: "no such captcha session" });
    }
    if (path === "/expire-tokens" && request.method === "POST") {
      this.expireAccessTokens();
      return json(200, { expired: true });
    }
    if (path === "/stats" && request.method === "GET") return json(200, this.stats);
    return undefined;
  }

  readonly #issued: string[] = [];

  /** Every access and refresh token the sandbox has issued, oldest first (for tests that look for leaks). */
  issuedTokens(): readonly string[] {
    return this.#issued;
  }

  /** The captcha text of a session, as a person would read it from the image (for tests and demos). */
  captchaText(session: string): string | undefined {
    return this.#captchas.get(session);
  }

  /** Makes every access token expired, so the next call has to renew it. */
  expireAccessTokens(): void {
    for (const s of this.#byAccess.values()) s.expiresAt = 0;
  }

  /** Handles one request to a portal path (`/v2/...` or `/...`). */
  async handle(request: SandboxRequest): Promise<SandboxAnswer> {
    this.stats.requests++;
    const { path } = request;
    const version: Version = path.startsWith("/v2/") ? "v2" : "v1";
    const route = this.#routes[version].get(path);
    try {
      if (!route) throw new PortalError(SandboxCodes.NOT_FOUND, `no such request: ${path}`, 404);
      if (request.method !== "POST") throw new PortalError(SandboxCodes.MALFORMED, "portal requests are POST", 405);
      const { op, validateRequest, validateResponse } = route;
      let body: unknown;
      try {
        body = JSON.parse(request.body);
      } catch {
        throw new PortalError(SandboxCodes.MALFORMED, "the body is not JSON", 400);
      }
      if (validateRequest && !validateRequest(body)) {
        const issues = validatorIssues(validateRequest).map((i) => `${i.path || "(body)"} ${i.message}`);
        throw new PortalError(SandboxCodes.INVALID_PARAMS, `invalid parameters: ${issues.join("; ")}`);
      }
      const params = (evaluatePointer(body, parsePointer(op.envelope.params)).value ?? {}) as Params;
      const session = op.security.length > 0 ? this.#authorize(request.headers.authorization) : undefined;
      const call: PortalCall = {
        p: params,
        version,
        // Only the sign-in operations run without a session, and they do not read it.
        get session(): Session {
          if (!session) throw new PortalError(SandboxCodes.UNAUTHORIZED, "no valid token", 401);
          return session;
        },
      };
      const payload = await this.#handlers[route.id](call);
      if (payload instanceof Uint8Array) {
        return { status: 200, body: payload, contentType: XLSX, headers: { "content-disposition": `attachment; filename="${op.id}.xlsx"` } };
      }
      const answer = this.#envelope(version, op, payload);
      if (validateResponse && !validateResponse(answer)) {
        // A sandbox answer that breaks the spec is a sandbox bug: fail loudly.
        const issues = validatorIssues(validateResponse).map((i) => `${i.path} ${i.message}`);
        return json(500, { error: `sandbox bug: the answer of ${op.id} does not match the spec: ${issues.join("; ")}` });
      }
      return json(200, answer);
    } catch (e) {
      if (!(e instanceof PortalError)) throw e;
      return json(e.status, version === "v2" ? { code: e.code, message: e.message } : { Code: e.code, QueryData: [] });
    }
  }

  #envelope(version: Version, op: OperationSpec, payload: unknown): unknown {
    if (version === "v1") return { Code: 0, QueryData: [{ Rows: payload === undefined ? [] : Array.isArray(payload) ? payload : [payload] }] };
    if (payload === undefined) return { code: 0, message: "OK" };
    return Array.isArray(payload) || op.unwrap.at[0] === "/data" ? { code: 0, message: "OK", data: payload } : { code: 0, message: "OK", result: payload };
  }

  #authorize(header: string | undefined): Session {
    const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
    const session = token ? this.#byAccess.get(token) : undefined;
    if (!session || session.expiresAt <= this.#clock.now()) {
      this.stats.rejectedTokens++;
      throw new PortalError(SandboxCodes.UNAUTHORIZED, session ? "the token has expired" : "no valid token", 401);
    }
    return session;
  }

  #issue(user: SandboxUser): Session {
    const ttl = this.#options.tokenTtlSeconds ?? 900;
    const session = {
      user,
      accessToken: `sbx_a_${randomBytes(18).toString("base64url")}`,
      refreshToken: `sbx_r_${randomBytes(18).toString("base64url")}`,
      expiresAt: this.#clock.now() + ttl * 1000,
    };
    this.#byAccess.set(session.accessToken, session);
    this.#byRefresh.set(session.refreshToken, session);
    this.#issued.push(session.accessToken, session.refreshToken);
    return session;
  }

  #end(session: Session): void {
    this.#byAccess.delete(session.accessToken);
    this.#byRefresh.delete(session.refreshToken);
  }

  #tokens(s: Session) {
    return { accessToken: s.accessToken, refreshToken: s.refreshToken, expiresIn: Math.max(0, Math.round((s.expiresAt - this.#clock.now()) / 1000)) };
  }

  /** Each operation's handler, for both versions. A report answers its rows, or a workbook of them when asked for xlsx. */
  readonly #handlers: { readonly [Id in PortalOperationId]: (call: PortalCall) => unknown } = {
    "account.captcha": ({ p }) => {
      this.stats.captcha++;
      const text = randomBytes(4).toString("hex").slice(0, 5).toUpperCase();
      this.#captchas.set(String(p.captchaSession), text);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><text x="10" y="28" font-size="24">${text}</text></svg>`;
      return { image: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}` };
    },
    "account.token": ({ p }) => {
      this.stats.token++;
      const expected = this.#captchas.get(String(p.captchaSession));
      // A captcha answer is single-use, as on a real service.
      this.#captchas.delete(String(p.captchaSession));
      const user = this.#users.find((u) => u.lgn === p.lgn && u.psw === p.psw);
      if (!expected || expected !== p.captcha) throw new PortalError(SandboxCodes.WRONG_CREDENTIALS, "wrong captcha");
      if (!user) throw new PortalError(SandboxCodes.WRONG_CREDENTIALS, "wrong login or password");
      return this.#tokens(this.#issue(user));
    },
    "account.refresh": ({ p }) => {
      this.stats.refresh++;
      const old = this.#byRefresh.get(String(p.token));
      if (!old) throw new PortalError(SandboxCodes.UNAUTHORIZED, "unknown or revoked refresh token", 401);
      this.#end(old);
      return this.#tokens(this.#issue(old.user));
    },
    "account.logout": ({ p }) => {
      this.stats.logout++;
      const s = this.#byRefresh.get(String(p.refreshToken));
      if (s) this.#end(s);
      return undefined;
    },
    "user.me": ({ session }) => profile(session.user),
    "user.profile": ({ p, session }) => {
      const user = p.idUser === undefined ? session.user : this.#users.find((u) => u.idUser === p.idUser);
      if (!user) throw new PortalError(SandboxCodes.NOT_FOUND, `no user ${String(p.idUser)}`);
      return profile(user);
    },
    "agents.list": ({ p, session, version }) => this.#agents(p, session, version),
    "terminals.list": ({ p, session }) => this.#terminals(p, session),
    "reports.payments": (call) =>
      this.#report(
        "reports.payments",
        call,
        this.#payments(call.p, call.session).map((x) => ({ ...x })),
      ),
    "reports.cashCollections": (call) => this.#report("reports.cashCollections", call, this.#cashCollections(call.p, call.session)),
    "reports.terminalTurnovers": (call) => this.#report("reports.terminalTurnovers", call, this.#turnovers(call, false)),
    "reports.terminalTurnoversExtended": (call) => this.#report("reports.terminalTurnoversExtended", call, this.#turnovers(call, true)),
    "reports.remunerationByService": (call) =>
      this.#report(
        "reports.remunerationByService",
        call,
        services.map((s, i) => ({ idService: s.idService, serviceName: s.name, remuneration: Math.round((1000 + i * 250.25) * 100) / 100 })),
      ),
    "reports.dealerStatistics": (call) => {
      const byDay = groupsByDay(call.p);
      const rows = aggregate(
        this.#payments(call.p, call.session),
        (x) => [x.idAgent, byDay ? x.date.slice(0, 8) : ""],
        (x) => ({ idAgent: x.idAgent, ...(byDay ? { date: x.date.slice(0, 8) } : {}) }),
        false,
      );
      return this.#report("reports.dealerStatistics", call, rows);
    },
  };

  #scope(p: Params, session: Session): Set<number> {
    const idAgent = typeof p.idAgent === "number" ? p.idAgent : session.user.idAgent;
    const sub = typeof p.sub === "number" ? p.sub : p.subOn === true || p.subOn === 1 ? 2 : 0;
    return this.data.scope(idAgent, sub);
  }

  #agents(p: Params, session: Session, version: Version): unknown[] {
    const scope = this.#scope(p, session);
    const like = (v: unknown, s: string) => typeof v !== "string" || s.toLowerCase().includes(v.toLowerCase());
    const columns = new Set(Array.isArray(p.columns) ? (p.columns as string[]) : []);
    return this.data.agents
      .filter(
        (a) =>
          scope.has(a.idAgent) &&
          like(p.name, a.name) &&
          like(p.address, a.address) &&
          like(p.bin, a.bin) &&
          like(p.rnn, a.rnn) &&
          like(p.login, a.login) &&
          like(p.cellPhone, a.cellPhone),
      )
      .filter((a) => p.idAgentSearch === undefined || a.idAgent === p.idAgentSearch)
      .filter((a) => p.idTerminal === undefined || this.data.terminals.some((t) => t.idTerminal === p.idTerminal && t.idAgent === a.idAgent))
      .map((a) => {
        const row: Record<string, unknown> = { idAgent: a.idAgent, name: a.name, address: a.address };
        for (const c of columns) {
          if (c === "firstPaymentDate" && version === "v1") continue;
          if (c === "balancePlusSub") row[c] = a.nowBalance + a.credit;
          else if (c === "leader") row[c] = a.idParent === null ? 1 : 0;
          else if (c in a) row[c] = a[c as keyof typeof a];
        }
        return row;
      });
  }

  #terminals(p: Params, session: Session): unknown[] {
    const scope = this.#scope(p, session);
    return this.data.terminals.filter(
      (t) =>
        scope.has(t.idAgent) &&
        (p.idTerminal === undefined || t.idTerminal === p.idTerminal) &&
        (p.idTypeTerminal === undefined || t.idTypeTerminal === p.idTypeTerminal) &&
        (p.active === undefined || t.active === p.active) &&
        (typeof p.name !== "string" || t.name.includes(p.name)) &&
        (typeof p.rnm !== "string" || t.rnm === p.rnm) &&
        (typeof p.address !== "string" || t.address.includes(p.address)),
    );
  }

  /**
   * The period of a report, worked out once: its bounds as yyyyMMddHHmmss and its days as
   * yyyyMMdd, in the service's time zone. An omitted period is the last 7 days; a day-only
   * `dateTo` means the whole of that day.
   */
  #period(p: Params): { first: string; last: string; days: string[] } {
    const tz = this.#options.timeZone;
    const to = typeof p.dateTo === "string" ? parsePortalDate(p.dateTo, tz, "end") : new Date(this.#clock.now());
    const from = typeof p.dateFrom === "string" ? parsePortalDate(p.dateFrom, tz) : new Date(to.getTime() - 6 * DAY_MS);
    const max = this.#options.maxPeriodDays ?? 92;
    if (to.getTime() - from.getTime() > max * DAY_MS) throw new PortalError(SandboxCodes.PERIOD_TOO_LONG, `the period is longer than ${max} days (a sandbox limit)`);
    const format = (d: Date) => formatPortalDate(d, { timeZone: tz });
    const first = format(from);
    const last = format(to);
    const days: string[] = [];
    for (let t = from.getTime(); ; t += DAY_MS) {
      const day = format(new Date(t)).slice(0, 8);
      if (day > last.slice(0, 8)) break;
      if (days.at(-1) !== day) days.push(day);
    }
    return { first, last, days };
  }

  #payments(p: Params, session: Session): Payment[] {
    const scope = this.#scope(p, session);
    const { first, last, days } = this.#period(p);
    return days
      .flatMap((d) => this.data.paymentsOn(d))
      .filter(
        (x) =>
          x.date >= first &&
          x.date <= last &&
          scope.has(x.idAgent) &&
          (p.idService === undefined || x.idService === p.idService) &&
          (p.idTerminal === undefined || x.idTerminal === p.idTerminal) &&
          (p.account === undefined || x.account === p.account) &&
          (p.sn === undefined || x.sn === p.sn),
      );
  }

  /** A report's rows as they are, or as a workbook when the parameters ask for xlsx. */
  #report(id: string, { p }: PortalCall, rows: Record<string, unknown>[]): unknown {
    return p.format === "xlsx" ? workbook(id, rows) : rows;
  }

  #cashCollections(p: Params, session: Session): Record<string, unknown>[] {
    const scope = this.#scope(p, session);
    const terminals = this.data.terminals.filter((t) => scope.has(t.idAgent) && (p.idTerminal === undefined || t.idTerminal === p.idTerminal));
    return this.#period(p).days.flatMap((day) => {
      // One collection every third day per terminal, holding that day's takings.
      const takings = new Map<number, number>();
      for (const x of this.data.paymentsOn(day)) takings.set(x.idTerminal, (takings.get(x.idTerminal) ?? 0) + x.amount);
      return terminals
        .filter((t) => (Number(day) + t.idTerminal) % 3 === 0)
        .map((t) => ({
          idCash: Number(`${day.slice(2)}${t.idTerminal}`),
          date: `${day}180000`,
          idTerminal: t.idTerminal,
          idSysUser: 7,
          amount: takings.get(t.idTerminal) ?? 0,
        }));
    });
  }

  #turnovers({ p, session }: PortalCall, extended: boolean): Record<string, unknown>[] {
    const byDay = groupsByDay(p);
    return aggregate(
      this.#payments(p, session),
      (x) => [x.idTerminal, x.idService, byDay ? x.date.slice(0, 8) : ""],
      (x) => ({ idTerminal: x.idTerminal, idService: x.idService, ...(byDay ? { date: x.date.slice(0, 8) } : {}) }),
      extended,
    );
  }
}

const groupsByDay = (p: Params) => p.groupByDay === true || p.groupByDay === 1;

function profile(u: SandboxUser) {
  return { idUser: u.idUser, lgn: u.lgn, userFIO: u.userFIO, groupChar: u.groupChar, groupName: u.groupName, phone: u.phone, email: u.email };
}

/** Sums payments into rows keyed by `key`; amounts are summed in tiyn to stay exact. */
function aggregate(payments: Payment[], key: (x: Payment) => unknown[], head: (x: Payment) => Record<string, unknown>, withCommission: boolean): Record<string, unknown>[] {
  const groups = new Map<string, { head: Record<string, unknown>; count: number; tiyn: number; commissionTiyn: number }>();
  for (const x of payments) {
    const k = key(x).join("|");
    const g = groups.get(k) ?? { head: head(x), count: 0, tiyn: 0, commissionTiyn: 0 };
    g.count++;
    g.tiyn += Math.round(x.amount * 100);
    g.commissionTiyn += Math.round(x.commission * 100);
    groups.set(k, g);
  }
  return [...groups.values()].map((g) => ({ ...g.head, count: g.count, amount: g.tiyn / 100, ...(withCommission ? { commission: g.commissionTiyn / 100 } : {}) }));
}
