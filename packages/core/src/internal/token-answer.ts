// A token answer read into a TokenSet, apart from tokens.ts (the manager) so a client's entry can
// export its default reader without loading the runtime.
import { UnexpectedResponseError } from "../errors.js";

/** Tokens as the SDK keeps them. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms after which the access token is treated as expired; unknown → only a 401 renews it. */
  expiresAt?: number;
}

/**
 * Reads tokens from an answer whose fields no source shows: `accessToken` or `token`, and
 * `refreshToken` and `expiresIn` (seconds) when present. The error names the fields, never a value,
 * and the option that reads another shape.
 */
export function tokensFromAnswer(operation: string, option: string, answer: Record<string, unknown>, now: number = Date.now()): TokenSet {
  // An answer that is not an object has no fields: the same refusal, never a TypeError.
  const result: Record<string, unknown> = answer !== null && typeof answer === "object" ? answer : {};
  const access = result.accessToken ?? result.token;
  if (typeof access !== "string" || access === "") {
    throw new UnexpectedResponseError(
      `${operation}: the token answer has no accessToken or token field (fields: ${Object.keys(result).join(", ") || "none"}); pass the ${option} option`,
      { operation, bodyExcerpt: "[REDACTED: this answer carries secrets]" },
    );
  }
  const refresh = result.refreshToken;
  const expiresIn = result.expiresIn;
  return {
    accessToken: access,
    refreshToken: typeof refresh === "string" ? refresh : undefined,
    expiresAt: typeof expiresIn === "number" && Number.isFinite(expiresIn) && Number.isFinite(now) ? now + expiresIn * 1000 : undefined,
  };
}
