// The shape of one row of a generated operation table. The code generator writes one table per
// spec from the spec's own facts (method, path, parameters, security, x-envelope, x-unwrap,
// x-codec, x-chain-key, x-idempotent, x-sensitive, ...), and the runtime reads only this table:
// nothing about an operation is decided twice, and no client holds envelope code of its own.

import type { CallOptions } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { pathShown } from "./card-number.js";
import { validatorIssues as issuesOf, type Validator } from "./validator.js";

export type { Validator } from "./validator.js";

/**
 * A validator's issues as a call's error shows them: a name that is a card number (an object keyed
 * by one) as `[card number]` (card-number.ts). Not in validator.ts, which a page's first load reaches.
 */
export function validatorIssues(v: Validator): { path: string; message: string }[] {
  return issuesOf(v).map((i) => ({ ...i, path: pathShown(i.path) }));
}

export type HttpMethod = "get" | "put" | "post" | "delete" | "patch";

/** How an interface wraps requests and answers (`x-envelope`), as JSON pointers. */
export interface Envelope {
  /** Where the caller's parameters go in a JSON request body; `""` is the body itself. */
  params: string;
  /** The service's own code in an answer. */
  code?: string;
  /** The codes that mean success; any other is a service failure. */
  success?: readonly (number | string)[];
  /** The service's own message. */
  message?: string;
  /** A field whose presence alone means failure. */
  error?: string;
}

/** Where the payload sits in an answer (`x-unwrap`). */
export interface Unwrap {
  /** Pointers tried in order; the first that reaches a value wins. `*` steps into array items. */
  at: readonly string[];
  /** The payload is a list: an array as it is, one object as a list of one. */
  list?: boolean;
  /** The payload is the first item of what the pointer reaches. */
  one?: boolean;
}

/** What the spec says of a security scheme (`securitySchemes` with our extensions). */
export interface SchemeFacts {
  type: string;
  scheme?: string;
  /** The operation that obtains the credential; its refusal is an AuthenticationError. */
  obtainedBy?: string;
  renewedBy?: string;
  revokedBy?: string;
  /** ISO 8601 duration (P1D, PT1H). */
  tokenLifetime?: string;
  /** A new token invalidates the previous one at once. */
  singleToken?: boolean;
}

/** Milliseconds of an ISO 8601 duration of days, hours, minutes and seconds (`P1D`, `PT1H`, `PT15M`). */
export function durationMs(iso: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(iso);
  if (!m || iso === "P" || iso.endsWith("T")) throw new RangeError(`not a duration of days, hours, minutes or seconds: ${iso}`);
  const [d = 0, h = 0, min = 0, s = 0] = m.slice(1).map((x) => Number(x ?? 0));
  return (((d * 24 + h) * 60 + min) * 60 + s) * 1000;
}

/** The per-key chain of an interface (`x-chain`): a header each call presents and each answer renews. */
export interface ChainDefinition {
  header: string;
  /** The operation that reads the current link of a key, and its parameter that takes the key. */
  current: { operation: string; param: string };
  /** The pattern every link matches (the header's schema): an answer's link that does not is not kept. */
  pattern?: string;
}

/**
 * How the SDK learns whether a call whose answer was lost took effect (`x-outcome`), for the
 * operations it journals (those that move money or change a register):
 * - `chain`: the per-key chain moved past the link the call presented (under the key's lease);
 * - `query`: a read-only operation, with parameters taken from the call's by JSON pointer, answers
 *   it: an answer at all (`found`; not found means not applied), a value at a pointer (`equals`;
 *   only the values of `notAppliedWhen` there mean not applied, any other says neither), or a value
 *   that differs from what the same query answered before sending (`changed`);
 * - `none`: nothing the interface offers can tell (the spec says why in an x-gap).
 * `key`, if given, points at the parameter that names the request (an order id): the idempotency
 * key when the caller gives none.
 */
export type OutcomeSpec = (
  | { by: "chain" }
  | {
      by: "query";
      operation: string;
      params: Readonly<Record<string, string>>;
      applied: { found: true } | { at: string; equals: unknown; notAppliedWhen: readonly unknown[] } | { changed: string };
    }
  | { by: "none" }
) & { key?: string };

