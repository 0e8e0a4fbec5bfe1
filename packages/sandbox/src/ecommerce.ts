// The online payments gateway as the sandbox plays it: merchants who sign in with HTTP Basic, a
// payment page at the `url` a created payment answers, the card cryptogram decrypted with the
// sandbox's own RSA key (published at the getcert addresses), callbacks delivered to `callbackUrl`
// until they are acknowledged, two-stage holds, cancellations, card tokens, payouts and status
// queries. Every request body, every answer and every callback is checked with the validators
// generated from the spec, so the sandbox cannot drift from it.
//
// Where the sources are silent the sandbox chooses, and says so here: an `orderId` a merchant
// already used is refused (400); a transaction not yet paid has no `status` in the status query;
// the payment page and its form are the sandbox's own (`/pay/<id>`); test cards decide the outcome
// (`TestCards`); unpaid transactions expire after `paymentLifetimeMs` of sandbox time with errCode
// 230; a callback counts as acknowledged only for a 2xx answer whose body is `{"accepted": true}`,
// and is sent again every `callbackRetryMs` up to `callbackMaxAttempts` times; the commission is 0;
// `date` and `dateOut` are ISO 8601; `approve` of an unknown transaction answers `status` 4 (the
// document's two-stage "not found") with an `error`; the sandbox's own messages end in "(sandbox
// message)". A merchant's balance moves only with `demo: false`.
import { constants, generateKeyPairSync, type KeyObject, privateDecrypt, randomBytes } from "node:crypto";
import type { ValidationIssue } from "@paysys/core";
import { validatorIssues } from "@paysys/core/internal";
import { operations, webhooks, wireValidators } from "@paysys/ecommerce/spec";
import { json, type ModuleContext, type SandboxAnswer, SandboxClock, type SandboxModule, type SandboxRequest, Timers } from "./module.js";
import { describeIssues, type HandlerCall, type HandlerTable, handlerCall, match, requestBody, routesOf } from "./routes.js";

export interface EcommerceMerchant {
  login: string;
  password: string;
  /** Successful payments hold the amount (callback status 2) until `approve`. Default false. */
  twoStage?: boolean;
}

export const defaultMerchant: EcommerceMerchant = { login: "shop01", password: "sandbox-password" };

/** Card numbers whose outcome the sandbox knows (any future expiry date, any CVV). */
export const TestCards = {
  success: "4111111111111111",
  decline: "4000000000000002",
  insufficientFunds: "4000000000009995",
} as const;

export const EcommerceSandboxMessages = {
  /** The documented answer to bad credentials. */
  unauthorized: "Unauthorized not found",
  /** The documented answer to a missing or non-positive amount. */
  amount: 'Error validating request: Field "amount" is required and should be larger than 0',
  notFound: "transaction not found",
  declined: "the card was declined (sandbox message)",
  insufficientFunds: "insufficient funds on the card (sandbox message)",
  unknownCard: "the card is not one of the sandbox's test cards, so it is declined (sandbox message)",
  expired: "the transaction's lifetime expired (sandbox message)",
} as const;

export interface EcommerceSandboxOptions {
  merchants?: EcommerceMerchant[];
  /** Time between deliveries of a callback not yet acknowledged, in ms. Default 1000. */
  callbackRetryMs?: number;
  /** Deliveries of one callback before the sandbox gives up. Default 10. */
  callbackMaxAttempts?: number;
  /** How long an unpaid transaction lives, in ms of sandbox time. Default 15 minutes. */
  paymentLifetimeMs?: number;
}

/** The callback / status-query vocabulary (spec `CallbackStatus`). */
const Status = { failed: 0, succeeded: 1, blocked: 2, cancelled: 3 } as const;
const ErrCode = { none: 0, processedWithError: 220, lifetimeExpired: 230 } as const;

interface Transaction {
  id: string;
  merchant: EcommerceMerchant;
  request: Record<string, unknown>;
  orderId: string;
  amount: number;
  demo: boolean;
  payout: boolean;
  createdAt: number;
  status?: number;
  errCode?: number;
  errMessage?: string;
  dateOut?: string;
  cardToken?: string;
  /** Each delivery of its callbacks: the HTTP status (0: no answer) and whether it was acknowledged. */
  deliveries: { status: number; accepted: boolean; callbackStatus: number }[];
}

