// `createPortalClient`: the generated method facade of v2 or v1 over one transport, with what the
// spec cannot say written here: the envelopes, the captcha sign-in, token storage and logout.
import {
  type CallOptions,
  checkClientOptions,
  encodeParams,
  type OperationSpec,
  RequestValidationError,
  randomUuid,
  TokenManager,
  type TokenSet,
  Transport,
  UnexpectedResponseError,
  UnsupportedOperationError,
} from "@paysys/core";
import type { Client } from "openapi-fetch";
import { unwrapV1, unwrapV2 } from "./envelope.js";
import { settings as settingsValidator } from "./generated/settings.js";
import { buildPortalV1Methods, type PortalV1Methods } from "./generated/v1/client.js";
import { operations as v1Operations, sensitiveKeys as v1SensitiveKeys } from "./generated/v1/operations.js";
import type { paths as V1Paths } from "./generated/v1/schema.js";
import { buildPortalV2Methods, type PortalV2Methods } from "./generated/v2/client.js";
import { operations as v2Operations, sensitiveKeys as v2SensitiveKeys } from "./generated/v2/operations.js";
import type { paths as V2Paths } from "./generated/v2/schema.js";
import { type CaptchaChallenge, functionOptionKeys, type PortalClientOptions, type PortalCredentials } from "./options.js";

/** What both versions add to the generated methods. */
export interface PortalClientBase<Paths extends object> {
  readonly version: "v1" | "v2";
  /**
   * Step 1 of sign-in: asks for a captcha with a fresh session id. Show `captcha` to a person,
   * then call `signIn` with the text they read and the same `captchaSession`.
   */
  requestCaptcha(options?: CallOptions): Promise<CaptchaChallenge>;
  /** Step 2: signs in and keeps the tokens; later calls present and renew them. */
  signIn(input: PortalCredentials & { captcha: string; captchaSession: string }, options?: CallOptions): Promise<void>;
  /** Whether the client holds tokens. */
  readonly signedIn: boolean;
  /** Logs out (ends the session on the server) and forgets the tokens. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** The low-level openapi-fetch client (same base URL, token, timeouts; no automatic retries). */
  readonly raw: Client<Paths>;
}

export type PortalV2Client = PortalV2Methods & PortalClientBase<V2Paths>;
export type PortalV1Client = PortalV1Methods & PortalClientBase<V1Paths>;

const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");

const callbacks = Object.fromEntries(functionOptionKeys.map((k) => [k, k === "hooks" ? "object" : "function"])) as Record<string, "function" | "object">;

/** The default reading of the token answer, whose fields the document does not show. */
export function defaultExtractTokens(result: Record<string, unknown>, now: number = Date.now()): TokenSet {
  const access = result.accessToken ?? result.token;
  if (typeof access !== "string" || access === "") {
    throw new UnexpectedResponseError(
      `account.token: the token answer has no accessToken or token field (fields: ${Object.keys(result).join(", ") || "none"}); pass the extractTokens option`,
      {
        operation: "account.token",
        bodyExcerpt: "[REDACTED: this answer carries secrets]",
      },
    );
  }
  const refresh = result.refreshToken;
  const expiresIn = result.expiresIn;
  return {
    accessToken: access,
    refreshToken: typeof refresh === "string" ? refresh : undefined,
    expiresAt: typeof expiresIn === "number" ? now + expiresIn * 1000 : undefined,
  };
}

/**
 * Creates a partner-portal client. `version: "v1"` gives the v1 interface with the same method
 * names (there is no `user.me` in v1).
 *
 * @example
 * const portal = createPortalClient({ baseUrl: "https://portal.example", solveCaptcha, credentials: { lgn, psw } });
 * const rows = await portal.reports.payments({ dateFrom: new Date("2024-05-01"), dateTo: new Date() });
 */
