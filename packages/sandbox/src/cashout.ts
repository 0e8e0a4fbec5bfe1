// The cash-out API as the sandbox plays it: `/authorize` issues a token that lives one hour and
// revokes the login's previous token at once (the document's rule), and `/cash-out-request` stores
// a request with status 1 (STATUS_PROCESSING) that becomes 2 (STATUS_EXPIRED) three days later, on
// the clock every module shares. Request bodies are checked with the validators generated from the
// spec.
//
// Almost all of this interface is a gap, so the sandbox chooses, and says so here: `authType` 1 is
// login and password; the token answer is `{ token, expiresIn }` and the token goes in
// `Authorization: Bearer`; the stored request is answered as `{ id, status, expiresAt }`; errors are
// `{ error }` with the sandbox's own messages (401 for a missing, revoked or expired token, 406 for an
// `Accept` that is not JSON); the request body is stored as given.
import { randomBytes } from "node:crypto";
import { operations, wireValidators } from "@paysys/cashout/spec";
import { json, type ModuleContext, type SandboxAnswer, SandboxClock, type SandboxModule, type SandboxRequest } from "./module.js";
import { describeIssues, type HandlerCall, type HandlerTable, handlerCall, match, requestBody, routesOf } from "./routes.js";

export interface CashoutUser {
  login: string;
  password: string;
}

export const defaultCashoutUser: CashoutUser = { login: "provider01", password: "sandbox-password" };

/** The sandbox's number for the login-and-password variant (the real numbers are not shown). */
export const SANDBOX_PASSWORD_AUTH_TYPE = 1;

export const CashoutSandboxMessages = {
  noToken: "no token (sandbox message)",
  revoked: "the token was replaced by a newer one for this login (sandbox message)",
  expired: "the token expired (sandbox message)",
  wrongCredentials: "wrong login or password (sandbox message)",
  notJson: "Accept must be a JSON media type (sandbox message)",
} as const;

export interface CashoutSandboxOptions {
  users?: CashoutUser[];
  /** Token lifetime in ms of sandbox time. Default one hour (the document's). */
  tokenTtlMs?: number;
  /** Request lifetime in ms of sandbox time. Default three days (the document's). */
  requestTtlMs?: number;
}

/** The document's request statuses (two of four are shown). */
const Status = { processing: 1, expired: 2 } as const;

interface Token {
  login: string;
  expiresAt: number;
  revoked: boolean;
}