interface CardToken {
  id: string;
  merchant: string;
  phone: string;
  pan: string;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A request body the gateway refuses: the documented message for the amount, the sandbox's own otherwise. */
const refusal = (issues: ValidationIssue[] | undefined) =>
  !issues
    ? new Refusal(400, "Error validating request: the body is not JSON (sandbox message)")
    : issues.some((i) => i.path === "/amount" || /'amount'/.test(i.message))
      ? new Refusal(400, EcommerceSandboxMessages.amount)
      : new Refusal(400, `Error validating request: ${describeIssues(issues)} (sandbox message)`);

const masked = (pan: string) => `${pan.slice(0, 6)}${"*".repeat(pan.length - 10)}${pan.slice(-4)}`;
const html = (status: number, body: string): SandboxAnswer => ({ status, body, contentType: "text/html; charset=utf-8" });
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class EcommerceSandbox implements SandboxModule {
  readonly name = "ecommerce";
  readonly prefix = "/ecommerce";
  /** Counters for tests (`reusedOrderIds`: creations refused because their orderId existed, a duplicate sent). */
  readonly stats = { requests: 0, created: 0, cryptograms: 0, deliveries: 0, keys: 0, reusedOrderIds: 0 };
  readonly #routes = routesOf(operations, wireValidators);
  readonly #merchants: EcommerceMerchant[];
  readonly #options: EcommerceSandboxOptions;
  readonly #clock: SandboxClock;
  readonly #url: () => string;
  readonly #transactions = new Map<string, Transaction>();
  readonly #byOrder = new Map<string, Transaction>();
  readonly #tokens = new Map<string, CardToken>();
  readonly #balances = new Map<string, number>();
  readonly #timers = new Timers();
  readonly #inFlight = new Set<AbortController>();
  #key?: { privateKey: KeyObject; pem: string; jwk: JsonWebKey };
  #closed = false;

  constructor(options: EcommerceSandboxOptions = {}, context: Partial<ModuleContext> = {}) {
    this.#options = options;
    this.#merchants = options.merchants ?? [defaultMerchant];
    this.#clock = context.clock ?? new SandboxClock();
    this.#url = context.url ?? (() => "http://sandbox");
  }

  describe(url: string): string[] {
    const m = this.#merchants[0]!;
    return [
      `ecommerce          ${url}${this.prefix}   (Basic ${m.login} / ${m.password}; test cards ${Object.entries(TestCards)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})`,
      `  transaction      GET  ${url}/__sandbox/ecommerce/transactions/<id>`,
    ];
  }

  /** The sandbox's key pair, made when first needed (a 2048-bit RSA key takes a moment). */
  get #keys() {
    if (!this.#key) {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      this.#key = { privateKey, pem: publicKey.export({ type: "spki", format: "pem" }).toString(), jwk: publicKey.export({ format: "jwk" }) as JsonWebKey };
    }
    return this.#key;
  }

