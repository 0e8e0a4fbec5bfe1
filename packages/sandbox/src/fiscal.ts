// The online cash register (Fiscal24) as the sandbox plays it: users who sign in with their phone
// number, companies and registers, one open shift per register, the `Uid` chain checked on every
// receipt operation, the register's balances, receipts in exact decimals, X and Z reports computed
// from the receipts, and autonomous operations. Every request body and every answer is checked
// with the validators generated from the spec, so the sandbox cannot drift from it.
//
// Where the sources are silent the sandbox chooses, and says so here: the token is an opaque
// string valid one day of sandbox time; a well-formed `Uid` that is not the current one is refused
// with 400 and the message in `FiscalSandboxMessages.staleUid`; an operation without an open shift,
// a second opening, wrong credentials and unknown ids have the sandbox's own messages (below); the
// Z report's answer carries no new `Uid`; the X report answers the Z report's fields; a cash-out or
// a purchase above the cash balance is refused like a refund; non-cash refunds lower the non-cash
// balance, and one above it is refused too; a refund gives back only goods the register sold (or
// bought), by name and quantity; only the sandbox's activity types and sections are known; a
// weighed line may be rounded to tiyn either way. Money is summed in exact decimals.
import { randomBytes, randomUUID } from "node:crypto";
import {
  addDecimal,
  compareDecimal,
  type Decimal,
  decimalToNumber,
  multiplyDecimal,
  rfc3339Codec,
  roundedSumRange,
  subtractDecimal,
  toDecimal,
  validatorIssues,
} from "@paysys/core/internal";
import { caseInsensitiveBodyKeys, operations, wireValidators } from "@paysys/fiscal/spec";
import { json, type ModuleContext, type SandboxAnswer, SandboxClock, type SandboxModule, type SandboxRequest } from "./module.js";
import { caseInsensitiveKeys, describeIssues, type HandlerCall, type HandlerTable, handlerCall, match, requestBody, routesOf } from "./routes.js";

/** Body keys as the service reads them: regardless of case, the later of two winning. */
const anyCase = caseInsensitiveKeys(caseInsensitiveBodyKeys);

export interface FiscalUser {
  Id: number;
  PhoneLogin: string;
  Password: string;
  Name: string;
  /** Companies the user may work with. */
  companies: number[];
}

export const defaultFiscalUser: FiscalUser = { Id: 7, PhoneLogin: "77771112233", Password: "sandbox-password", Name: "Cashier", companies: [1, 2] };

/** The sandbox's own messages, where the real ones are not shown (the documented ones are used as documented). */
export const FiscalSandboxMessages = {
  staleUid: "the Uid is not the register's current one (sandbox message; the real one is not shown)",
  noOpenShift: "the register has no open shift (sandbox message)",
  shiftAlreadyOpen: "the register already has an open shift (sandbox message)",
  wrongCredentials: "wrong login or password (sandbox message)",
  unknownDomain: "unknown IdDomain: the register has no such type of activity (sandbox message; the real list is not shown)",
  unknownSection: "unknown IdSection: the register has no such section (sandbox message; the real sections are not shown)",
  neverSold: "a refund of goods this register never sold, or more of them than it sold (sandbox message)",
  unauthorized: "no valid token (sandbox message)",
  notFound: "not found (sandbox message)",
} as const;

/** The documented messages (official pages and the server sample). */
const Documented = {
  uidMissing: "Заголовок не содержит Uid",
  uidMalformed: "Uid не соответствует формату",
  orderBroken: "Нарушена очередность операций",
  autonomousWithoutDate: "Автономный запрос должен содержать дату создания чека ReceiptDate",
  wrongTotal: "Сумма ИТОГО не верна",
  nonCashAboveTotal: "Сумма безналичной оплаты не может быть больше стоимости товара",
  cashWithFullNonCash: "Сумма оплаты наличным расчетом не может быть больше 0, если сумма оплаты безналичным расчетом равна общей сумме оплаты",
  overBalance: "Сумма операции превышает баланс кассы",
} as const;

