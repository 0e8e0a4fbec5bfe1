// The default HTTP of the clients in Node: a `fetch` over node:http(s), as stripe-node and the AWS
// SDK do in Node (fetch stays the default everywhere else). Node's own `fetch` builds a Request,
// runs the fetch algorithm and parses with a WebAssembly llhttp, all in the caller's process: on a
// loopback call that was about a third of the time `fetch` took (`pnpm bench` shows both). It is
// the same contract — `(url, init) => Response` — so nothing above it changes, and what `fetch`
// did for the SDK is done here too: a length on every body (no chunked requests), the same
// default headers (`accept`, `user-agent`, `accept-encoding: gzip, deflate`) and their decoding,
// redirects never followed (the transport decides), and the signal aborting the request and its
// body. The modules come from `process.getBuiltinModule` (Node 20.16+), so no bundler for a
// browser ever meets a `node:` import here.
import type { FetchLike } from "../call.js";
import { put } from "./pointer.js";

// The few shapes of node:http, node:stream and node:zlib the adapter uses, declared here: core's
// types must not need @types/node (browser projects compile against them too).
interface NodeStream extends AsyncIterable<Uint8Array> {
  on(event: "error", listener: (error?: unknown) => void): unknown;
  once(event: "close", listener: () => void): unknown;
  destroy(error?: unknown): unknown;
}
interface Answer extends NodeStream {
  statusCode?: number;
  statusMessage?: string;
  rawHeaders: string[];
  resume(): unknown;
  pipe<T>(to: T): T;
}
interface Outgoing extends NodeStream {
  end(body?: Uint8Array): unknown;
}
type SendRequest = (url: URL, options: { method: string; headers: Record<string, string> }, onAnswer: (answer: Answer) => void) => Outgoing;

/** The builtins the adapter uses. */
export interface NodeHttpModules {
  http: { request: SendRequest };
  https: { request: SendRequest };
  stream: { Readable: { toWeb(stream: NodeStream): unknown } };
  zlib: Record<"createGunzip" | "createInflate" | "createBrotliDecompress", () => NodeStream>;
}

/** What `fetch` sends unless the request says otherwise (Node's `fetch` sends these). */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = { accept: "*/*", "user-agent": "node", "accept-encoding": "gzip, deflate" };

/** Encoding keeps no state between calls, so one encoder serves every request body. */
const utf8 = new TextEncoder();

/** Statuses whose answer has no body: a Response refuses one. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The modules, when this is Node (or a runtime that offers Node's builtins the same way). */
export function nodeHttpModules(): NodeHttpModules | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof get !== "function") return undefined;
  const [http, https, stream, zlib] = ["node:http", "node:https", "node:stream", "node:zlib"].map((id) => get(id));
  return http && https && stream && zlib ? ({ http, https, stream, zlib } as NodeHttpModules) : undefined;
}

/** A `fetch` over node:http(s). Redirects are answered as they are (like `redirect: "manual"`). */
export function nodeHttpFetch(modules: NodeHttpModules): FetchLike {
  return (url, init) =>
    new Promise<Response>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:") throw new TypeError(`only http and https addresses can be fetched, not ${target.protocol}`);
      const signal = init.signal ?? undefined;
      if (signal?.aborted) throw signal.reason;
      const body = bodyBytes(init.body);
      const headers: Record<string, string> = { ...DEFAULT_HEADERS };
      for (const [k, v] of headerEntries(init.headers)) put(headers, k.toLowerCase(), v);
      if (body !== undefined) headers["content-length"] = String(body.byteLength);
      // The signal ends whatever is under way with its own reason, as `fetch` does: the request
      // before the answer, the body after it (a timeout stays a timeout, not a cut connection).
      let under: { destroy(e: unknown): void };
      const onAbort = () => under.destroy(signal!.reason);
      const request = (target.protocol === "https:" ? modules.https : modules.http).request(target, { method: init.method ?? "GET", headers }, (res) => {
        under = res;
        res.once("close", () => signal?.removeEventListener("abort", onAbort));
        try {
          resolve(toResponse(res, modules));
        } catch (e) {
          res.destroy();
          reject(e);
        }
      });
      under = request;
      signal?.addEventListener("abort", onAbort, { once: true });
      // `on`, not `once`: a second error with no listener would crash the process.
      request.on("error", (e) => {
        if (under === request) signal?.removeEventListener("abort", onAbort);
        reject(e);
      });
      request.end(body);
    });
}

