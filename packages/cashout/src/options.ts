// Options of `createCashoutClient`. The plain-data part is an interface on purpose: the code
// generator turns it into a JSON Schema (typescript-json-schema) and a precompiled validator, so
// options passed from plain JavaScript are checked as strictly as TypeScript checks them.
import type { ClientFunctions, ClientSettings, JournalFunctions, JournalSettings, RetryOptions, TokenSet } from "@paysys/core/calls";
import { clientFunctionKeys, journalFunctionKeys } from "@paysys/core/shell";

/** Cash-out client settings that are plain data. */
export interface CashoutClientSettings extends ClientSettings, Omit<JournalSettings, "lease"> {
  /** Base address of the cash-out API. No source shows it (the document writes `{cashout_url}`): your integration manager gives it. */
  baseUrl: string;
  /** What `/authorize` is sent. */
  credentials: CashoutCredentials;
  /** Retries of idempotent operations. The API has none that are known: authorization and submission are never retried. */
  retry?: RetryOptions;
  /**
   * The largest amount a request may carry, checked before sending. The document's figure is cut
   * off ("begins with 135 thousand", unit not shown), so there is no default: without this option
   * nothing is checked.
   */
  maxAmount?: MaximumAmount;
}

/**
 * The login-and-password variant: `authType`, `login`, `password`. The numbers of `authType` are
 * not shown in any source; your integration manager gives the one for this variant.
 */
export interface PasswordCredentials {
  authType: number;
  login: string;
  password: string;
}

/**
 * Any other variant, such as the certificate one, whose body the sources do not show: `fields` are
 * sent as the body of `/authorize` as given, beside `authType`. A client certificate for TLS goes
 * into the `fetch` you pass (an undici `Agent` with `connect: { cert, key }`). `id` names the
 * credential in the token store (one token per credential).
 */
export interface OtherCredentials {
  authType: number;
  id: string;
  fields: { [name: string]: unknown };
}

export type CashoutCredentials = PasswordCredentials | OtherCredentials;

export interface MaximumAmount {
  /** The largest amount, in the unit the body uses. */
  value: number;
  /** Where the amount is in the request body, as a JSON pointer (e.g. `/amount`): the body's fields are not shown. */
  at: string;
}

/** Cash-out client options that are functions or objects. */
export interface CashoutClientFunctions extends ClientFunctions, JournalFunctions {
  // `store` also keeps the credential's token. A new token kills the old one, so every client and
  // process using one credential must share it: by default one store serves the whole process
  // (clients in one process share their tokens without being told); `FileStore` (from
  // `@paysys/cashout/node`) shares it between processes on one machine.
  /** Reads the token from the answer of `/authorize`, whose fields are not shown. Default: `token` or `accessToken`, and `expiresIn` (seconds) if present. */
  extractToken?: (answer: Record<string, unknown>) => TokenSet;
  /** Headers that present the token; the document does not show how. Default `Authorization: Bearer <token>`. */
  authorize?: (token: string) => Record<string, string>;
}

export type CashoutClientOptions = CashoutClientSettings & CashoutClientFunctions;

export const functionOptionKeys = { ...clientFunctionKeys, ...journalFunctionKeys, extractToken: "function", authorize: "function" } as const;