  /** The private key in PKCS #8 PEM, for benchmarks and tests that decrypt on their own. */
  privateKeyPem(): string {
    return this.#keys.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  }

  /** A transaction as the sandbox holds it, for tests. Never includes card data. */
  transaction(id: string) {
    const t = this.#transactions.get(id);
    if (!t) return undefined;
    return {
      id: t.id,
      orderId: t.orderId,
      merchantId: t.merchant.login,
      amount: t.amount,
      demo: t.demo,
      payout: t.payout,
      status: t.status,
      errCode: t.errCode,
      cardToken: t.cardToken,
      deliveries: [...t.deliveries],
    };
  }

  /** The id of a merchant's transaction by its `orderId`. */
  transactionOf(merchant: string, orderId: string): string | undefined {
    return this.#byOrder.get(`${merchant}\n${orderId}`)?.id;
  }

  /** Money a merchant received minus money it paid out, in tiyn (demo transactions move none). */
  balance(merchant: string): number {
    return this.#balances.get(merchant) ?? 0;
  }

  /** Pays a transaction with a card, as the payment page does. */
  pay(id: string, card: { pan: string; month: string | number; year: string | number; cvv: string }): number | undefined {
    const t = this.#transactions.get(id);
    if (!t) throw new Refusal(404, EcommerceSandboxMessages.notFound);
    this.#charge(t, String(card.pan).replace(/\D/g, ""));
    return t.status;
  }

  /** Delivers a transaction's last callback once more, even if it was acknowledged (the gateway may). Resolves when acknowledged or given up. */
  redeliver(id: string): Promise<boolean> {
    const t = this.#transactions.get(id);
    if (!t || t.status === undefined) return Promise.resolve(false);
    return this.#deliver(t, t.status, 1);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#timers.clear();
    for (const c of this.#inFlight) c.abort();
  }

  async control(path: string, request: SandboxRequest): Promise<SandboxAnswer | undefined> {
    if (path === "/stats" && request.method === "GET") return json(200, this.stats);
    const t = /^\/transactions\/([^/]+)(\/redeliver)?$/.exec(path);
    if (t) {
      const id = decodeURIComponent(t[1]!);
      if (t[2] && request.method === "POST") return json(200, { accepted: await this.redeliver(id) });
      const state = this.transaction(id);
      return state ? json(200, state) : json(404, { error: EcommerceSandboxMessages.notFound });
    }
    return undefined;
  }

  async handle(request: SandboxRequest): Promise<SandboxAnswer> {
    this.stats.requests++;
    this.#expire();
    const page = /^\/pay\/([^/]+)$/.exec(request.path);
    if (page) return this.#page(decodeURIComponent(page[1]!), request);
    const found = match(this.#routes, request.method, request.path);
    if (!found) return json(404, { error: "no such operation (sandbox message)" });
    const { op } = found.route;
    try {
      const merchant = op.security.length > 0 ? this.#authorize(request.headers.authorization) : undefined;
      const body = op.body ? requestBody(found.route, request.body, refusal) : {};
      const answer = this.#handlers[found.route.id](handlerCall(found, request, body, merchant, () => new Refusal(401, EcommerceSandboxMessages.unauthorized)));
      if (typeof answer === "string") return { status: 200, body: answer, contentType: "application/x-pem-file" };
      if (found.route.validateResponse && !found.route.validateResponse(answer)) {
        // An answer that breaks the spec is a sandbox bug: fail loudly.
        return json(500, { error: `sandbox bug: the answer of ${op.id} does not match the spec: ${describeIssues(validatorIssues(found.route.validateResponse))}` });
      }
      return json(200, answer);
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      return json(e.status, { ...e.extra, error: e.message });
    }
  }

  #authorize(header: string | undefined): EcommerceMerchant {
    const basic = header?.startsWith("Basic ") ? Buffer.from(header.slice(6), "base64").toString("utf8") : "";
    const colon = basic.indexOf(":");
    const merchant = this.#merchants.find((m) => colon > 0 && m.login === basic.slice(0, colon) && m.password === basic.slice(colon + 1));
    if (!merchant) throw new Refusal(401, EcommerceSandboxMessages.unauthorized);
    return merchant;
  }

  #find(merchant: EcommerceMerchant, orderId: string, id?: string | null): Transaction {
    const t = this.#byOrder.get(`${merchant.login}\n${orderId}`);
    if (!t || (id && t.id !== id)) throw new Refusal(404, EcommerceSandboxMessages.notFound);
    return t;
  }

  /** Each operation's handler. An answer that is a string is the PEM key, sent as it is. */
  readonly #handlers: HandlerTable<typeof operations, HandlerCall<EcommerceMerchant>, unknown> = {
    "payments.create": ({ body, party: m }) => this.#create(m, body),
    "payments.status": ({ request, party: m }) => {
      const t = this.#find(m, request.query.get("orderid") ?? "", request.query.get("id"));
      return { id: t.id, orderId: t.orderId, merchantId: m.login, amount: t.amount, demo: t.demo, ...(t.status === undefined ? {} : { status: t.status }) };
    },
    "payments.approve": ({ body, party: m }) => {
      const t = this.#transactions.get(String(body.ID));
      if (!t || t.merchant !== m) return { status: 4, error: EcommerceSandboxMessages.notFound };
      if (body.action !== "approve") throw new Refusal(400, `unknown action ${JSON.stringify(body.action)}; the sandbox knows "approve" (sandbox message)`);
      if (t.status !== Status.blocked) throw new Refusal(400, `the transaction's amount is not blocked (status ${t.status ?? "pending"}) (sandbox message)`);
      if (!t.demo) this.#move(m.login, t.amount);
      this.#settle(t, Status.succeeded);
      return { status: 1 };
    },
    "payments.cancel": ({ body, party: m }) => {
      const t = this.#find(m, String(body.order_id));
      if (t.status !== Status.succeeded && t.status !== Status.blocked) {
        throw new Refusal(400, `only a successful or blocked transaction can be cancelled (status ${t.status ?? "pending"}) (sandbox message)`);
      }
      if (t.status === Status.succeeded && !t.demo) this.#move(m.login, t.payout ? t.amount : -t.amount);
      this.#settle(t, Status.cancelled);
      return {};
    },
    "publicKey.pem": () => {
      this.stats.keys++;
      return this.#keys.pem;
    },
    "publicKey.jwk": () => {
      this.stats.keys++;
      return this.#keys.jwk;
    },
    "cardTokens.list": ({ request, party: m }) => {
      const phone = request.query.get("phone") ?? "";
      return [...this.#tokens.values()].filter((c) => c.merchant === m.login && c.phone === phone).map((c) => ({ ID: c.id, Pan: masked(c.pan) }));
    },
    "cardTokens.remove": ({ body, party: m }) => {
      const token = this.#tokens.get(String(body.id));
      const removed = token?.merchant === m.login;
      if (removed) this.#tokens.delete(String(body.id));
      return { removed };
    },
  };

  #create(m: EcommerceMerchant, body: Record<string, unknown>) {
    if (body.merchantId !== m.login) throw new Refusal(400, "Error validating request: merchantId is not the login of the credentials (sandbox message)");
    const orderId = String(body.orderId);
    const orderKey = `${m.login}\n${orderId}`;
    if (this.#byOrder.has(orderKey)) {
      this.stats.reusedOrderIds++;
      throw new Refusal(400, `Error validating request: orderId ${JSON.stringify(orderId)} was already used (sandbox message)`);
    }
    const customer = (body.customerData ?? {}) as Record<string, unknown>;
    const payout = body.type === 1;
    // A card given server-to-server is checked before the transaction exists: a bad cryptogram creates nothing.
    const pan = typeof customer.cardData === "string" ? this.#decrypt(customer.cardData, payout) : undefined;
    const t: Transaction = {
      id: randomBytes(8).toString("hex"),
      merchant: m,
      request: body,
      orderId,
      amount: Number(body.amount),
      demo: body.demo === true,
      payout,
      createdAt: this.#clock.now(),
      deliveries: [],
    };
    this.#transactions.set(t.id, t);
    this.#byOrder.set(orderKey, t);
    this.stats.created++;
    if (pan !== undefined) this.#charge(t, pan);
    else if (typeof customer.cardToken === "string") this.#chargeToken(t, customer.cardToken, String(customer.phone ?? ""));
    return { id: t.id, url: `${this.#url()}${this.prefix}/pay/${t.id}` };
  }

