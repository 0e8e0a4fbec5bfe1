// Steps that take part in every attempt of a call: a security scheme presents credentials and
// reacts when they are refused; the per-key chain presents its current link and takes the next
// one from the answer. The transport runs them around each attempt and knows nothing else of them.
//
// Identity stays apart from presentation (smithy's identity providers vs. signers): where a
// credential comes from is a TokenManager or a fixed pair; how it goes on the request is the scheme.
import { ConfigurationError } from "../errors.js";
import { base64 } from "./base64.js";
import type { TokenManager } from "./tokens.js";

/** What a step reads of an answer: its status and headers (its body is the transport's). */
export interface AnswerHead {
  readonly status: number;
  /** A header's value (name in any case), or null. */
  header(name: string): string | null;
}

/** Where a step puts its headers: an attempt's header record (names are case-insensitive). */
export interface HeaderSink {
  set(name: string, value: string): void;
}

export interface AttemptStep {
  /** Header names the step sets. They are always redacted from logs, whatever they are called. */
  readonly headerNames: readonly string[];
  /** Before an attempt: sets the headers. Returns what was presented, so a refusal can be matched to it. */
  present(headers: HeaderSink): unknown | Promise<unknown>;
  /**
   * When an answer's headers have arrived. Returning `true` asks for the call to be sent once more:
   * the step repaired what the service refused (a renewed token, a recovered chain link). A refused
   * request was not processed, so this is safe even for operations that move money; the transport
   * allows it once per step and call.
   */
  answered?(answer: AnswerHead, presented: unknown): boolean | Promise<boolean>;
  /** Secrets the step holds now or held recently; they are cut out of every text the SDK produces. */
  secrets?(): Iterable<string>;
  /**
   * Before a call that journals its request: the sign-in its credentials still need, or undefined
   * when they are in hand. The journal runs it before the register's lease and the intent, so a slow
   * sign-in holds neither, nor eats the window in which the request must start (START_WITHIN_MS);
   * and only for a key the journal does not answer already (a recorded answer needs no credentials).
   */
  signIn?(): (() => Promise<unknown>) | undefined;
}

/** A security scheme: the step that authorizes a call. */
export type SecurityScheme = AttemptStep;

/**
 * Bearer-like tokens: the identity is a single-flight TokenManager; `present` says how the token
 * goes on the request (default `Authorization: Bearer <token>`), asked once per token. A 401 marks
 * the presented token rejected, so the next attempt renews it (once for any number of concurrent
 * calls).
 */
export function bearerScheme(tokens: TokenManager, present: (token: string) => Record<string, string> = (t) => ({ Authorization: `Bearer ${t}` })): SecurityScheme {
  // The headers of the last token presented: the same token is presented on call after call.
  let last: { token: string; headers: [string, string][] } | undefined;
  // A caller's `authorize` that gives no headers is named as such, not a TypeError at the first call.
  const made = (token: string): [string, string][] => {
    const headers: unknown = present(token);
    const entries = headers !== null && typeof headers === "object" ? Object.entries(headers) : [];
    if (entries.length === 0 || entries.some(([, v]) => typeof v !== "string")) {
      throw new ConfigurationError("authorize must return the headers that present the token, such as { Authorization: 'Bearer ' + token }, with text values");
    }
    return entries as [string, string][];
  };
  return {
    // A probe call tells which headers the presentation sets, so they are redacted by name.
    headerNames: made("probe").map(([name]) => name),
    present(headers) {
      const show = (token: string) => {
        if (last?.token !== token) last = { token, headers: made(token) };
        for (const [k, v] of last.headers) headers.set(k, v);
        return token;
      };
      // A token in hand is presented at once; only a renewal makes the attempt wait.
      const token = tokens.current();
      return token === undefined ? tokens.accessToken().then(show) : show(token);
    },
    answered(answer, presented) {
      if (answer.status !== 401 || typeof presented !== "string") return false;
      tokens.reject(presented);
      return true;
    },
    // What `present` made of the token is as secret as the token: a custom one may encode it (Basic base64(login:token)).
    secrets: () => [...tokens.secrets(), ...(last?.headers ?? []).flatMap(([, v]) => [v, v.slice(v.indexOf(" ") + 1)])],
    signIn: () => (tokens.current() === undefined ? () => tokens.accessToken() : undefined),
  };
}

/** HTTP Basic with a fixed login and password. A 401 cannot be repaired: it becomes an AuthenticationError. */
export function basicScheme(username: string, password: string): SecurityScheme {
  const value = `Basic ${base64(new TextEncoder().encode(`${username}:${password}`))}`;
  return {
    headerNames: ["Authorization"],
    present(headers) {
      headers.set("Authorization", value);
      return undefined;
    },
    secrets: () => [password, value, value.slice("Basic ".length)],
  };
}