export function createPortalClient(options: PortalClientOptions & { version: "v1" }): PortalV1Client;
export function createPortalClient(options: PortalClientOptions & { version?: "v2" }): PortalV2Client;
export function createPortalClient(options: PortalClientOptions): PortalV1Client | PortalV2Client;
export function createPortalClient(options: PortalClientOptions): PortalV1Client | PortalV2Client {
  checkClientOptions("createPortalClient", options, settingsValidator, callbacks);
  const version = options.version ?? "v2";
  const ops = (version === "v2" ? v2Operations : v1Operations) as Record<string, OperationSpec>;
  const op = (id: string): OperationSpec => ops[id]!;
  const extract = options.extractTokens ?? ((r: Record<string, unknown>) => defaultExtractTokens(r));
  const newSession = options.newCaptchaSession ?? randomUuid;

  const tokens: TokenManager = new TokenManager({
    obtain:
      options.credentials && options.solveCaptcha
        ? async () => {
            const challenge = await requestCaptcha();
            const captcha = await options.solveCaptcha!(challenge);
            return extract(
              (await invoke(op("account.token"), { initiator: "sdk", ...options.credentials, captcha, captchaSession: challenge.captchaSession })) as Record<string, unknown>,
            );
          }
        : undefined,
    refresh: async (current) => {
      const token = options.refreshWith === "accessToken" ? current.accessToken : current.refreshToken;
      const next = extract((await invoke(op("account.refresh"), { token })) as Record<string, unknown>);
      // Keep the old refresh token when the answer carries none.
      return { ...next, refreshToken: next.refreshToken ?? current.refreshToken };
    },
  });

  const transport = new Transport({
    baseUrl: options.baseUrl,
    fetch: options.fetch,
    timeoutMs: options.timeoutMs,
    retry: options.retry,
    validateRequests: options.validateRequests,
    validateResponses: options.validateResponses,
    logger: options.logger,
    hooks: options.hooks,
    headers: options.headers,
    auth: { tokens, authorize: options.authorize ?? ((t) => ({ Authorization: `Bearer ${t}` })) },
    sensitiveKeys: version === "v2" ? v2SensitiveKeys : v1SensitiveKeys,
  });

  async function invoke(op: OperationSpec, params: unknown, callOptions?: CallOptions): Promise<unknown> {
    if (params === null || typeof params !== "object" || Array.isArray(params)) {
      throw new RequestValidationError(op.id, [{ path: "", message: "params must be an object" }]);
    }
    const encoded = encodeParams(op.id, params as Record<string, unknown>, op.codecs, { timeZone: options.timeZone }, op.patternCodecs);
    const body = version === "v2" ? { params: encoded } : { Body: { Params: encoded } };
    const wantsFile = op.binaryWhen !== undefined && Object.entries(op.binaryWhen).every(([k, v]) => encoded[k] === v);
    const result = await transport.call(op, { body }, callOptions, wantsFile);
    if (result.kind === "file") return result.file;
    return version === "v2" ? unwrapV2(op, result) : unwrapV1(op, result);
  }

  async function requestCaptcha(callOptions?: CallOptions): Promise<CaptchaChallenge> {
    const captchaSession = newSession();
    const captcha = (await invoke(op("account.captcha"), { captchaSession }, callOptions)) as Record<string, unknown>;
    return { captchaSession, captcha };
  }

  const methods = version === "v2" ? buildPortalV2Methods(invoke) : buildPortalV1Methods(invoke);
  if (version === "v1") {
    // Not in the v1 type either; this is for JavaScript callers, who would otherwise see "not a function".
    Object.defineProperty(methods.user, "me", {
      enumerable: false,
      value: () => Promise.reject(new UnsupportedOperationError("user.me exists only in portal v2; on v1 use user.profile() without idUser", { operation: "user.me" })),
    });
  }

  const base: PortalClientBase<Record<string, never>> = {
    version,
    requestCaptcha,
    async signIn(input, callOptions) {
      const { lgn, psw, initiator = "sdk", captcha, captchaSession } = input;
      tokens.set(extract((await invoke(op("account.token"), { lgn, psw, initiator, captcha, captchaSession }, callOptions)) as Record<string, unknown>));
    },
    get signedIn() {
      return tokens.tokens !== undefined;
    },
    async close() {
      const refreshToken = tokens.tokens?.refreshToken;
      try {
        if (refreshToken) await invoke(op("account.logout"), { refreshToken });
      } finally {
        tokens.clear();
      }
    },
    [asyncDispose]() {
      return this.close();
    },
    raw: transport.raw,
  };
  return Object.assign(Object.create(base) as object, methods) as PortalV1Client | PortalV2Client;
}
