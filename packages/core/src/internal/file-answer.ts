// A file answer (an xlsx report) before the caller gets it: refused when it cannot be the file asked
// for, so a login page or a proxy's error is never saved as the report; and cut off when the
// caller's signal fires while it downloads.
import { ConnectionError, type ErrorContext, UnexpectedResponseError } from "../errors.js";
import type { HttpAnswer } from "./http.js";
import type { OperationSpec } from "./operation.js";
import { joined } from "./read.js";

/**
 * The file's response. Text is refused unread (a proxy's or a login page); with a signature in the
 * spec (an xlsx is a zip: `PK` 03 04), its first bytes are read and, when they begin otherwise (an
 * empty answer, a page sent as octet-stream), it is refused too. Bytes read are given back ahead of
 * the rest, so the caller streams the whole file as it came; the caller's `signal` still ends it.
 */
export async function fileResponse(answer: HttpAnswer, op: OperationSpec, ctx: ErrorContext, signal: AbortSignal | undefined): Promise<Response> {
  const type = answer.header("content-type") ?? "";
  if (/^\s*text\//i.test(type)) {
    answer.drop();
    throw refused(op, ctx, `the answer is text (${type}), not the file asked for`);
  }
  const response = answer.response();
  const signature = op.fileSignature ?? "";
  // Read through always, so a download cut off is a typed error whatever the spec says of the file.
  const reader = response.body?.getReader();
  if (!reader) {
    if (signature) throw refused(op, ctx, "the answer is empty, not the file asked for");
    return response;
  }
  const head: Uint8Array[] = [];
  for (let size = 0; size < signature.length / 2; ) {
    const { done, value } = await reader.read();
    if (done) break;
    head.push(value);
    size += value.byteLength;
  }
  const first = joined(head);
  if (!begins(first, signature)) {
    reader.cancel().catch(() => {});
    throw refused(op, ctx, first.byteLength === 0 ? "the answer is empty, not the file asked for" : "the answer does not begin as the file asked for does");
  }
  return new Response(rest(reader, first, signal, op, ctx), { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The body again: the bytes read first, then the rest as the caller reads it; the caller's signal cancels the download. */
function rest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  first: Uint8Array,
  signal: AbortSignal | undefined,
  op: OperationSpec,
  ctx: ErrorContext,
): ReadableStream<Uint8Array> {
  let abort: (() => void) | undefined;
  const stop = () => signal?.removeEventListener("abort", abort!);
  const end = op.fileEnd && new Tail(op.fileEnd);
  end?.push(first);
  return new ReadableStream<Uint8Array>({
    start(c) {
      if (first.byteLength > 0) c.enqueue(first);
      abort = () => {
        reader.cancel(signal!.reason).catch(() => {});
        c.error(signal!.reason);
      };
      if (signal?.aborted) abort();
      else signal?.addEventListener("abort", abort, { once: true });
    },
    async pull(c) {
      const read = await reader.read().catch((e: unknown) => {
        stop();
        // Cut off mid-file (the connection reset, the server gone): a typed error, never a bare TypeError.
        throw signal?.aborted ? signal.reason : new ConnectionError(`${op.id}: the file was cut off`, { ...ctx, cause: e });
      });
      if (!read.done) {
        end?.push(read.value);
        return c.enqueue(read.value);
      }
      stop();
      // A file whose length nothing declared ends where the connection did: only its own end says it is whole.
      if (end && !end.found()) return c.error(refused(op, ctx, "the file ends without its end record: cut off, or not the file asked for"));
      c.close();
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
}

/** The last `within` bytes of a stream (kept as its chunks), and whether they hold the end record whole. */
class Tail {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;
  readonly #signature: Uint8Array;
  readonly #record: number;
  readonly within: number;
  constructor(end: NonNullable<OperationSpec["fileEnd"]>) {
    this.#signature = Uint8Array.from(end.signature.match(/../g) ?? [], (byte) => Number.parseInt(byte, 16));
    this.#record = end.record;
    this.within = end.within;
  }
  push(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
    while (this.#size - this.#chunks[0]!.byteLength >= this.within) this.#size -= this.#chunks.shift()!.byteLength;
  }
  found(): boolean {
    const all = joined(this.#chunks);
    const tail = all.subarray(Math.max(0, all.byteLength - this.within));
    const wanted = this.#signature;
    // From the end: a zip's end record is nearly always its last 22 bytes.
    for (let at = tail.byteLength - this.#record; at >= 0; at--) if (wanted.every((byte, i) => tail[at + i] === byte)) return true;
    return false;
  }
}

function begins(bytes: Uint8Array, hex: string): boolean {
  if (bytes.byteLength < hex.length / 2) return false;
  for (let i = 0; i < hex.length / 2; i++) if (bytes[i] !== Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16)) return false;
  return true;
}

// The bytes are not shown: a file's are no text to excerpt.
const refused = (op: OperationSpec, ctx: ErrorContext, what: string) => new UnexpectedResponseError(`${op.id}: ${what}`, { ...ctx, bodyExcerpt: "[not read]" });