export interface OperationSpec {
  /** `group.method`, the SDK method name. */
  id: string;
  method: HttpMethod;
  path: string;
  /** Security schemes that may authorize the call (the first one the client has); empty: none. */
  security: readonly string[];
  /** The operation obtains the credentials of a scheme: its refusal is an AuthenticationError. */
  signsIn?: boolean;
  /** May be retried automatically. False for everything that moves money. */
  idempotent: boolean;
  movesMoney: boolean;
  /** Input parameters that go into the path, the query string or headers; all others go into the JSON body. */
  in?: { path?: readonly string[]; query?: readonly string[]; header?: readonly string[] };
  /** Header values sent when the caller gives none (e.g. a JSON `Accept`). */
  headerDefaults?: Readonly<Record<string, string>>;
  /** The operation has a JSON request body. */
  body: boolean;
  envelope: Envelope;
  unwrap: Unwrap;
  /** The answer is text (a PEM key), not JSON. */
  textAnswer?: boolean;
  /** Parameter values that make the answer a file instead of JSON, e.g. `{ format: "xlsx" }`. */
  binaryWhen?: Readonly<Record<string, string>>;
  /**
   * Where the answer names what it is about (a pointer into the result → the parameter it echoes):
   * an answer that names another order or register than the one asked is an error, never its data.
   */
  answerNames?: Readonly<Record<string, string>>;
  /** How every such file begins, as hex bytes (`504b0304`: an xlsx is a zip); other bytes are no file of its kind. */
  fileSignature?: string;
  /** The record the file's last `within` bytes hold whole, `record` bytes from its hex `signature` on (`x-file-end`: a zip's end record); a file that ends without it was cut off. */
  fileEnd?: { signature: string; record: number; within: number };
  /** Codecs by JSON pointer into the input (`/dateFrom`, `/Positions/*\/Price`). */
  codecs?: Readonly<Record<string, string>>;
  /** Codecs of top-level parameters known only by a name pattern (a regular expression source). */
  patternCodecs?: Readonly<Record<string, string>>;
  /** Two parameters that bound a period: `from` must not be after `to`. */
  period?: { from: string; to: string };
  /** The document says the parameter list is open: unknown parameters may go through `extraParams`. */
  openParams?: boolean;
  /** Where the list is open, every parameter the spec names: one of them given through `extraParams` is refused (it would pass its checks). */
  names?: readonly string[];
  /** With `names`: the patterns of the names the spec declares by pattern (`^isAddCommissionForCance`). */
  namePatterns?: readonly string[];
  /**
   * Where the input holds objects that take any property (JSON pointers, `*` for array items), each
   * with the names it declares: the card guard searches the other names, which no schema checks.
   */
  openAt?: Readonly<Record<string, readonly string[]>>;
  /**
   * The input parameter that names the operation's chain key; whether the call presents the current
   * link, and whether the spec says its answer returns the next one (the chain takes one wherever it comes).
   */
  chain?: { key: string; presents: boolean; returns?: boolean };
  /** The operation is journaled (written before it is sent, settled after), and this is how a lost answer's outcome is learnt. */
  outcome?: OutcomeSpec;
  /** Cross-field rules the client checks before sending (`x-checks`), by name; the client brings them. */
  checks?: readonly string[];
  /** The path is the SDK's default, not a documented one: clients let callers change it. */
  pathIsDefault?: boolean;
  /** The answer carries secrets (tokens): no excerpt of it ever appears in an error. */
  secretAnswer?: boolean;
  /**
   * The body's fields the spec does not name are secrets (`x-sensitive-extras`: another credential
   * variant's body, which no source shows): a log shows each of their values redacted.
   */
  secretExtras?: boolean;
  /** The body's parameter names in lower case, where the service reads body keys regardless of case (`x-key-case`): an open parameter in another case is one of them. */
  namesIgnoreCase?: readonly string[];
  /** A read that decides a lost call's outcome (a status query, the chain's current link): its answers are checked as a money operation's. */
  decidesOutcome?: boolean;
  /** Checks the caller's input (after codecs) against the spec. */
  validateInput?: Validator;
  /** Checks the whole answer against the spec (when the client validates answers). */
  validateResponse?: Validator;
  /**
   * Loads the two validators above on the operation's first call (generated rows: one module per
   * operation, so a client loads the checks of what it calls). `loadValidators` runs it once.
   */
  validators?: () => Promise<{ input?: Validator; response?: Validator }>;
}

const loading = new WeakMap<OperationSpec, Promise<void>>();

/**
 * Brings an operation's validators in, once for every client of the process: the row keeps them and
 * forgets its loader, so later calls do not wait. A load that fails (a browser that could not fetch
 * the chunk) is tried again on the next call.
 */
export function loadValidators(op: OperationSpec): Promise<void> {
  let load = loading.get(op);
  if (!load) {
    const loader = op.validators!;
    // Called within a promise: a loader that throws is a rejection like a chunk that fails to load.
    load = Promise.resolve()
      .then(loader)
      .then(
        (m) => {
          op.validateInput = m.input;
          op.validateResponse = m.response;
          op.validators = undefined;
        },
        (e: unknown) => {
          loading.delete(op);
          throw new ConfigurationError(`${op.id}: the operation's validators could not be loaded (${e instanceof Error ? e.message : String(e)})`, { operation: op.id });
        },
      );
    loading.set(op, load);
  }
  return load;
}

/**
 * An operation row that also carries, for the type checker only, its params, result, call options
 * and the parameters that turn its answer into a file.
 */
export type Operation<Params, Result, Options extends CallOptions = CallOptions, File = never> = OperationSpec & {
  readonly __types?: { params: Params; result: Result; options: Options; file: File };
};

/** Gives a table row its types (generated code calls it; it returns the row unchanged). */
export function operation<Params, Result, Options extends CallOptions = CallOptions, File = never>(spec: OperationSpec): Operation<Params, Result, Options, File> {
  return spec;
}

/**
 * What an error adds when a request may have taken effect and was not sent again: an operation that
 * is not idempotent, whose answer was lost, cut off, or arrived and could not be read. A journaled
 * one's outcome is learnt next, and the error that reaches the caller says what it was.
 */
export function outcomeNote(op: OperationSpec): string {
  if (op.idempotent) return "";
  if (op.outcome?.by === "none") return " (not retried: sent once, and nothing the interface offers can tell its outcome)";
  if (op.outcome) return " (not retried: sent once, and its outcome is learnt from the service)";
  return " (not retried: the operation is not idempotent, so its outcome is unknown; check its status before sending it again)";
}

/**
 * The escape hatch's rows, through the client's first scheme, never retried. A request of another
 * method than GET or HEAD may move money for all the SDK knows of its path, so it is also never sent
 * again elsewhere: a cash-out request sent through `raw` followed a 307 and reached the service twice.
 */
export const rawOperation = (security: string[], reads: boolean): OperationSpec => ({
  id: "raw",
  method: reads ? "get" : "post",
  path: "",
  security,
  idempotent: false,
  movesMoney: !reads,
  body: true,
  envelope: { params: "" },
  unwrap: { at: [""] },
});
