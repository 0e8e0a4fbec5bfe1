// The cash-out client itself, which `createCashoutClient` (create.ts) loads at its first call: the
// generated methods over the shared invoker. What the spec cannot say is written here: how the credential is sent (its body is partly a gap), where the token is kept so
// that every holder of one credential uses one token (a new token kills the old one), and the
// maximum amount the caller configures.
import type { CallOptions, ClientJournal, IdempotencyOptions, ValidationIssue } from "@paysys/core/calls";
import {
  accountName,
  asyncDispose,
  bearerScheme,
  type Check,
  defineClient,
  evaluatePointer,
  parsePointer,
  processStore,
  SecretSet,
  TokenManager,
  tokensFromAnswer,
} from "@paysys/core/internal";
import type { Client } from "openapi-fetch";
import { type CashoutMethods, spec } from "./generated/client.js";
import { securitySchemes } from "./generated/operations.js";
import type { paths } from "./generated/schema.js";
import type { CashoutClientOptions, CashoutCredentials, MaximumAmount } from "./options.js";

/**
 * A cash-out client. It has no `auth.authorize`: the client authorizes by itself, once for every
 * holder of the credential, because an authorization you started would kill their token.
 */
export interface CashoutClient extends Omit<CashoutMethods, "auth"> {
  /** The journal of withdrawal requests: what became of each key, and `recover()` after a restart. */
  readonly journal: ClientJournal;
  /** Forgets the token in this client; the token store keeps it for the credential's other holders. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** The low-level openapi-fetch client (same base URL and token; no automatic retries). */
  readonly raw: Client<paths>;
}

/** The name of a credential in the token store: never its secret. */
const credentialId = (baseUrl: string, c: CashoutCredentials) => accountName("cashout", baseUrl, String("login" in c ? c.login : c.id));

/** An amount as text: digits, and a fraction after a point. */
const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** `maximum-amount` (spec `x-checks`): the caller's maximum, at the place in the body the caller names (a pointer create.ts checked). */
function maximumAmount(limit: MaximumAmount | undefined): Check {
  if (!limit) return () => [];
  const keys = parsePointer(limit.at);
  return (input): ValidationIssue[] => {
    const { found, value } = evaluatePointer(input, keys);
    // Digits as written, the way the service reads them: "0x10", ".5", "1e3" or " 7" would be checked
    // as one amount (Number() reads them) and sent as text the service may read as another.
    const amount = typeof value === "string" && PLAIN_DECIMAL.test(value) ? Number(value) : value;
    if (!found || typeof amount !== "number" || !Number.isFinite(amount)) {
      return [{ path: limit.at, message: `must be the amount (a number, or a string of plain decimal digits), to be checked against maxAmount ${limit.value}` }];
    }
    if (!(amount > 0)) return [{ path: limit.at, message: "must be a positive amount" }]; // a withdrawal of nothing, or of less
    return amount > limit.value ? [{ path: limit.at, message: `must not exceed maxAmount ${limit.value}` }] : [];
  };
}

/** The client over options `createCashoutClient` has checked. */
export function buildCashoutClient(options: CashoutClientOptions): CashoutClient {
  const { credentials } = options;
  const secrets = new SecretSet();
  const named = spec.operations["auth.authorize"]?.names ?? [];
  if ("password" in credentials) secrets.pin(credentials.password);
  // Another variant's fields are its secret, numbers and nested values too: all but those the spec names (a login).
  else for (const [k, v] of Object.entries(credentials.fields)) if (!named.includes(k)) secrets.pinEvery(v);
  const extract = options.extractToken ?? ((answer: Record<string, unknown>) => tokensFromAnswer("auth.authorize", "extractToken", answer));
  // The login-and-password body is the spec's; another variant's fields are not shown, so they go as
  // they are given, beside `authType`: those the spec names (a login) as parameters, where they are
  // checked, the others through `extraParams` (still searched for card data).
  const [body, extraParams] =
    "password" in credentials
      ? [{ authType: credentials.authType, login: credentials.login, password: credentials.password }, undefined]
      : [
          { authType: credentials.authType, ...Object.fromEntries(Object.entries(credentials.fields).filter(([k]) => named.includes(k))) },
          Object.fromEntries(Object.entries(credentials.fields).filter(([k]) => !named.includes(k))),
        ];

  const tokens: TokenManager = new TokenManager({
    secrets,
    // A minute early, so a token does not expire on the wire. The early renewal is still driven by
    // a call that needs the token, never by a timer: the old token dies at once.
    earlyRenewalMs: 60_000,
    lifetime: securitySchemes.cashoutToken?.tokenLifetime,
    obtain: async () => extract(await methods.auth.authorize(body, extraParams && { extraParams })),
    // The whole credential proves the holder: the authType too, since another variant is another sign-in.
    shared: { store: options.store ?? processStore, key: credentialId(options.baseUrl, credentials), credential: credentials },
  });
  const { methods, invoker, transport } = defineClient(spec, {
    interface: "cashout",
    options,
    baseUrl: options.baseUrl,
    secrets,
    schemes: { cashoutToken: bearerScheme(tokens, options.authorize) },
    codecs: {},
    checks: { "maximum-amount": maximumAmount(options.maxAmount) },
    journal: { account: "login" in credentials ? credentials.login : credentials.id },
  });

  return {
    requests: {
      create: (params, callOptions?: CallOptions & IdempotencyOptions) => methods.requests.create(params, callOptions),
    },
    journal: invoker.journal!,
    async close() {
      tokens.clear();
    },
    [asyncDispose]() {
      return this.close();
    },
    raw: transport.raw,
  };
}
