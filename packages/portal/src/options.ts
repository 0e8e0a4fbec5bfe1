// Options of `createPortalClient`. The plain-data part is an interface on purpose: the code
// generator turns it into a JSON Schema (typescript-json-schema) and a precompiled validator, so
// options passed from plain JavaScript are checked as strictly as TypeScript checks them.
import type { ClientFunctions, ClientSettings, RetryOptions, TokenSet } from "@paysys/core/calls";
import { clientFunctionKeys } from "@paysys/core/shell";
import type { AccountCaptchaResult } from "./generated/v2/schema.js";

/** Portal client settings that are plain data. */
export interface PortalClientSettings extends ClientSettings {
  /** Base address of the portal. No source shows it: your integration manager gives it. */
  baseUrl: string;
  /** Interface version. Default `"v2"`. */
  version?: "v2" | "v1";
  /** Retries of idempotent operations (reports, lists, profiles). Sign-in is never retried. */
  retry?: RetryOptions;
  /** Time zone in which `Date` parameters are rendered. Default `"Asia/Almaty"`. */
  timeZone?: string;
  /** Credentials the client signs in with whenever it needs a token (needs `solveCaptcha` too). */
  credentials?: PortalCredentials;
  /**
   * Which token `/account/refresh` sends as `token`; the document does not say. Default `"refreshToken"`.
   */
  refreshWith?: "refreshToken" | "accessToken";
}

export interface PortalCredentials {
  lgn: string;
  psw: string;
  /** Allowed values are not shown in the source document. */
  initiator?: string;
}

/** What the captcha request answered, for a person to read. */
export interface CaptchaChallenge {
  captchaSession: string;
  /** The captcha result object; its fields are not shown in the source document (the sandbox sends `image`). */
  captcha: AccountCaptchaResult;
}

/** Portal client options that are functions. */
export interface PortalClientFunctions extends ClientFunctions {
  /** Shows the captcha to a person and resolves with the text they read. */
  solveCaptcha?: (challenge: CaptchaChallenge) => Promise<string>;
  /**
   * Reads the tokens from the token and refresh answers, whose fields the document does not show.
   * Default: `accessToken` (or `token`), `refreshToken`, `expiresIn` (seconds).
   */
  extractTokens?: (result: Record<string, unknown>) => TokenSet;
  /**
   * Headers that present the access token; the document does not show how. Default
   * `Authorization: Bearer <token>`. A function of the token alone: it is called once per token,
   * and its headers are reused for every request while that token is in use.
   */
  authorize?: (token: string) => Record<string, string>;
  /** Makes captcha session ids. Default `crypto.randomUUID()`. */
  newCaptchaSession?: () => string;
}

export type PortalClientOptions = PortalClientSettings & PortalClientFunctions;

export const functionOptionKeys = { ...clientFunctionKeys, solveCaptcha: "function", extractTokens: "function", authorize: "function", newCaptchaSession: "function" } as const;