export interface FiscalSandboxOptions {
  users?: FiscalUser[];
  /** Which version of the official autonomous-mode rules the sandbox applies. Default `"newer"`. */
  autonomousRules?: "newer" | "older";
  /** Token lifetime in ms of sandbox time. Default one day. */
  tokenTtlMs?: number;
  /** Registers per company (company 1 and 2). Default 10 and 2. */
  registers?: [number, number];
  /** The activity types (`IdDomain`) the sandbox knows. Default 1 to 5 (the real list is not shown). */
  domains?: number[];
  /** The sections (`IdSection`) of every register. Default 1 to 4 (the real ones are not shown). */
  sections?: number[];
}

type Kind = "Sales" | "Purchases" | "Refunds" | "PurchaseRefunds" | "Incomes" | "Expenses";
const KINDS: readonly Kind[] = ["Sales", "Purchases", "Refunds", "PurchaseRefunds", "Incomes", "Expenses"];

type FiscalCall = HandlerCall<FiscalUser>;
type FiscalAnswer = { data: unknown; uid?: string };
const ZERO: Decimal = { units: 0n, scale: 0 };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

interface Document {
  IdDocument: number;
  kind: Kind;
  value: Decimal;
  cash: Decimal;
  nonCash: Decimal;
  change: Decimal;
  afp: number;
  receiptDate: string;
  uid: string;
  /** The positions' names (a receipt's), so tests can tell receipts apart. */
  names: string[];
}

interface Shift {
  Id: number;
  IdUser: number;
  IdKkm: number;
  IdStatusShift: 1 | 2;
  DateOpen: string;
  DateClose?: string;
  ShiftIndex: number;
  balanceOpen: Decimal;
  documents: Document[];
  autonomous: boolean;
}

interface Register {
  kkm: { Id: number; IdCompany: number; Name: string; Rnm: string; Znm: number; IdStatusKkm: number; IdSection: number; Address: Record<string, unknown> };
  uid?: string;
  shift?: Shift;
  lastShiftId: number;
  shiftIndex: number;
  cash: Decimal;
  nonCash: Decimal;
  lastTime: number;
  afp: number;
  cumulative: Record<Kind, Decimal>;
  /** Quantities sold (and bought) and not refunded yet, by position name: what a refund may give back. */
  refundable: Record<"Sales" | "Purchases", Map<string, Decimal>>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const sum = (xs: Decimal[]) => xs.reduce(addDecimal, ZERO);
const dec = (v: unknown): Decimal => (typeof v === "number" || typeof v === "string" ? toDecimal(v) : ZERO);

export class FiscalSandbox implements SandboxModule {
  readonly name = "fiscal";
  readonly prefix = "/fiscal";
  /** Counters for tests: sign-ins, receipt operations registered, refused links. */
  readonly stats = { requests: 0, logins: 0, documents: 0, refusedUids: 0 };
  readonly #routes = routesOf(operations, wireValidators);
  readonly #users: FiscalUser[];
  readonly #options: FiscalSandboxOptions;
  readonly #clock: SandboxClock;
  readonly #url: () => string;
  readonly #tokens = new Map<string, { user: FiscalUser; expiresAt: number }>();
  readonly #registers = new Map<number, Register>();
  readonly #shifts = new Map<number, Shift>();
  readonly #receipts = new Map<number, string>();
  #nextShift = 1;
  #nextDocument = 1000;

