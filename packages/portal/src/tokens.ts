// The default reading of the token answer, apart from create.ts: the client's runtime uses it too,
// and a helper both use is built twice (tools/runtime-copies.ts), so a page that never calls it
// does not load it before its first call.
import type { TokenSet } from "@paysys/core/calls";
import { tokensFromAnswer } from "@paysys/core/helpers";

/** The default reading of the token answer, whose fields the document does not show. */
export function defaultExtractTokens(result: Record<string, unknown>, now: number = Date.now()): TokenSet {
  return tokensFromAnswer("account.token", "extractTokens", result, now);
}
