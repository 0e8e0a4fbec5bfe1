// The SDK's own answer type, and the HTTP each runtime gets. An adapter sends one request and
// answers a small `HttpAnswer` (status, headers, the body's chunks); the transport reads that and
// nothing else, so no adapter builds or patches a web `Response` it does not need. A hook or a file
// download that wants a `Response` gets a real one, built when it asks.
//
// Which HTTP each runtime gets is platform.ts's choice.
import type { FetchLike } from "../call.js";
import { isNode } from "./runtime.js";

/** One request, as the transport hands it to an adapter. Header names are lower-case. */
export interface HttpRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  signal: AbortSignal;
}

/** An answer: read its body once, as chunks, or drop it; or ask for it as a `Response`. */
export interface HttpAnswer {
  readonly status: number;
  /** A browser hid where a redirect pointed (`redirect: "manual"`): status 0. */
  readonly opaqueRedirect: boolean;
  /**
   * Where redirects the HTTP followed by itself ended (a caller's `fetch` that does not pass
   * `redirect: "manual"` on); `""` when it does not say where; undefined when it followed none.
   */
  readonly followed?: string;
  /** A header's value (name in any case), or null. */
  header(name: string): string | null;
  /** The body's chunks, once; null when there is none or it was taken already. */
  chunks(): AsyncIterable<Uint8Array> | null;
  /**
   * The whole body at once, where the runtime reads it faster so (a fetched Response: Bun's and
   * Deno's `arrayBuffer()` never make a JavaScript stream); null when it was taken already. Only
   * for a body whose size is known to be within the limit (read.ts).
   */
  whole?(): Promise<Uint8Array> | null;
  /** Drops the body unread: an answer the transport stops at must not hold its connection. */
  drop(): void;
  /** The answer as a web `Response` with the body not yet read (hooks, files), made once. */
  response(): Response;
}

/** Sends one request. Redirects are answered as they are: the transport decides about them. */
export type HttpAdapter = (request: HttpRequest) => Promise<HttpAnswer>;

/**
 * An adapter's failure from before any byte of the request left: the request was refused while it was
 * built (a header value HTTP cannot carry), or no connection was made (refused, no such host, a TLS
 * handshake that failed). The transport then knows the request was never sent, money call or not.
 */
export class NeverSentError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = cause instanceof Error ? cause.name : "Error";
  }
}

/** The system calls that fail before a connection exists: nothing can have been written on it. */
const BEFORE_CONNECTION = new Set(["connect", "getaddrinfo"]);

/** Whether an error (or the cause `fetch` wraps it in) is a connection that was never made. */
export const isConnectFailure = (e: unknown): boolean => {
  const syscall = (e as { syscall?: unknown } | null)?.syscall ?? ((e as { cause?: { syscall?: unknown } } | null)?.cause as { syscall?: unknown } | undefined)?.syscall;
  return typeof syscall === "string" && BEFORE_CONNECTION.has(syscall);
};

/** An adapter over a `fetch` (the runtime's, or the caller's). Not an async function: one promise per request, not two. */
export function fetchHttp(fetch: FetchLike): HttpAdapter {
  return ({ url, method, headers, body, signal }) =>
    fetch(url, { method, headers, body, signal, redirect: "manual" }).then(
      (response) => fromResponse(response, url),
      (e: unknown) => {
        throw isConnectFailure(e) ? new NeverSentError(e) : e;
      },
    );
}

/**
 * A fetched Response as an answer; its body is read as chunks (a reader, as not every browser
 * iterates streams), or whole where the runtime reads a body whole natively. Node's `arrayBuffer()`
 * runs the same stream through more layers than its reader (some 8 µs a call more): there every
 * body is read as chunks.
 */
export function fromResponse(response: Response, url?: string): HttpAnswer {
  return wholeNatively ? new WholeFetchAnswer(response, url) : new FetchAnswer(response, url);
}

/**
 * Where a fetch's own redirects ended: it says so (`redirected`), or its address is on another
 * origin than the one asked (a wrapper that followed them by hand). Undefined when none were followed.
 */
function followedTo(response: Response, asked: string | undefined): string | undefined {
  if (response.redirected) return response.url;
  const { url } = response;
  if (!url || asked === undefined || url === asked) return undefined;
  try {
    return new URL(url).origin === new URL(asked).origin ? undefined : url;
  } catch {
    return url;
  }
}
const wholeNatively = !isNode();

/**
 * One class for every fetched answer rather than an object of closures per answer: on Node's fetch
 * each request's own allocations are a measurable part of the SDK's cost over a raw `fetch`.
 */
class FetchAnswer implements HttpAnswer {
  readonly #response: Response;
  #taken = false;
  // Read once: the transport reads the status several times, and a Response's getters are native calls.
  readonly status: number;
  readonly opaqueRedirect: boolean;
  readonly followed: string | undefined;
  constructor(response: Response, url?: string) {
    this.#response = response;
    this.status = response.status;
    this.opaqueRedirect = response.type === "opaqueredirect";
    this.followed = followedTo(response, url);
  }
  header(name: string): string | null {
    return this.#response.headers.get(name);
  }
  chunks(): AsyncIterable<Uint8Array> | null {
    const { body } = this.#response;
    if (!body || !this.take()) return null;
    return readerChunks(body);
  }
  /** Takes the body, once: whether it was there to take. */
  protected take(): boolean {
    if (this.#taken) return false;
    this.#taken = true;
    return true;
  }
  drop(): void {
    this.#taken = true;
    // Cancelling a teed stream settles only when both branches do: never awaited.
    if (!this.#response.bodyUsed) this.#response.body?.cancel().catch(() => {});
  }
  response(): Response {
    return this.#response;
  }
}

/** A fetched answer whose body can also be read whole: Bun's and Deno's `arrayBuffer()` never make a JavaScript stream. */
class WholeFetchAnswer extends FetchAnswer {
  whole(): Promise<Uint8Array> | null {
    if (!this.take()) return null;
    return this.response()
      .arrayBuffer()
      .then((buffer) => new Uint8Array(buffer));
  }
}

/**
 * A stream's chunks through its reader, iterated once. Not an async generator: the reader's own
 * `read()` results are the iteration's results, one promise per chunk and no generator to resume.
 * Stopping early (a body too large, an error: `return()`) cancels the stream and frees the connection.
 */
function readerChunks(body: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  return {
    [Symbol.asyncIterator]() {
      const reader = body.getReader();
      return {
        next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
        async return() {
          reader.cancel().catch(() => {});
          return { done: true, value: undefined };
        },
      };
    },
  };
}
