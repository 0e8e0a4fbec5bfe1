// Envelopes as data. Each spec says, in `x-envelope`, where a request's parameters go and how an
// answer shows the service's own code and message, and, per operation in `x-unwrap`, where the
// payload sits. This module applies those facts for every interface; no client has envelope code.
import { AuthenticationError, type ErrorContext, ServiceError, UnexpectedResponseError } from "../errors.js";
import { type Envelope, type OperationSpec, outcomeNote, type Unwrap } from "./operation.js";
import { evaluatePointer, parsePointer, placeAt } from "./pointer.js";

/** The parts of an answer the envelope reads, and what an error about it needs. */
export interface Answer {
  body: unknown;
  status: number;
  attempts: number;
  /** A short, secret-free excerpt of the body. */
  excerpt(): string;
  /** Removes every secret the client knows from a text. */
  scrub(text: string): string;
}

const keysCache = new Map<string, string[]>();
function keys(pointer: string): string[] {
  let k = keysCache.get(pointer);
  if (!k) {
    k = parsePointer(pointer);
    keysCache.set(pointer, k);
  }
  return k;
}

const at = (body: unknown, pointer: string | undefined) => (pointer === undefined ? undefined : evaluatePointer(body, keys(pointer)).value);

/** The request body: the caller's body parameters placed where the envelope says. */
export function wrapParams(envelope: Envelope, params: Record<string, unknown>): unknown {
  return placeAt(keys(envelope.params), params);
}

/** The service's own code and message in any answer (an error body too), where the envelope says they are. */
export function serviceFields(envelope: Envelope, body: unknown): { code?: number | string; message?: string } {
  const code = at(body, envelope.code);
  const message = at(body, envelope.message) ?? at(body, envelope.error);
  return {
    code: typeof code === "number" || typeof code === "string" ? code : undefined,
    message: typeof message === "string" ? message : undefined,
  };
}

/**
 * Whether an error answer's body shows it is the service's own: a JSON object sent as JSON, with
 * the service's code or message where the envelope says they are. A gateway's or a proxy's page,
 * text or an empty body could come from anything on the way, before or after it passed the request on.
 */
export function isServiceAnswer(envelope: Envelope, contentType: string, body: unknown, fields: { code?: unknown; message?: unknown }): boolean {
  if (!/[/+]json\b/i.test(contentType) || body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const names = envelope.code !== undefined || envelope.message !== undefined || envelope.error !== undefined;
  return !names || fields.code !== undefined || fields.message !== undefined;
}

/** An answer that arrived with a success status and cannot be used: the request may have taken effect. */
function unexpected(op: OperationSpec, a: Answer, what: string): UnexpectedResponseError {
  return new UnexpectedResponseError(`${op.id}: ${what}${outcomeNote(op)}`, { operation: op.id, status: a.status, attempts: a.attempts, bodyExcerpt: a.excerpt() });
}

const plain = (v: unknown): v is string | number => typeof v === "string" || typeof v === "number";

/**
 * What a result says at `pointer` of a value asked: `true` it names the same, `false` another, and
 * undefined nothing (absent, null, not an id). Compared as text: an id asked as a number may come
 * back as digits, and the reverse.
 */
export function namesAsked(result: unknown, pointer: string, asked: unknown): boolean | undefined {
  const { value } = evaluatePointer(result, keys(pointer));
  return plain(value) && plain(asked) ? String(value) === String(asked) : undefined;
}

/** The name in `answerNames` of the client's own account (the merchant whose credentials ask), not of a parameter. */
const ACCOUNT_NAME = "$account";

/**
 * Refuses a result about something else than was asked (`answerNames`): another order's status,
 * another register, another merchant's transaction (`$account`: the client's `account`).
 */
export function checkAnswerNames(op: OperationSpec, a: Answer, result: unknown, asked: Readonly<Record<string, unknown>>, account: string | undefined): void {
  for (const [pointer, name] of Object.entries(op.answerNames ?? {})) {
    const own = name === ACCOUNT_NAME;
    if (namesAsked(result, pointer, own ? account : asked[name]) !== false) continue;
    const named = String(evaluatePointer(result, keys(pointer)).value).slice(0, 40);
    throw unexpected(op, a, `the answer is about ${pointer.slice(1)} ${JSON.stringify(a.scrub(named))}, not ${own ? "the client's account" : `the ${name} asked`}`);
  }
}

/** JSON reporting success where a file was asked for: its rows are not the file the caller's type promises. */
export const notTheFile = (op: OperationSpec, a: Answer): UnexpectedResponseError => unexpected(op, a, "the answer is JSON reporting success, not the file asked for");

/** The error for an answer that reports a failure: the service refused a sign-in, or the call. */
function failure(op: OperationSpec, a: Answer, code: number | string | undefined, message: string | undefined): Error {
  const scrubbed = message === undefined ? undefined : a.scrub(message);
  const ctx: ErrorContext = { operation: op.id, status: a.status, attempts: a.attempts, serviceCode: code, serviceMessage: scrubbed };
  const said = `${code === undefined ? "" : ` code ${code}`}${scrubbed ? `: ${scrubbed}` : ""}`;
  if (op.signsIn) {
    return new AuthenticationError(
      `${op.id}: the service refused the sign-in${said || " (it gave no code or message)"}; check the login, the password${op.id.includes("token") ? " and the captcha text" : ""}`,
      ctx,
    );
  }
  return new ServiceError(`${op.id}: the service answered${said || " with a failure and no message"}`, ctx);
}

/** Throws when the answer reports a failure (a code outside `success`, or an `error` field); returns otherwise. */
export function checkFailure(op: OperationSpec, a: Answer): void {
  const { envelope } = op;
  if (envelope.code !== undefined) {
    const code = at(a.body, envelope.code);
    if (typeof code !== "number" && typeof code !== "string") throw unexpected(op, a, `the answer is not the interface's envelope: no code at ${envelope.code}`);
    if (!(envelope.success ?? []).includes(code)) throw failure(op, a, code, serviceFields(envelope, a.body).message);
  }
  if (envelope.error !== undefined) {
    const error = at(a.body, envelope.error);
    if (error !== undefined && error !== null && error !== "" && error !== false) throw failure(op, a, undefined, typeof error === "string" ? error : JSON.stringify(error));
  }
}

/** The payload of an answer whose envelope reported success. */
export function unwrap(op: OperationSpec, a: Answer): unknown {
  const spec: Unwrap = op.unwrap;
  let reached: { found: boolean; value: unknown } = { found: false, value: undefined };
  for (const pointer of spec.at) {
    reached = evaluatePointer(a.body, keys(pointer));
    if (reached.found) break;
  }
  if (!reached.found) throw unexpected(op, a, `the answer has nothing at ${spec.at.join(" or ")}`);
  const value = reached.value;
  if (spec.one) {
    const list = Array.isArray(value) ? value : [value];
    if (list.length === 0) throw unexpected(op, a, `the answer has no item at ${spec.at.join(" or ")}`);
    // Two rows where one belongs (another user's profile beside the one asked for): neither is taken.
    if (list.length > 1) throw unexpected(op, a, `the answer has ${list.length} items at ${spec.at.join(" or ")}, where one belongs`);
    return list[0];
  }
  if (spec.list) {
    // A lone object is not taken for a one-row list: which rows the service meant is unknown.
    if (Array.isArray(value)) return value;
    throw unexpected(op, a, `the answer has no list at ${spec.at.join(" or ")}`);
  }
  return value;
}
