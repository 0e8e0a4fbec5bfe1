// One token manager per credential. At most one authorization (obtain or refresh) is in flight
// at any time: callers that need a token while one is being fetched wait for the same promise.
// There is no background timer; a token is renewed only when a caller needs one and it is
// expired, or when a request came back 401 with it. That matters for cash-out, where a new token
// kills the old one at once: a background refresh would break requests in flight.
import { AuthenticationError } from "../errors.js";
import type { TokenStore } from "../stores.js";
import { proofFor, proves } from "./credential-proof.js";
import { withFields } from "./objects.js";
import { durationMs } from "./operation.js";
import type { SecretSet } from "./redact.js";
import { hashedText } from "./request-hash.js";
import type { TokenSet } from "./token-answer.js";

export { type TokenSet, tokensFromAnswer } from "./token-answer.js";

export interface TokenManagerOptions {
  /** Full authorization (login). Absent when it needs a person, e.g. the portal without a captcha solver. */
  obtain?: () => Promise<TokenSet>;
  /** Renewal with the refresh token. If it fails, `obtain` is tried (when there is one). */
  refresh?: (current: TokenSet) => Promise<TokenSet>;
  /** Renew this long before `expiresAt`, so a token does not expire on the wire. Default 10 s. */
  earlyRenewalMs?: number;
  /**
   * How long a token lives when its answer does not say (the scheme's `x-token-lifetime`, ISO 8601):
   * a token obtained without `expiresAt` gets one this long after it arrived.
   */
  lifetime?: string;
  now?: () => number;
  /** Where every token the manager holds is remembered, so no error or log line can show one. */
  secrets?: SecretSet;
  /**
   * One token per credential across clients and processes (a service where a new token kills the
   * old one). Renewal then happens inside `store.update`: a token another client stored meanwhile
   * is taken instead of authorizing again, so no two holders ever authorize in turn against each other.
   *
   * `credential` is the secret that authorizes (the password, the other variant's fields): a token
   * is taken from the store only by a holder of the same secret. The key names the account, never
   * its secret, so without this a client built with the right login and a wrong password took the
   * account's token and moved its money. Only a slow salted hash of it is stored, beside the token
   * (credential-proof.ts).
   */
  shared?: { store: TokenStore; key: string; credential: unknown };
}

export class TokenManager {
  #tokens: TokenSet | undefined;
  #stale = false;
  #inflight: Promise<TokenSet> | undefined;
  readonly #options: TokenManagerOptions;

  constructor(options: TokenManagerOptions) {
    this.#options = options;
  }

  /** The current tokens, if any (for logout). */
  get tokens(): TokenSet | undefined {
    return this.#tokens;
  }

  /** Stores tokens obtained outside the manager (an explicit sign-in). */
  set(tokens: TokenSet): void {
    this.#remember(tokens);
    this.#tokens = this.#withExpiry(tokens);
    this.#stale = false;
  }

