// What the journal (journal.ts) is made with, and the one call it is handed at a time.
import type { Holder, JournalStore } from "../stores.js";
import type { HeaderChain } from "./chain.js";
import type { OperationSpec } from "./operation.js";
import type { Query } from "./outcome.js";
import type { AttemptStep } from "./steps.js";
import type { SendWatch } from "./transport.js";

export interface JournalOptions {
  store: JournalStore;
  /** Keys of this client, apart from every other client of the store (`fiscal https://… 77771112233`). */
  namespace: string;
  /**
   * What the keys of every client that shares this client's registers begin with (`fiscal https://… `:
   * every login of the service). A register's pending intents are resolved before anything new is sent
   * on it, whichever login sent them. Default: this client's own keys.
   */
  registerPrefix?: string;
  holder: Holder;
  /** The interface's operations (the status queries are found here). */
  operations: Readonly<Record<string, OperationSpec>>;
  /** Runs a read-only operation, answering its unwrapped payload. */
  query: Query;
  chain?: HeaderChain;
  sensitiveKeys: ReadonlySet<string>;
  /** The client's per-attempt timeout (part of an intent's window). */
  timeoutMs: number;
  /** How long a request may land after its call stopped waiting (landing.ts); default DEFAULT_LANDING_MS. */
  landingMs?: number;
}

/** One journaled call, as the invoker hands it over. */
export interface JournaledCall {
  op: OperationSpec;
  /** The caller's key, if any. */
  idempotencyKey: string | undefined;
  /** The parameters after codecs and checks: the chain key, the status query's parameters and the request's hash are read from them. */
  encoded: Record<string, unknown>;
  /** Sends the request once with these steps, and answers its unwrapped payload. */
  send: (steps: AttemptStep[], watch: SendWatch) => Promise<unknown>;
  /** The sign-in the call's credentials still need (its scheme's `signIn`), undefined when they are in hand. */
  signIn: (() => Promise<void>) | undefined;
  timeoutMs: number | undefined;
}