  /** The card number inside a cryptogram, after checking it as the spec's plaintext schema says. */
  #decrypt(cryptogram: string, payout: boolean): string {
    let plain: unknown;
    try {
      const bytes = privateDecrypt({ key: this.#keys.privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(cryptogram, "base64"));
      plain = JSON.parse(bytes.toString("utf8"));
    } catch {
      throw new Refusal(400, "Error validating request: customerData.cardData is not a cryptogram made with the gateway's key (sandbox message)");
    }
    this.stats.cryptograms++;
    const validate = payout ? wireValidators.cryptogram_payout : wireValidators.cryptogram_payment;
    if (!validate(plain)) {
      // The issues name fields only: never a value of the card.
      throw new Refusal(400, `Error validating request: the cryptogram's card data: ${describeIssues(validatorIssues(validate))} (sandbox message)`);
    }
    const card = plain as Record<string, string>;
    if (!payout && (!/^\d{3,4}$/.test(card.cvv ?? "") || `${card.month}/${card.year?.slice(-2)}` !== card.validity)) {
      throw new Refusal(400, "Error validating request: the cryptogram's card data is inconsistent (cvv, month, year, validity) (sandbox message)");
    }
    return card.pan!;
  }

  /** Pays (or pays out) with a card number: the test cards decide. */
  #charge(t: Transaction, pan: string): void {
    if (t.status !== undefined) throw new Refusal(400, "the transaction was already processed (sandbox message)");
    if (t.payout) {
      if (!t.demo && this.balance(t.merchant.login) < t.amount) {
        this.#settle(t, Status.failed, "the merchant's balance is lower than the payout (sandbox message)");
        return;
      }
      if (!t.demo) this.#move(t.merchant.login, -t.amount);
      this.#settle(t, Status.succeeded);
      return;
    }
    const refused =
      pan === TestCards.decline
        ? EcommerceSandboxMessages.declined
        : pan === TestCards.insufficientFunds
          ? EcommerceSandboxMessages.insufficientFunds
          : pan === TestCards.success
            ? undefined
            : EcommerceSandboxMessages.unknownCard;
    if (refused) {
      this.#settle(t, Status.failed, refused);
      return;
    }
    const customer = (t.request.customerData ?? {}) as Record<string, unknown>;
    if (t.request.tokenization === true && typeof customer.phone === "string" && customer.phone !== "") {
      t.cardToken = `ct_${randomBytes(12).toString("base64url")}`;
      this.#tokens.set(t.cardToken, { id: t.cardToken, merchant: t.merchant.login, phone: customer.phone, pan });
    }
    if (!t.merchant.twoStage && !t.demo) this.#move(t.merchant.login, t.amount);
    this.#settle(t, t.merchant.twoStage ? Status.blocked : Status.succeeded);
  }

