// The portal client itself, which `createPortalClient` (create.ts) loads at its first call: the
// generated methods of v2 or v1 over the shared invoker. What the spec
// cannot say is written here and nowhere else: the captcha sign-in, reading the token answer
// (whose fields the document does not show), logout on close, and v1's missing `user.me`.
import { AuthenticationError, type CallOptions, ClientClosedError, UnsupportedOperationError } from "@paysys/core/calls";
import { asyncDispose, bearerScheme, causeShown, defineClient, randomUuid, SecretSet, TokenManager } from "@paysys/core/internal";
import type { Client } from "openapi-fetch";
import { portalCodecs } from "./codecs.js";
import { type PortalV1Methods, spec as v1 } from "./generated/v1/client.js";
import type { paths as V1Paths } from "./generated/v1/schema.js";
import { type PortalV2Methods, spec as v2 } from "./generated/v2/client.js";
import type { paths as V2Paths } from "./generated/v2/schema.js";
import type { CaptchaChallenge, PortalClientOptions, PortalCredentials } from "./options.js";
import { defaultExtractTokens } from "./tokens.js";

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
  /** Logs out (ends the session on the server) and forgets the tokens. The client refuses calls afterwards. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** The low-level openapi-fetch client (same base URL, token, timeouts; no automatic retries). */
  readonly raw: Client<Paths>;
}

export type PortalV2Client = PortalV2Methods & PortalClientBase<V2Paths>;
export type PortalV1Client = PortalV1Methods & PortalClientBase<V1Paths>;

/** The client over options `createPortalClient` has checked. */
export function buildPortalClient(options: PortalClientOptions): PortalV1Client | PortalV2Client {
  const version = options.version ?? "v2";
  const extract = options.extractTokens ?? ((r: Record<string, unknown>) => defaultExtractTokens(r));
  const newSession = options.newCaptchaSession ?? randomUuid;
  // Every secret the client holds, so no error or log line can show one whatever the server echoes.
  const secrets = new SecretSet();
  secrets.pin(options.credentials?.psw);
  let closed = false;
  /** `close()` under way: it waits for a sign-in under way and ends that session too; nothing signs in anew. */
  let closing: Promise<void> | undefined;
  const notAgain = () => new ClientClosedError("the portal client is closing (logging out); create a new client to sign in again");

  const tokens: TokenManager = new TokenManager({
    secrets,
    obtain:
      options.credentials && options.solveCaptcha
        ? async () => {
            if (closing) throw notAgain();
            const challenge = await requestCaptcha();
            const captcha = await solved(options.solveCaptcha!, challenge, secrets);
            return extract(await methods.account.token({ initiator: "sdk", ...options.credentials, captcha, captchaSession: challenge.captchaSession }));
          }
        : undefined,
    refresh: async (current) => {
      const token = options.refreshWith === "accessToken" ? current.accessToken : current.refreshToken;
      const next = extract(await methods.account.refresh({ token }));
      // Keep the old refresh token when the answer carries none.
      return { ...next, refreshToken: next.refreshToken ?? current.refreshToken };
    },
  });

  const parts = {
    interface: "portal",
    options,
    baseUrl: options.baseUrl,
    secrets,
    schemes: { portalToken: bearerScheme(tokens, options.authorize) },
    codecs: portalCodecs,
    checks: {},
    guard: () => {
      if (closed) throw new ClientClosedError("the portal client was closed (logged out); create a new client to sign in again");
    },
  };
  const { methods, transport } = version === "v2" ? defineClient(v2, parts) : defineClient(v1, parts);

  async function requestCaptcha(callOptions?: CallOptions): Promise<CaptchaChallenge> {
    const captchaSession = newSession();
    return { captchaSession, captcha: await methods.account.captcha({ captchaSession }, callOptions) };
  }
  if (version === "v1") {
    // Not in the v1 type either; this is for JavaScript callers, who would otherwise see "not a function".
    Object.defineProperty(methods.user, "me", {
      enumerable: false,
      value: () => Promise.reject(new UnsupportedOperationError("user.me exists only in portal v2; on v1 use user.profile() without idUser", { operation: "user.me" })),
    });
  }

  /**
   * Ends the session the client holds, or the one a sign-in under way is opening. The logout needs
   * an access token, and renewing an expired one may replace the refresh token the logout names
   * (the service then ends nothing): a logout that renewed is sent again with the new one. A session
   * that cannot be renewed without a new sign-in is not signed in again only to be ended.
   */
  async function logOut(): Promise<void> {
    await tokens.settled();
    for (let tries = 0; tries < 2; tries++) {
      const refreshToken = tokens.tokens?.refreshToken;
      if (!refreshToken) return;
      try {
        await methods.account.logout({ refreshToken });
      } catch (e) {
        if (e instanceof ClientClosedError) return;
        throw e;
      }
      if (tokens.tokens?.refreshToken === refreshToken) return;
    }
  }

  const base = {
    version,
    requestCaptcha,
    async signIn(input, callOptions) {
      // Its secrets are known before anything is sent. The input goes to the sign-in as given, so the
      // spec's validator refuses what is not an object and a field it does not name (a misspelt one
      // was dropped, and the sign-in sent without it).
      const given: Partial<PortalCredentials & { captcha: string }> | null | undefined = input;
      secrets.pin(given?.psw);
      secrets.remember(given?.captcha);
      const params = given !== null && typeof given === "object" ? { initiator: "sdk", ...given } : given;
      tokens.set(extract(await methods.account.token(params as Parameters<typeof methods.account.token>[0], callOptions)));
    },
    get signedIn() {
      return tokens.tokens !== undefined;
    },
    close() {
      if (closed) return Promise.resolve();
      closing ??= logOut().finally(() => {
        closed = true;
        tokens.clear();
      });
      return closing;
    },
    [asyncDispose]() {
      return this.close();
    },
    raw: transport.raw,
  } satisfies Omit<PortalClientBase<object>, "raw"> & { raw: PortalV1Client["raw"] | PortalV2Client["raw"] };
  return Object.assign(Object.create(base) as object, methods) as PortalV1Client | PortalV2Client;
}

/**
 * The captcha's text from the caller's solver (remembered as a secret), or a sign-in error that says the solver failed or
 * answered no text, before the sign-in is sent (a sign-in without its captcha spends the session):
 * the solver is the caller's code, so its failure is no connection error.
 */
async function solved(solve: NonNullable<PortalClientOptions["solveCaptcha"]>, challenge: CaptchaChallenge, secrets: SecretSet): Promise<string> {
  let captcha: unknown;
  try {
    captcha = await solve(challenge);
  } catch (e) {
    throw new AuthenticationError("not signed in: the solveCaptcha function failed (see the cause); the sign-in was not sent", { attempts: 0, cause: causeShown(e, secrets) });
  }
  // A secret whatever it is: a number a service quotes back is the captcha's text all the same.
  secrets.remember(captcha);
  if (typeof captcha !== "string" || captcha.trim() === "") {
    const got = typeof captcha === "string" ? "an empty text" : captcha === null ? "null" : typeof captcha;
    throw new AuthenticationError(`not signed in: solveCaptcha answered ${got}, not the captcha's text; the sign-in was not sent`, { attempts: 0 });
  }
  return captcha;
}