/** The answer as a Response: its status and headers, and its body decoded as `fetch` would. */
function toResponse(res: Answer, { stream, zlib }: NodeHttpModules): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const init = { status, statusText: res.statusMessage, headers };
  if (NULL_BODY.has(status)) {
    res.resume();
    return new Response(null, init);
  }
  const decoder = decoderFor(headers.get("content-encoding"), zlib);
  let source: NodeStream = res;
  if (decoder) {
    // A corrupt body, or one cut off or aborted, ends the decoded body with that error; a decoded
    // body dropped before its end (too large, cancelled) drops the answer and so its connection,
    // which would otherwise stay open under a paused answer. After a whole answer this is a no-op.
    res.on("error", (e) => decoder.destroy(e));
    decoder.once("close", () => res.destroy());
    source = res.pipe(decoder);
  }
  return new NodeResponse(source, stream.Readable.toWeb, init);
}

/** Response where there is one: importing core must not fail where there is not (the adapter runs only in Node, which has it). */
const ResponseBase: typeof Response = globalThis.Response ?? (class {} as unknown as typeof Response);

/**
 * An answer whose body stays a Node stream until someone asks for it as a web stream. A web
 * `ReadableStream` and a Response around it, for every answer, cost about a quarter of a small
 * loopback call over node:http (~90 of ~340 µs, against a server in another process). The
 * transport reads the Node stream directly (`nodeChunks`); anything else — a hook, a file
 * download, a caller's `json()` — gets the web body, made once, on first use. Every member that
 * reads the body goes to that web body, so none of them ever sees the empty one `super(null)`
 * made; after a direct read they refuse, as a used body does, instead of reading nothing.
 */
class NodeResponse extends ResponseBase {
  readonly #source: NodeStream;
  readonly #toWeb: NodeHttpModules["stream"]["Readable"]["toWeb"];
  readonly #init: ResponseInit;
  #web: Response | undefined;
  #readDirectly = false;

  constructor(source: NodeStream, toWeb: NodeHttpModules["stream"]["Readable"]["toWeb"], init: ResponseInit) {
    super(null, init);
    this.#source = source;
    this.#toWeb = toWeb;
    this.#init = init;
  }

  /** The same answer with a web body, made on first use (after a direct read, a body that fails: it was read). */
  web(): Response {
    this.#web ??= new Response(this.#readDirectly ? failing(new TypeError("the body was already read")) : (this.#toWeb(this.#source) as ReadableStream<Uint8Array>), this.#init);
    return this.#web;
  }

  /** The body's chunks straight from Node, once, if nothing has asked for the web body. */
  chunks(): AsyncIterable<Uint8Array> | undefined {
    if (this.#web || this.#readDirectly) return undefined;
    this.#readDirectly = true;
    return this.#source;
  }

  /** Whether the body was read (or is being read), either way. */
  used(): boolean {
    return this.#readDirectly || (this.#web?.bodyUsed ?? false);
  }
}
// The body's members go to the web body. Defined on the prototype, not as class accessors: the
// DOM types declare `body` as a property, which a class may not override with an accessor.
Object.defineProperty(NodeResponse.prototype, "body", {
  configurable: true,
  get(this: NodeResponse) {
    return this.web().body;
  },
});
Object.defineProperty(NodeResponse.prototype, "bodyUsed", {
  configurable: true,
  get(this: NodeResponse) {
    return this.used();
  },
});
for (const name of ["arrayBuffer", "blob", "bytes", "formData", "json", "text", "clone"] as const) {
  if (!(name in ResponseBase.prototype)) continue; // `bytes` is newer than Node 20
  Object.defineProperty(NodeResponse.prototype, name, {
    configurable: true,
    writable: true,
    value(this: NodeResponse) {
      const web = this.web() as unknown as Record<typeof name, () => unknown>;
      return web[name]();
    },
  });
}

/** A stream that fails with `error` when read. */
function failing(error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.error(error) });
}

/** The body of an answer from this adapter as Node chunks, if it is one and nothing read it yet (the transport's fast read). */
export function nodeChunks(response: Response): AsyncIterable<Uint8Array> | undefined {
  return response instanceof NodeResponse ? response.chunks() : undefined;
}

/** The stream that undoes a content encoding `fetch` undoes; none for identity or an encoding it does not know (left as it is, as `fetch` does). */
function decoderFor(encoding: string | null, zlib: NodeHttpModules["zlib"]): NodeStream | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    default:
      return undefined;
  }
}

/** The request body as bytes (the transport sends a string or bytes; anything else is refused, not sent as "[object Object]"). */
function bodyBytes(body: RequestInit["body"]): Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return utf8.encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError("the request body must be a string or bytes");
}

function headerEntries(headers: RequestInit["headers"]): Iterable<[string, string]> {
  if (headers === undefined) return [];
  if (headers instanceof Headers || Array.isArray(headers)) return headers as Iterable<[string, string]>;
  return Object.entries(headers);
}
