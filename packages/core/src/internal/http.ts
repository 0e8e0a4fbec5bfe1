// The SDK's own answer type, and the HTTP each runtime gets. An adapter sends one request and
// answers a small `HttpAnswer` (status, headers, the body's chunks); the transport reads that and
// nothing else, so no adapter builds or patches a web `Response` it does not need. A hook or a file
// download that wants a `Response` gets a real one, built when it asks.
//
// Which HTTP each runtime gets is platform.ts's choice.
import type { FetchLike } from "../call.js";

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
  /** A header's value (name in any case), or null. */
  header(name: string): string | null;
  /** Every header, as a web `Headers` (made when asked). */
  headers(): Headers;
  /** The body's chunks, once; null when there is none or it was taken already. */
  chunks(): AsyncIterable<Uint8Array> | null;
  /** Drops the body unread: an answer the transport stops at must not hold its connection. */
  drop(): void;
  /** The answer as a web `Response` with the body not yet read (hooks, files), made once. */
  response(): Response;
}

/** Sends one request. Redirects are answered as they are: the transport decides about them. */
export type HttpAdapter = (request: HttpRequest) => Promise<HttpAnswer>;

/** An adapter over a `fetch` (the runtime's, or the caller's). */
export function fetchHttp(fetch: FetchLike): HttpAdapter {
  return async ({ url, method, headers, body, signal }) => fromResponse(await fetch(url, { method, headers, body, signal, redirect: "manual" }));
}

/** A fetched Response as an answer; its body is read as chunks (a reader loop, as not every browser iterates streams). */
export function fromResponse(response: Response): HttpAnswer {
  let taken = false;
  return {
    status: response.status,
    opaqueRedirect: response.type === "opaqueredirect",
    header: (name) => response.headers.get(name),
    headers: () => response.headers,
    chunks() {
      if (taken || !response.body) return null;
      taken = true;
      return readerChunks(response.body);
    },
    drop() {
      taken = true;
      // Cancelling a teed stream settles only when both branches do: never awaited.
      if (!response.bodyUsed) response.body?.cancel().catch(() => {});
    },
    response: () => response,
  };
}

async function* readerChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    // Stopping early (a body too large, an error) cancels the stream and frees the connection.
    if (!done) reader.cancel().catch(() => {});
  }
}
