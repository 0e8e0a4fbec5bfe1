// Reading an answer's body: chunk by chunk (cheaper per call than a whole-buffer read over the
// network), with a size limit, then decoded strictly (invalid UTF-8 is an error, never replacement
// characters in the data) and parsed as JSON where the operation answers JSON.
import { type ErrorContext, ResponseTooLargeError, UnexpectedResponseError } from "../errors.js";
import type { HttpAnswer } from "./http.js";
import { type OperationSpec, outcomeNote } from "./operation.js";

/** Largest error body read (for its message and excerpt); the rest is dropped. */
export const ERROR_BODY_LIMIT = 64 * 1024;
const EXCERPT = 200;
/** Decoding without `stream` keeps no state between calls, so one strict decoder serves every answer. */
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const replacingUtf8 = new TextDecoder("utf-8");

/** A body as read: `cut` when it went past the limit and the rest was dropped (the exchange then ended early). */
export interface ReadBody {
  bytes: Uint8Array;
  cut: boolean;
}

/** Reads a body up to `limit` bytes. Past the limit, the rest is dropped and, for answers that must be whole, it is a ResponseTooLargeError. */
export async function readBody(answer: HttpAnswer, limit: number, mustBeWhole: boolean, op: OperationSpec, ctx: ErrorContext): Promise<ReadBody> {
  const tooLarge = () =>
    new ResponseTooLargeError(`${op.id}: the answer is larger than maxResponseBytes (${limit} bytes); it was not read${outcomeNote(op)}`, { ...ctx, bodyExcerpt: "[not read]" });
  const declared = Number(answer.header("content-length") ?? Number.NaN);
  if (mustBeWhole && declared > limit) {
    answer.drop();
    throw tooLarge();
  }
  // A body of a known size within the limit, not compressed (so its size is the declared one), in
  // one read where the answer offers one; still checked, in case a `fetch` declared less than it sent.
  // An answer that cannot give it whole (a hook took its web body first) gives it as chunks.
  const wholeRead = answer.whole && declared <= limit && !answer.header("content-encoding") ? answer.whole() : null;
  if (wholeRead) {
    const whole = await wholeRead;
    if (whole.byteLength <= limit) return { bytes: whole, cut: false };
    if (mustBeWhole) throw tooLarge();
    return { bytes: whole.subarray(0, limit), cut: true };
  }
  const source = answer.chunks();
  if (!source) return { bytes: new Uint8Array(), cut: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  // Leaving the loop early (a `break`, a throw) ends the body's iteration, which ends the body and frees its connection.
  for await (const value of source) {
    size += value.byteLength;
    if (size > limit) {
      if (mustBeWhole) throw tooLarge();
      chunks.push(value.subarray(0, value.byteLength - (size - limit)));
      cut = true;
      break;
    }
    chunks.push(value);
  }
  return { bytes: chunks.length === 1 ? chunks[0]! : joined(chunks), cut };
}

/** Chunks as one array of bytes. */
export function joined(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * A whole body as text, strictly: invalid UTF-8 is an UnexpectedResponseError. The replacing decoder
 * reads first, as it is the fast one on Deno and Bun (a 7 kB answer: 1.1–1.4 µs against 3.4–4.4
 * strictly) and no slower on Node; a replacement character in its text is invalid UTF-8 or a real
 * U+FFFD, and the strict decoder tells which.
 */
export function strictText(bytes: Uint8Array, op: OperationSpec, ctx: ErrorContext, excerpt: () => string): string {
  const text = replacingUtf8.decode(bytes);
  if (!text.includes("\uFFFD")) return text;
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new UnexpectedResponseError(`${op.id}: the answer is not valid UTF-8${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() });
  }
}

/** A whole body as JSON (empty is undefined); text that is not JSON is an UnexpectedResponseError. */
export function parseJson(text: string, contentType: string, op: OperationSpec, ctx: ErrorContext, excerpt: () => string): unknown {
  try {
    return text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    throw new UnexpectedResponseError(`${op.id}: the answer is not JSON (content-type ${contentType || "none"})${outcomeNote(op)}`, { ...ctx, bodyExcerpt: excerpt() });
  }
}

/** JSON, without throwing: for error bodies, whose fields are read where they are JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A short excerpt of a body for an error: text with every known secret cut out (in a window wide
 * enough that no secret can straddle its end), or a description of binary content. An answer that
 * carries secrets (a sign-in's) is never excerpted.
 */
export function excerptOf(bytes: Uint8Array, contentType: string, secretAnswer: boolean, secrets: string[], scrub: (text: string, secrets: string[]) => string): string {
  if (secretAnswer) return "[REDACTED: this answer carries secrets]";
  const text = new TextDecoder().decode(bytes);
  if (looksBinary(text)) return `[binary content, ${bytes.byteLength} bytes, content-type ${contentType || "none"}]`;
  // Scrubbing shows the text with its escapes undone, which may shrink it many times over (escapes of
  // escapes): a secret cut at the window's end would show its first characters. So where the window
  // cut the text, its undone end, as long as a secret and an escape it began, is dropped too.
  const longest = Math.max(0, ...secrets.map((s) => s.length));
  const window = 10 * (EXCERPT + 10 * longest);
  const shown = scrub(text.slice(0, window), secrets);
  return (text.length > window ? shown.slice(0, Math.max(0, shown.length - longest - 64)) : shown).slice(0, EXCERPT);
}

/** Replacement characters or control characters (other than tabs and line breaks) near the start mean binary content: describe it, never print it. */
function looksBinary(text: string): boolean {
  for (let i = 0; i < Math.min(text.length, 512); i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || c < 0x09 || (c > 0x0d && c < 0x20)) return true;
  }
  return false;
}