  constructor(options: FiscalSandboxOptions = {}, context: Partial<ModuleContext> = {}) {
    this.#options = options;
    this.#users = options.users ?? [defaultFiscalUser];
    this.#clock = context.clock ?? new SandboxClock();
    this.#url = context.url ?? (() => "http://sandbox");
    const [first, second] = options.registers ?? [10, 2];
    for (const [company, count] of [
      [1, first],
      [2, second],
    ] as const) {
      for (let i = 1; i <= count; i++) {
        const Id = company * 100 + i;
        this.#registers.set(Id, {
          kkm: {
            Id,
            IdCompany: company,
            Name: `Kassa ${Id}`,
            Rnm: String(10_000_000_000 + Id),
            Znm: 1_000_000 + Id,
            IdStatusKkm: 2,
            IdSection: 1,
            Address: { Street: "Abaya", House: String(Id) },
          },
          lastShiftId: 0,
          shiftIndex: 0,
          cash: ZERO,
          nonCash: ZERO,
          lastTime: 0,
          afp: 0,
          cumulative: Object.fromEntries(KINDS.map((k) => [k, ZERO])) as Record<Kind, Decimal>,
          refundable: { Sales: new Map(), Purchases: new Map() },
        });
      }
    }
  }

  describe(url: string): string[] {
    const u = this.#users[0]!;
    return [
      `fiscal             ${url}${this.prefix}   (login ${u.PhoneLogin} / ${u.Password}; registers ${[...this.#registers.keys()].join(", ")})`,
      `  register state   GET  ${url}/__sandbox/fiscal/registers/<idKkm>`,
    ];
  }

  /** A register's state, for tests: its current `Uid`, balances, open shift and the documents of that shift. */
  register(idKkm: number) {
    const r = this.#registers.get(idKkm);
    if (!r) return undefined;
    return {
      uid: r.uid,
      cash: decimalToNumber(r.cash),
      nonCash: decimalToNumber(r.nonCash),
      shift: r.shift && { Id: r.shift.Id, documents: r.shift.documents.length, uids: r.shift.documents.map((d) => d.uid) },
    };
  }

  /** Every document registered on a register, in every shift, in order: what a test judges a till by. */
  documents(idKkm: number): { IdDocument: number; kind: string; names: string[]; shift: number }[] {
    return [...this.#shifts.values()]
      .filter((s) => s.IdKkm === idKkm)
      .flatMap((s) => s.documents.map((d) => ({ IdDocument: d.IdDocument, kind: d.kind, names: d.names, shift: s.Id })));
  }

  /** Moves a register's chain on, as another till program working on it would. */
  advanceUid(idKkm: number): string | undefined {
    const r = this.#registers.get(idKkm);
    if (r?.uid) r.uid = randomUUID();
    return r?.uid;
  }

  /** Every token issued so far (for tests that look for leaks). */
  issuedTokens(): string[] {
    return [...this.#tokens.keys()];
  }

  /** Makes every token expired (so the next call signs in again). */
  expireTokens(): void {
    for (const t of this.#tokens.values()) t.expiresAt = 0;
  }

  async control(path: string, request: SandboxRequest): Promise<SandboxAnswer | undefined> {
    if (path === "/stats" && request.method === "GET") return json(200, this.stats);
    if (path === "/expire-tokens" && request.method === "POST") {
      this.expireTokens();
      return json(200, { expired: true });
    }
    const reg = /^\/registers\/(\d+)(\/advance-uid)?$/.exec(path);
    if (reg) {
      const id = Number(reg[1]);
      if (reg[2] && request.method === "POST") return json(200, { uid: this.advanceUid(id) });
      const state = this.register(id);
      return state ? json(200, state) : json(404, { error: "no such register" });
    }
    const receipt = /^\/receipts\/(\d+)$/.exec(path);
    if (receipt) {
      const text = this.#receipts.get(Number(receipt[1]));
      return text ? { status: 200, body: text, contentType: "text/plain; charset=utf-8" } : json(404, { error: "no such receipt" });
    }
    return undefined;
  }

  async handle(request: SandboxRequest): Promise<SandboxAnswer> {
    this.stats.requests++;
    const found = match(this.#routes, request.method, request.path);
    if (!found) return json(404, { Status: 404, Message: FiscalSandboxMessages.notFound });
    const { op } = found.route;
    try {
      const user = op.security.length > 0 ? this.#authorize(request.headers.authorization) : undefined;
      const body = op.body
        ? requestBody(
            found.route,
            request.body,
            (issues) => new Refusal(400, issues ? `invalid request (sandbox message): ${describeIssues(issues)}` : "the body is not JSON (sandbox message)"),
            anyCase, // the service reads body keys regardless of case (the spec's x-key-case), as Go does
          )
        : {};
      const call = handlerCall(found, request, body, user, () => new Refusal(401, FiscalSandboxMessages.unauthorized));
      const { data, uid } = this.#handlers[found.route.id](call);
      const answer = { Status: 200, Message: "OK", Data: data };
      if (found.route.validateResponse && !found.route.validateResponse(answer)) {
        // A sandbox answer that breaks the spec is a sandbox bug: fail loudly.
        return json(500, {
          Status: 500,
          Message: `sandbox bug: the answer of ${op.id} does not match the spec: ${describeIssues(validatorIssues(found.route.validateResponse))}`,
        });
      }
      return json(200, answer, uid ? { uid } : undefined);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      return json(e.status, { Status: e.status, Message: e.message });
    }
  }

  #authorize(header: string | undefined): FiscalUser {
    const token = header?.startsWith("Bearer ") ? header.slice(7) : undefined;
    const session = token ? this.#tokens.get(token) : undefined;
    if (!session || session.expiresAt <= this.#clock.now()) throw new Refusal(401, FiscalSandboxMessages.unauthorized);
    return session.user;
  }

  #register(id: unknown, user: FiscalUser): Register {
    const r = this.#registers.get(Number(id));
    if (!r || !user.companies.includes(r.kkm.IdCompany)) throw new Refusal(404, FiscalSandboxMessages.notFound);
    return r;
  }

  #now(): string {
    return String(rfc3339Codec.encode(new Date(this.#clock.now()), { operation: "sandbox", timeZone: "Asia/Almaty" }));
  }

  /** Each operation's handler (`FiscalCall` is what it gets of the request). */
  readonly #handlers: HandlerTable<typeof operations, FiscalCall, FiscalAnswer> = {
    "auth.login": ({ body }) => {
      this.stats.logins++;
      const found = this.#users.find((x) => x.PhoneLogin === body.Login && x.Password === body.Password);
      if (!found) throw new Refusal(401, FiscalSandboxMessages.wrongCredentials);
      const token = `fsc_${randomBytes(18).toString("base64url")}`;
      this.#tokens.set(token, { user: found, expiresAt: this.#clock.now() + (this.#options.tokenTtlMs ?? 86_400_000) });
      const idShift = [...this.#registers.values()].find((r) => r.shift?.IdUser === found.Id)?.shift?.Id ?? 0;
      return { data: { Token: token, User: { Id: found.Id, PhoneLogin: found.PhoneLogin, Name: found.Name, Lock: idShift !== 0, IdShift: idShift } } };
    },
    "companies.list": ({ party: user }) => ({ data: { Companies: user.companies.map((c) => this.#company(c)) } }),
    "kkms.list": ({ request, party: user }) => {
      const asked = (request.query.get("companies") ?? "").split(",").filter(Boolean).map(Number);
      // Official page: with `companies` empty or listing every company, the sub-objects come back empty.
      const all = asked.length === 0 || user.companies.every((c) => asked.includes(c));
      const registers = [...this.#registers.values()].filter((r) => user.companies.includes(r.kkm.IdCompany) && (asked.length === 0 || asked.includes(r.kkm.IdCompany)));
      return { data: { Kkms: registers.map((r) => this.#kkm(r, all)) } };
    },
    "kkms.get": ({ params, party: user }) => ({ data: { Kkm: this.#kkm(this.#register(params.idKkm, user), false) } }),
    "shifts.open": (call) => this.#openShiftFor(call),
    "shifts.get": ({ params, party: user }) => {
      const shift = this.#shifts.get(Number(params.idShift));
      if (!shift) throw new Refusal(404, FiscalSandboxMessages.notFound);
      this.#register(shift.IdKkm, user);
      return { data: { Id: shift.Id, IdStatusShift: shift.IdStatusShift } };
    },
    "shifts.xReport": ({ params, party: user }) => {
      const shift = this.#openShift(params.idShift, user);
      return { data: this.#report(this.#registers.get(shift.IdKkm)!, shift) };
    },
    "shifts.closeWithZReport": ({ params, request, body, party: user }) => {
      const shift = this.#openShift(params.idShift, user);
      const r = this.#register(body.IdKkm, user);
      if (shift.IdKkm !== r.kkm.Id) throw new Refusal(400, "the shift is not this register's (sandbox message)");
      this.#checkUid(r, request.headers.uid);
      shift.IdStatusShift = 2;
      shift.DateClose = typeof body.Date === "string" ? body.Date : this.#now();
      r.shift = undefined;
      return { data: this.#report(r, shift) };
    },
    "uid.get": ({ params, party: user }) => {
      const r = this.#register(params.idKkm, user);
      if (!r.uid) throw new Refusal(404, "the register has never opened a shift (sandbox message)");
      return { data: { Uid: r.uid } };
    },
    "operations.sale": (call) => this.#document(call, "Sales"),
    "operations.purchase": (call) => this.#document(call, "Purchases"),
    "operations.saleRefund": (call) => this.#document(call, "Refunds"),
    "operations.purchaseRefund": (call) => this.#document(call, "PurchaseRefunds"),
    "operations.cashIn": (call) => this.#document(call, "Incomes"),
    "operations.cashOut": (call) => this.#document(call, "Expenses"),
  };

  #openShiftFor({ body, party: user }: FiscalCall): FiscalAnswer {
    const r = this.#register(body.IdKkm, user);
    if (r.shift) throw new Refusal(424, FiscalSandboxMessages.shiftAlreadyOpen);
    const DateOpen = typeof body.Date === "string" ? body.Date : this.#now();
    const shift: Shift = {
      Id: this.#nextShift++,
      IdUser: user.Id,
      IdKkm: r.kkm.Id,
      IdStatusShift: 1,
      DateOpen,
      ShiftIndex: ++r.shiftIndex,
      balanceOpen: r.cash,
      documents: [],
      autonomous: typeof body.Date === "string",
    };
    this.#shifts.set(shift.Id, shift);
    r.shift = shift;
    r.lastShiftId = shift.Id;
    r.lastTime = Math.max(r.lastTime, Date.parse(DateOpen));
    r.uid = randomUUID();
    return { data: { Shift: { Id: shift.Id, IdUser: shift.IdUser, IdKkm: shift.IdKkm, IdStatusShift: 1, DateOpen } }, uid: r.uid };
  }

  /** A receipt or a cash movement: on the register's chain, in its open shift. */
  #document({ params, request, body, party: user }: FiscalCall, kind: Kind): FiscalAnswer {
    const r = this.#register(params.idKkm, user);
    this.#checkUid(r, request.headers.uid);
    if (!r.shift) throw new Refusal(400, FiscalSandboxMessages.noOpenShift);
    const document = kind === "Incomes" || kind === "Expenses" ? this.#cashMovement(r, kind, body) : this.#receipt(r, kind, body);
    r.shift.documents.push(document);
    r.cumulative[kind] = addDecimal(r.cumulative[kind], document.value);
    this.stats.documents++;
    r.uid = randomUUID();
    this.#receipts.set(document.IdDocument, `Kassa ${r.kkm.Id} #${document.IdDocument} ${kind} ${decimalToNumber(document.value).toFixed(2)} KZT`);
    return {
      data: {
        IdDocument: document.IdDocument,
        Receipt: Buffer.from(this.#receipts.get(document.IdDocument)!).toString("base64"),
        Location: `${this.#url()}/__sandbox/fiscal/receipts/${document.IdDocument}`,
        FiscalNumber: 7_000_000_000 + document.IdDocument,
        AutonomousNumber: document.afp,
      },
      uid: r.uid,
    };
  }

  #openShift(id: unknown, user: FiscalUser): Shift {
    const shift = this.#shifts.get(Number(id));
    if (!shift) throw new Refusal(404, FiscalSandboxMessages.notFound);
    this.#register(shift.IdKkm, user);
    if (shift.IdStatusShift !== 1) throw new Refusal(400, FiscalSandboxMessages.noOpenShift);
    return shift;
  }

  /** The chain: the documented messages for a missing or malformed `Uid`, the sandbox's for a stale one. */
  #checkUid(r: Register, uid: string | undefined): void {
    const refuse = (message: string) => {
      this.stats.refusedUids++;
      throw new Refusal(400, message);
    };
    if (!uid) refuse(Documented.uidMissing);
    if (!UUID_V4.test(uid!)) refuse(Documented.uidMalformed);
    if (uid !== r.uid) refuse(FiscalSandboxMessages.staleUid);
  }

  /** When the operation happens: its own date (autonomous) or now; never before the register's last operation. */
  #time(r: Register, date: unknown): string {
    const when = typeof date === "string" ? date : this.#now();
    const t = Date.parse(when);
    if (t < r.lastTime) throw new Refusal(400, Documented.orderBroken);
    r.lastTime = t;
    return when;
  }

  #receipt(r: Register, kind: Kind, body: Record<string, unknown>): Document {
    this.#checkKnown(body);
    const positions = (body.Positions as Record<string, unknown>[]).filter((p) => p.Storno !== true);
    const lines = positions.map((p) => multiplyDecimal(subtractDecimal(addDecimal(dec(p.Price), dec(p.Markup)), dec(p.Discount)), dec(p.Qty)));
    const total = dec(body.Total);
    const cash = dec(body.Cash);
    const nonCash = dec(body.NonCash);
    if (compareDecimal(nonCash, total) > 0) throw new Refusal(400, Documented.nonCashAboveTotal);
    if (compareDecimal(nonCash, total) === 0 && compareDecimal(cash, ZERO) > 0) throw new Refusal(400, Documented.cashWithFullNonCash);
    // A weighed line is rounded to tiyn; how the service rounds is not shown, so either way is taken.
    const { low, high } = roundedSumRange(lines, 2);
    if (compareDecimal(total, low) < 0 || compareDecimal(total, high) > 0) throw new Refusal(400, Documented.wrongTotal);
    const refunded = kind === "Refunds" ? "Sales" : kind === "PurchaseRefunds" ? "Purchases" : undefined;
    if (refunded) this.#takeBack(r.refundable[refunded], positions);
    const afp = typeof body.AFP === "number" ? body.AFP : r.shift!.autonomous ? ++r.afp : 0;
    if (this.#options.autonomousRules === "older" && afp !== 0 && typeof body.ReceiptDate !== "string") throw new Refusal(400, Documented.autonomousWithoutDate);
    const receiptDate = this.#time(r, body.ReceiptDate);
    const change = subtractDecimal(addDecimal(cash, nonCash), total);
    const cashPart = subtractDecimal(cash, compareDecimal(change, ZERO) > 0 ? change : ZERO);
    const outgoing = kind === "Refunds" || kind === "Purchases";
    if (outgoing && (compareDecimal(cashPart, r.cash) > 0 || compareDecimal(nonCash, r.nonCash) > 0)) throw new Refusal(400, Documented.overBalance);
    if (kind === "Sales" || kind === "Purchases")
      for (const p of positions) r.refundable[kind].set(String(p.Name), addDecimal(r.refundable[kind].get(String(p.Name)) ?? ZERO, dec(p.Qty)));
    r.cash = outgoing ? subtractDecimal(r.cash, cashPart) : addDecimal(r.cash, cashPart);
    r.nonCash = outgoing ? subtractDecimal(r.nonCash, nonCash) : addDecimal(r.nonCash, nonCash);
    const names = positions.map((p) => String(p.Name));
    return { IdDocument: this.#nextDocument++, kind, value: total, cash, nonCash, change, afp, receiptDate, uid: r.uid!, names };
  }

  /** Unknown activity types and sections are refused, as a real register knows only its own. */
  #checkKnown(body: Record<string, unknown>): void {
    if (!(this.#options.domains ?? [1, 2, 3, 4, 5]).includes(Number(body.IdDomain))) throw new Refusal(400, FiscalSandboxMessages.unknownDomain);
    const sections = this.#options.sections ?? [1, 2, 3, 4];
    for (const p of body.Positions as Record<string, unknown>[]) if (!sections.includes(Number(p.IdSection))) throw new Refusal(400, FiscalSandboxMessages.unknownSection);
  }

  /** A refund gives back what was sold (or bought), by name and quantity; nothing is changed unless all of it can be. */
  #takeBack(left: Map<string, Decimal>, positions: Record<string, unknown>[]): void {
    const after = new Map(left);
    for (const p of positions) {
      const name = String(p.Name);
      const remaining = subtractDecimal(after.get(name) ?? ZERO, dec(p.Qty));
      if (compareDecimal(remaining, ZERO) < 0) throw new Refusal(400, FiscalSandboxMessages.neverSold);
      after.set(name, remaining);
    }
    for (const [name, qty] of after) left.set(name, qty);
  }

  #cashMovement(r: Register, kind: Kind, body: Record<string, unknown>): Document {
    const amount = dec(body.Amount);
    if (kind === "Expenses" && compareDecimal(amount, r.cash) > 0) throw new Refusal(400, Documented.overBalance);
    const receiptDate = this.#time(r, body.Date);
    r.cash = kind === "Expenses" ? subtractDecimal(r.cash, amount) : addDecimal(r.cash, amount);
    return { IdDocument: this.#nextDocument++, kind, value: amount, cash: amount, nonCash: ZERO, change: ZERO, afp: 0, receiptDate, uid: r.uid!, names: [] };
  }

  /** The X or Z report of a shift, computed from its documents. */
  #report(r: Register, shift: Shift): Record<string, unknown> {
    const report: Record<string, unknown> = {
      ShiftIndex: shift.ShiftIndex,
      IdShift: shift.Id,
      IdKkm: shift.IdKkm,
      IdUser: shift.IdUser,
      DateOpen: shift.DateOpen,
      ...(shift.DateClose ? { DateClose: shift.DateClose } : {}),
      BalanceOpen: decimalToNumber(shift.balanceOpen),
      BalanceClose: decimalToNumber(r.cash),
      BalanceCloseNonCash: decimalToNumber(r.nonCash),
      Count: shift.documents.length,
    };
    for (const kind of KINDS) {
      const docs = shift.documents.filter((d) => d.kind === kind);
      report[`${kind}Qty`] = docs.length;
      report[`${kind}Amount`] = decimalToNumber(sum(docs.map((d) => d.value)));
      report[`Cumulative${kind}`] = decimalToNumber(r.cumulative[kind]);
    }
    return report;
  }

  #company(id: number) {
    return {
      Id: id,
      IdUser: this.#users[0]!.Id,
      IdOwnership: 1,
      IdAddress: id,
      Bin: `12345678901${id}`,
      ShortName: id === 1 ? "TOO Romashka" : "IP Lotos",
      FullName: id === 1 ? "TOO Romashka LLP" : "IP Lotos",
      Fio: "Petrov P.",
      Nds: "12",
      Ownership: { Id: 1, Name: "TOO" },
      Address: { Id: id, Street: "Abaya", House: String(id) },
    };
  }

  #kkm(r: Register, emptySubObjects: boolean) {
    const company = emptySubObjects
      ? { Bin: "", Fio: "", FullName: "", Id: 0, IdOwnership: 0, IdUser: 0, Nds: "", Ownership: { Id: 0, Name: "" }, ShortName: "" }
      : this.#company(r.kkm.IdCompany);
    const empty = { Id: 0, Name: "" };
    return {
      ...r.kkm,
      IdShift: r.shift?.Id ?? r.lastShiftId,
      ShiftIndex: r.shiftIndex,
      Allowed: true,
      Lock: false,
      IsActive: true,
      OfflineQueue: 0,
      Company: company,
      Ofd: emptySubObjects ? empty : { Id: 2, Name: "OFD" },
      StatusKKM: emptySubObjects ? empty : { Id: r.kkm.IdStatusKkm, Name: "Ready" },
    };
  }
}