  #remember(tokens: TokenSet): void {
    this.#options.secrets?.remember(tokens.accessToken);
    this.#options.secrets?.remember(tokens.refreshToken);
  }

  clear(): void {
    this.#tokens = undefined;
    this.#stale = false;
  }

  /** The tokens held now (for scrubbing them out of texts). */
  *secrets(): Iterable<string> {
    if (this.#tokens?.accessToken) yield this.#tokens.accessToken;
    if (this.#tokens?.refreshToken) yield this.#tokens.refreshToken;
  }

  /** The access token when it is usable now (fresh and no renewal under way); undefined when it must be renewed first. */
  current(): string | undefined {
    const t = this.#tokens;
    return !this.#inflight && t && this.#fresh(t) ? t.accessToken : undefined;
  }

  /** Waits for a renewal under way, if any, whatever its end (a client closing ends the session it opens too). */
  async settled(): Promise<void> {
    await this.#inflight?.catch(() => undefined);
  }

  /** A usable access token, renewing it first if needed. */
  async accessToken(): Promise<string> {
    return (await this.#usable()).accessToken;
  }

  /**
   * Marks `token` as rejected by the server. Only the current token is affected, so 200 requests
   * that all got 401 with the same token cause one renewal, and a request that got 401 with an
   * older token simply retries with the newer one.
   */
  reject(token: string): void {
    if (this.#tokens?.accessToken === token) this.#stale = true;
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  #fresh(t: TokenSet, mayBeStale = true): boolean {
    if (mayBeStale && this.#stale) return false;
    if (t.expiresAt === undefined) return true;
    const now = this.#now();
    return now < t.expiresAt - this.#earlyMs();
  }

  #usable(): Promise<TokenSet> {
    if (this.#inflight) return this.#inflight;
    const current = this.#tokens;
    if (current && this.#fresh(current)) return Promise.resolve(current);
    this.#inflight = this.#renew(current).then(
      (t) => {
        this.#remember(t);
        this.#tokens = t;
        this.#stale = false;
        this.#inflight = undefined;
        return t;
      },
      (e) => {
        this.#inflight = undefined;
        throw e;
      },
    );
    return this.#inflight;
  }

  async #renew(current: TokenSet | undefined): Promise<TokenSet> {
    const { shared } = this.#options;
    if (!shared) return this.#renewHere(current);
    // The account's name is part of the secret, so one password proves nothing under another account.
    const secret = hashedText(shared.key, { credential: shared.credential }, new Set());
    const mine = await proofFor(secret);
    // Read first, so a proof another holder wrote is derived outside the store's transaction (and remembered for inside it).
    await storedToken(await shared.store.get(shared.key), secret);
    let renewed: TokenSet | undefined;
    const stored = await shared.store.update(shared.key, async (value) => {
      const other = await storedToken(value, secret);
      // Another holder of this secret stored a token that is not the one we hold (or were refused with): take it.
      if (other && other.token.accessToken !== current?.accessToken && this.#fresh(other.token, false)) return undefined;
      renewed = await this.#renewHere(current);
      // A proof of this secret already there is kept: the other holders have derived it once already.
      return JSON.stringify({ ...renewed, credential: other?.proof ?? mine });
    });
    const token = renewed ?? (await storedToken(stored, secret))?.token;
    if (!token) throw new TypeError(`the token store holds no readable token under ${shared.key}`);
    return token;
  }

  async #renewHere(current: TokenSet | undefined): Promise<TokenSet> {
    return this.#withExpiry(await this.#fetchTokens(current));
  }

  /** How long before its expiry a token is renewed. */
  #earlyMs(): number {
    return this.#options.earlyRenewalMs ?? 10_000;
  }

  /**
   * The tokens with an expiry to trust: one that leaves at least half the early renewal of use.
   * Another (NaN; Infinity, which a shared store would keep as null, read by every other holder as
   * expired; a time past, or a few seconds away) is a lying answer: trusted, every holder would sign
   * in on every call, each killing the others' tokens. It counts as unknown, and an unknown one is
   * the scheme's lifetime from now (a 401 still renews the token).
   */
  #withExpiry(tokens: TokenSet): TokenSet {
    const now = this.#now();
    const { expiresAt } = tokens;
    if (expiresAt !== undefined && Number.isFinite(expiresAt) && expiresAt > now + 1.5 * this.#earlyMs()) return tokens;
    const { lifetime } = this.#options;
    const fallback = lifetime === undefined ? undefined : now + durationMs(lifetime);
    return expiresAt === fallback ? tokens : withFields(tokens, { expiresAt: fallback });
  }

  async #fetchTokens(current: TokenSet | undefined): Promise<TokenSet> {
    const { obtain, refresh } = this.#options;
    if (current?.refreshToken && refresh) {
      try {
        return await refresh(current);
      } catch (e) {
        if (!obtain) throw e;
      }
    }
    if (!obtain) {
      throw new AuthenticationError(
        current ? "the session expired and cannot be renewed: sign in again" : "not signed in: sign in first, or configure credentials the client can sign in with",
        { attempts: 0 },
      );
    }
    return obtain();
  }
}

/**
 * A token as a shared store keeps it (JSON, with the proof of the secret that obtained it), and that
 * proof to write again (none for an earlier version's SHA-256: it is replaced); anything else, and a
 * token another secret obtained (or an earlier version stored without a proof), is no token.
 */
async function storedToken(value: string | null | undefined, secret: string): Promise<{ token: TokenSet; proof: string | undefined } | undefined> {
  if (typeof value !== "string") return undefined;
  let parsed: TokenSet & { credential?: unknown };
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  const { credential, ...t } = parsed ?? {};
  const proof = typeof t.accessToken === "string" ? await proves(credential, secret) : undefined;
  if (!proof) return undefined;
  // An expiry that is no number (another writer's null for Infinity) is unknown, not past.
  const token = t.expiresAt === undefined || Number.isFinite(t.expiresAt) ? (t as TokenSet) : withFields(t as TokenSet, { expiresAt: undefined });
  return { token, proof: proof.legacy ? undefined : (credential as string) };
}
