// A file answer (an xlsx report) before the caller gets it: refused when it cannot be the file asked
// for, so a login page or a proxy's error is never saved as the report.
import { type ErrorContext, UnexpectedResponseError } from "../errors.js";
import type { HttpAnswer } from "./http.js";
import type { OperationSpec } from "./operation.js";
import { joined } from "./read.js";

/**
 * The file's response. Text is refused unread (a proxy's or a login page); with a signature in the
 * spec (an xlsx is a zip: `PK` 03 04), its first bytes are read and, when they begin otherwise (an
 * empty answer, a page sent as octet-stream), it is refused too. Bytes read are given back ahead of
 * the rest, so the caller streams the whole file as it came.
 */
export async function fileResponse(answer: HttpAnswer, op: OperationSpec, ctx: ErrorContext): Promise<Response> {
  const type = answer.header("content-type") ?? "";
  if (/^\s*text\//i.test(type)) {
    answer.drop();
    throw refused(op, ctx, `the answer is text (${type}), not the file asked for`);
  }
  const response = answer.response();
  const signature = op.fileSignature;
  if (!signature) return response;
  const reader = response.body?.getReader();
  const head: Uint8Array[] = [];
  let size = 0;
  while (reader && size < signature.length / 2) {
    const { done, value } = await reader.read();
    if (done) break;
    head.push(value);
    size += value.byteLength;
  }
  const first = joined(head);
  if (!reader || !begins(first, signature)) {
    reader?.cancel().catch(() => {});
    throw refused(op, ctx, size === 0 ? "the answer is empty, not the file asked for" : "the answer does not begin as the file asked for does");
  }
  const body = new ReadableStream<Uint8Array>({
    start: (c) => c.enqueue(first),
    pull: async (c) => {
      const { done, value } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function begins(bytes: Uint8Array, hex: string): boolean {
  if (bytes.byteLength < hex.length / 2) return false;
  for (let i = 0; i < hex.length / 2; i++) if (bytes[i] !== Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)) return false;
  return true;
}

// The bytes are not shown: a file's are no text to excerpt.
const refused = (op: OperationSpec, ctx: ErrorContext, what: string) => new UnexpectedResponseError(`${op.id}: ${what}`, { ...ctx, bodyExcerpt: "[not read]" });