interface StoredRequest {
  id: string;
  login: string;
  createdAt: number;
  expiresAt: number;
  body: Record<string, unknown>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const JSON_MEDIA_TYPE = /^application\/([A-Za-z0-9!#$&^_.-]+\+)?json(\s*;.*)?$/;

export class CashoutSandbox implements SandboxModule {
  readonly name = "cashout";
  readonly prefix = "/cashout";
  /** Counters for tests: authorizations, calls refused for a revoked or an expired token, requests stored. */
  readonly stats = { requests: 0, authorizations: 0, revokedUses: 0, expiredUses: 0, stored: 0 };
  readonly #routes = routesOf(operations, wireValidators);
  readonly #users: CashoutUser[];
  readonly #options: CashoutSandboxOptions;
  readonly #clock: SandboxClock;
  readonly #tokens = new Map<string, Token>();
  readonly #current = new Map<string, string>();
  readonly #stored = new Map<string, StoredRequest>();

  constructor(options: CashoutSandboxOptions = {}, context: Partial<ModuleContext> = {}) {
    this.#options = options;
    this.#users = options.users ?? [defaultCashoutUser];
    this.#clock = context.clock ?? new SandboxClock();
  }

  describe(url: string): string[] {
    const u = this.#users[0]!;
    return [
      `cashout            ${url}${this.prefix}   (authType ${SANDBOX_PASSWORD_AUTH_TYPE}, login ${u.login} / ${u.password})`,
      `  stored request   GET  ${url}/__sandbox/cashout/requests/<id>`,
    ];
  }

  /** Every token issued so far (for tests that look for leaks). */
  issuedTokens(): string[] {
    return [...this.#tokens.keys()];
  }

  /** A stored request with its status now (1 processing, 2 expired), for tests. */
  request(id: string) {
    const r = this.#stored.get(id);
    return r && { id: r.id, login: r.login, status: this.#statusOf(r), expiresAt: new Date(r.expiresAt).toISOString(), body: r.body };
  }

  /** Every stored request's body, in order: what a test judges a provider by. */
  storedBodies(): unknown[] {
    return [...this.#stored.values()].map((r) => r.body);
  }

  async control(path: string, request: SandboxRequest): Promise<SandboxAnswer | undefined> {
    if (path === "/stats" && request.method === "GET") return json(200, this.stats);
    const r = /^\/requests\/([^/]+)$/.exec(path);
    if (r && request.method === "GET") {
      const state = this.request(decodeURIComponent(r[1]!));
      return state ? json(200, state) : json(404, { error: "no such request (sandbox message)" });
    }
    return undefined;
  }

  async handle(request: SandboxRequest): Promise<SandboxAnswer> {
    this.stats.requests++;
    const found = match(this.#routes, request.method, request.path);
    if (!found) return json(404, { error: "no such operation (sandbox message)" });
    const { op } = found.route;
    try {
      if (!JSON_MEDIA_TYPE.test(request.headers.accept ?? "")) throw new Refusal(406, CashoutSandboxMessages.notJson);
      const login = op.security.length > 0 ? this.#authorize(request.headers.authorization) : undefined;
      const body = requestBody(
        found.route,
        request.body,
        (issues) => new Refusal(400, issues ? `invalid request (sandbox message): ${describeIssues(issues)}` : "the body is not JSON (sandbox message)"),
      );
      return json(200, this.#handlers[found.route.id](handlerCall(found, request, body, login, () => new Refusal(401, CashoutSandboxMessages.noToken))));
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      return json(e.status, { error: e.message });
    }
  }

  #authorize(header: string | undefined): string {
    const token = header?.startsWith("Bearer ") ? this.#tokens.get(header.slice(7)) : undefined;
    if (!token) throw new Refusal(401, CashoutSandboxMessages.noToken);
    if (token.revoked) {
      this.stats.revokedUses++;
      throw new Refusal(401, CashoutSandboxMessages.revoked);
    }
    if (token.expiresAt <= this.#clock.now()) {
      this.stats.expiredUses++;
      throw new Refusal(401, CashoutSandboxMessages.expired);
    }
    return token.login;
  }

  #statusOf(r: StoredRequest): number {
    return this.#clock.now() >= r.expiresAt ? Status.expired : Status.processing;
  }

  /** Each operation's handler. */
  readonly #handlers: HandlerTable<typeof operations, HandlerCall<string>, unknown> = {
    "auth.authorize": ({ body }) => {
      if (body.authType !== SANDBOX_PASSWORD_AUTH_TYPE) {
        throw new Refusal(
          400,
          `authType ${JSON.stringify(body.authType)} is not one the sandbox knows; it takes ${SANDBOX_PASSWORD_AUTH_TYPE} for login and password (sandbox message)`,
        );
      }
      const user = this.#users.find((u) => u.login === body.login && u.password === body.password);
      if (!user) throw new Refusal(401, CashoutSandboxMessages.wrongCredentials);
      this.stats.authorizations++;
      // The document's rule: a new token invalidates the previous one at once.
      const previous = this.#current.get(user.login);
      if (previous) this.#tokens.get(previous)!.revoked = true;
      const token = `co_${randomBytes(18).toString("base64url")}`;
      const ttl = this.#options.tokenTtlMs ?? 3_600_000;
      this.#tokens.set(token, { login: user.login, expiresAt: this.#clock.now() + ttl, revoked: false });
      this.#current.set(user.login, token);
      return { token, expiresIn: ttl / 1000 };
    },
    "requests.create": ({ body, party: login }) => {
      const id = `co-${randomBytes(6).toString("hex")}`;
      const now = this.#clock.now();
      const stored: StoredRequest = { id, login, createdAt: now, expiresAt: now + (this.#options.requestTtlMs ?? 3 * 86_400_000), body };
      this.#stored.set(id, stored);
      this.stats.stored++;
      return { id, status: this.#statusOf(stored), expiresAt: new Date(stored.expiresAt).toISOString() };
    },
  };
}