  #chargeToken(t: Transaction, id: string, phone: string): void {
    const token = this.#tokens.get(id);
    // The token must be used with the phone it was bound with (official page on card tokens).
    if (!token || token.merchant !== t.merchant.login || token.phone !== phone) this.#settle(t, Status.failed, "the card token is unknown for this phone (sandbox message)");
    else this.#charge(t, token.pan);
  }

  #move(merchant: string, amount: number): void {
    this.#balances.set(merchant, this.balance(merchant) + amount);
  }

  #settle(t: Transaction, status: number, error?: string, errCode: number = error ? ErrCode.processedWithError : ErrCode.none): void {
    t.status = status;
    t.errCode = errCode;
    t.errMessage = error ?? "";
    t.dateOut = new Date(this.#clock.now()).toISOString();
    void this.#deliver(t, status, this.#options.callbackMaxAttempts ?? 10);
  }

  /** Unpaid transactions past their lifetime fail with errCode 230 (and call back). */
  #expire(): void {
    const lifetime = this.#options.paymentLifetimeMs ?? 15 * 60_000;
    for (const t of this.#transactions.values()) {
      if (t.status === undefined && this.#clock.now() - t.createdAt >= lifetime) this.#settle(t, Status.failed, EcommerceSandboxMessages.expired, ErrCode.lifetimeExpired);
    }
  }

  #callback(t: Transaction) {
    const r = t.request;
    const pick = (k: string) => (r[k] === undefined ? {} : { [k]: r[k] });
    const event = {
      id: t.id,
      orderId: t.orderId,
      merchantId: t.merchant.login,
      amount: t.amount,
      commission: 0,
      commissionIncluded: false,
      attempt: 1,
      ...pick("returnUrl"),
      ...pick("callbackUrl"),
      ...pick("description"),
      ...pick("metadata"),
      date: new Date(t.createdAt).toISOString(),
      dateOut: t.dateOut,
      demo: t.demo,
      status: t.status,
      errCode: t.errCode,
      errMessage: t.errMessage,
      ...(t.cardToken ? { cardToken: t.cardToken } : {}),
    };
    const check = webhooks["callbacks.payment"].validate;
    if (check && !check(event)) throw new Error(`sandbox bug: a callback that breaks the spec: ${describeIssues(validatorIssues(check))}`);
    return event;
  }

  /** Sends the callback until it is acknowledged or `attempts` ran out; true when acknowledged. */
  async #deliver(t: Transaction, callbackStatus: number, attempts: number): Promise<boolean> {
    const url = t.request.callbackUrl;
    if (typeof url !== "string" || url === "") return false;
    const body = JSON.stringify(this.#callback(t));
    for (let attempt = 1; attempt <= attempts && !this.#closed; attempt++) {
      if (attempt > 1) await this.#timers.sleep(this.#options.callbackRetryMs ?? 1000);
      if (this.#closed) break;
      const controller = new AbortController();
      this.#inFlight.add(controller);
      const timer = setTimeout(() => controller.abort(), 5_000);
      let status = 0;
      let accepted = false;
      try {
        const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: controller.signal });
        status = response.status;
        const ack = await response.json().catch(() => undefined);
        accepted = response.ok && wireValidators.callbacks_payment_ack(ack) && (ack as { accepted: boolean }).accepted === true;
      } catch {
        // No answer: sent again on the next attempt.
      } finally {
        clearTimeout(timer);
        this.#inFlight.delete(controller);
      }
      this.stats.deliveries++;
      t.deliveries.push({ status, accepted, callbackStatus });
      if (accepted) return true;
    }
    return false;
  }

  /** The sandbox's payment page: a card form (GET) and its submission (POST, form-encoded). */
  #page(id: string, request: SandboxRequest): SandboxAnswer {
    const t = this.#transactions.get(id);
    if (!t) return html(404, "<!doctype html><title>Not found</title><p>No such payment.</p>");
    if (request.method === "POST" && t.status === undefined) {
      const form = new URLSearchParams(request.body);
      this.#charge(t, (form.get("pan") ?? "").replace(/\D/g, ""));
      const target = t.status === Status.failed ? (t.request.failUrl ?? t.request.returnUrl) : (t.request.successUrl ?? t.request.returnUrl);
      if (typeof target === "string" && target !== "") return { status: 303, headers: { location: target }, body: "", contentType: "text/plain" };
    }
    const amount = `${Math.trunc(t.amount / 100)}.${String(t.amount % 100).padStart(2, "0")} KZT`;
    const description = escapeHtml(String(t.request.description ?? ""));
    if (t.status !== undefined) {
      const outcome =
        t.status === Status.failed ? `Payment failed: ${escapeHtml(t.errMessage ?? "")}` : t.status === Status.blocked ? "The amount is blocked." : "Payment received.";
      return html(
        200,
        `<!doctype html><meta charset="utf-8"><title>Payment ${t.id}</title><h1 id="outcome" data-status="${t.status}">${outcome}</h1><p>${amount} ${description}</p>`,
      );
    }
    const cards = Object.entries(TestCards)
      .map(([k, v]) => `<li>${k}: <code>${v}</code></li>`)
      .join("");
    return html(
      200,
      `<!doctype html><meta charset="utf-8"><title>Pay ${amount}</title>
<h1>Pay ${amount}</h1><p>${description}</p>
<form method="post"><label>Card number <input name="pan" autocomplete="cc-number"></label>
<label>Month <input name="month" size="2"></label> <label>Year <input name="year" size="4"></label>
<label>CVV <input name="cvv" size="4"></label> <label>Cardholder <input name="cardholder"></label>
<button type="submit">Pay</button></form>
<p>Sandbox test cards (any future date, any CVV):</p><ul>${cards}</ul>`,
    );
  }
}
