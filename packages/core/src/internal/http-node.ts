// The default HTTP of the clients in Node: node:http(s), as stripe-node and the AWS SDK do in Node.
// Node's own `fetch` builds a Request, runs the fetch algorithm and parses with a WebAssembly
// llhttp in the caller's process: on a loopback call that was a third of what `fetch` took. undici's
// own `request()` is a little faster per call than this (the bench shows both), but importing it
// takes 75–100 ms and a dependency of 1.3 MB, for a runtime that has node:http built in.
//
// What `fetch` did for the SDK is done here too: a length on every body (no chunked requests), the
// same default headers (`accept`, `user-agent`, `accept-encoding: gzip, deflate`) and their
// decoding, redirects never followed (the transport decides), the signal ending the request or its
// body with its own reason. An `agent` (client certificates, a proxy agent) goes to every request;
// without one, `HTTPS_PROXY`/`HTTP_PROXY` (and `NO_PROXY`) are honoured as curl does. The modules
// come from `process.getBuiltinModule` (Node 20.16+), so no bundler for a browser meets a `node:` import.
import { fromResponse, type HttpAdapter, type HttpAnswer, isConnectFailure, NeverSentError } from "./http.js";
import { nodeBuiltins } from "./node-builtins.js";
import { withFields } from "./objects.js";
import { type ProxyModules, type ProxyRoute, proxyFor } from "./proxy.js";
import { joined } from "./read.js";

// The few shapes of node:http, node:stream and node:zlib the adapter uses, declared here: core's
// types must not need @types/node (browser projects compile against them too).
interface NodeStream extends AsyncIterable<Uint8Array> {
  on(event: "error", listener: (error?: unknown) => void): unknown;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  once(event: "close" | "end", listener: () => void): unknown;
  destroy(error?: unknown): unknown;
}
interface Incoming extends NodeStream {
  statusCode?: number;
  statusMessage?: string;
  rawHeaders: string[];
  resume(): unknown;
  pipe<T>(to: T): T;
}
/** The socket node:http gives an https request, as far as the adapter reads it. */
interface TlsSocket {
  /** Still connecting: a new connection, not one kept alive. */
  connecting: boolean;
  once(event: "secureConnect", listener: () => void): unknown;
}
interface Outgoing extends NodeStream {
  end(body?: Uint8Array | string): unknown;
  on(event: "error", listener: (error?: unknown) => void): unknown;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "close", listener: () => void): unknown;
  once(event: "close" | "end", listener: () => void): unknown;
  once(event: "socket", listener: (socket: TlsSocket) => void): unknown;
}
export interface RequestOptions {
  method: string;
  headers: Record<string, string>;
  agent?: unknown;
  path?: string;
  createConnection?: unknown;
}
type SendRequest = (url: URL, options: RequestOptions, onAnswer?: (answer: Incoming) => void) => Outgoing;

/**
 * The settings of a client's own agent (no `agent` given): Node 20's global agent's (keep-alive, last
 * used first, idle sockets closed after 5 s), but with a maximum of idle sockets above what a process
 * can hold open, so every idle connection is kept, not 256.
 */
export const clientAgentOptions = { keepAlive: true, scheduling: "lifo", timeout: 5_000, maxFreeSockets: 1e6 } as const;

/** node:http's Agent, as far as the adapter makes one. */
type AgentClass = new (options: typeof clientAgentOptions) => unknown;

/** The builtins the adapter uses. */
export interface NodeHttpModules extends ProxyModules {
  http: { request: SendRequest; Agent: AgentClass };
  https: { request: SendRequest; Agent: AgentClass };
  stream: { Readable: { toWeb(stream: NodeStream): unknown } };
  zlib: Record<"createGunzip" | "createInflate" | "createBrotliDecompress", () => NodeStream>;
}

/** What `fetch` sends unless the request says otherwise (Node's `fetch` sends these). */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = { accept: "*/*", "user-agent": "node", "accept-encoding": "gzip, deflate" };
/** Encoding keeps no state between calls, so one encoder serves every request body. */
const utf8 = new TextEncoder();
/** Statuses whose answer has no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** The modules, when the runtime offers Node's builtins. */
export const nodeHttpModules = (): NodeHttpModules | undefined => nodeBuiltins() as NodeHttpModules | undefined;

export interface NodeHttpOptions {
  /** An `http.Agent` or `https.Agent` for every request (client certificates, a proxy agent, socket limits). */
  agent?: unknown;
  /** Where the proxy settings come from. Default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** An adapter over node:http(s). */
export function nodeHttp(modules: NodeHttpModules, options: NodeHttpOptions = {}): HttpAdapter {
  const env = options.env ?? (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  // Without the caller's agent, the client keeps its own connections (clientAgentOptions). On Node's
  // global agent a till server with a thousand registers in flight closed 744 connections after
  // each wave and opened them again on the next: about a sixth of its CPU.
  const pools: Record<string, unknown> = {};
  // An address the environment sends straight (no proxy, or NO_PROXY) is known so after its first
  // request: reading the environment (up to four variables, each a call into the process) on every
  // request cost more than the rest of the adapter. So a client reads it once per address, as Node's
  // own EnvHttpProxyAgent reads it once.
  const direct = new Set<string>();
  const routeOf = (target: URL): ProxyRoute | undefined => {
    const address = `${target.protocol}//${target.host}`;
    if (direct.has(address)) return undefined;
    const route = proxyFor(target, env, modules);
    if (!route) direct.add(address);
    return route;
  };
  return ({ url, method, headers: own, body: given, signal }) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const target = new URL(url);
      if (target.protocol !== "http:" && target.protocol !== "https:") throw new TypeError(`only http and https addresses can be fetched, not ${target.protocol}`);
      if (signal.aborted) throw signal.reason;
      const headers: Record<string, string> = withFields(DEFAULT_HEADERS, own);
      // A caller's agent decides how to connect; otherwise the environment's proxy, if any.
      const route = options.agent === undefined ? routeOf(target) : undefined;
      // A text body goes to node:http as text: it writes it with the header block in one piece, where
      // a body of bytes is a second chunk and a writev (with 100-300 requests in flight, 10-13 µs of
      // CPU a request more), and no bytes are made of it here. Only under ASCII headers: node:http
      // joins the two as UTF-8, which would write a header's Latin-1 byte as two. Only the caller's
      // headers can be other than ASCII (the defaults are, and so are a proxy's: a URL's host and base64).
      const body = typeof given === "string" && !asciiValues(own) ? utf8.encode(given) : given;
      if (body !== undefined) headers["content-length"] = String(typeof body === "string" ? utf8Length(body) : body.byteLength);
      // The signal ends whatever is under way with its own reason, as `fetch` does: the request
      // before the answer, the body after it (a timeout stays a timeout, not a cut connection).
      let under: { destroy(e: unknown): void };
      const onAbort = () => under.destroy(signal.reason);
      const http = target.protocol === "https:" ? modules.https : modules.http;
      let agent = options.agent;
      if (agent === undefined && !route) {
        pools[target.protocol] ??= new http.Agent(clientAgentOptions);
        agent = pools[target.protocol];
      }
      let request: Outgoing;
      try {
        request = http.request(route?.url ?? target, requestOptions(method, headers, agent, route), (res) => {
          under = res;
          res.once("close", () => signal.removeEventListener("abort", onAbort));
          resolve(answer(res, modules));
        });
      } catch (e) {
        throw new NeverSentError(e); // refused as it was built (a header value node:http will not write): nothing left
      }
      under = request;
      // A TLS handshake that fails writes none of the request (it waits for the secure connection);
      // a connection refused or a host not found is known by its system call (isConnectFailure).
      let handshaking = false;
      if (target.protocol === "https:" && !route) request.once("socket", (socket) => watchHandshake(socket, (on) => (handshaking = on)));
      signal.addEventListener("abort", onAbort, { once: true });
      // `on`, not `once`: a second error with no listener would crash the process.
      request.on("error", (e) => {
        if (under === request) signal.removeEventListener("abort", onAbort);
        reject(handshaking || isConnectFailure(e) ? new NeverSentError(e) : e);
      });
      // A close before any answer ends the request as cut. node:http answers nothing else then:
      // neither a response nor an error for a 101 nobody asked for (it drops the socket), and the
      // call would wait forever (its timeout finds the request already destroyed).
      request.on("close", () => {
        if (under !== request) return; // answered: the answer's own close ends its listener
        signal.removeEventListener("abort", onAbort);
        reject(new Error("the connection closed before an answer"));
      });
      request.end(body);
    });
}

/** Tells `on(true)` while a new TLS connection's handshake is under way, `on(false)` once it is done. A kept-alive socket is past it. */
function watchHandshake(socket: TlsSocket, on: (handshaking: boolean) => void): void {
  if (!socket.connecting) return;
  on(true);
  socket.once("secureConnect", () => on(false));
}

/** Whether every value is ASCII. */
function asciiValues(headers: Record<string, string>): boolean {
  for (const k in headers) if (BEYOND_ASCII.test(headers[k]!)) return false;
  return true;
}
const BEYOND_ASCII = /[\u0080-\uffff]/;

/** The length of a text in UTF-8, as node:http writes it (a lone surrogate as U+FFFD, three bytes), without encoding it. */
export function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) length += 1;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      length += 2; // a surrogate pair: two units, four bytes
      i++;
    } else length += 2;
  }
  return length;
}

/** node:http's options: only the keys that are set (an `undefined` path would replace the address's). */
function requestOptions(method: string, headers: Record<string, string>, agent: unknown, route: ProxyRoute | undefined): RequestOptions {
  const options: RequestOptions = { method, headers: route?.options.headers ? withFields(headers, route.options.headers) : headers };
  if (agent !== undefined) options.agent = agent;
  if (route?.options.path) options.path = route.options.path;
  if (route?.options.createConnection) options.createConnection = route.options.createConnection;
  return options;
}

/** An answer of node:http as the SDK's answer: its body decoded as `fetch` would, read straight from Node. */
function answer(res: Incoming, { stream, zlib }: NodeHttpModules): HttpAnswer {
  const status = res.statusCode ?? 0;
  const raw = res.rawHeaders;
  const header = (name: string) => {
    // Most answers carry a handful of headers, and most questions are about one: a scan beats a
    // Headers. Lengths first: lower-casing every name for every question allocated a string each.
    const wanted = name.toLowerCase();
    let found: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const at = raw[i]!;
      if (at.length === wanted.length && (at === wanted || at.toLowerCase() === wanted)) found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]}`;
    }
    return found;
  };
  let body: NodeStream | null = res;
  if (NULL_BODY.has(status)) {
    res.resume();
    body = null;
  } else {
    const decoder = decoderFor(header("content-encoding"), zlib);
    if (decoder) {
      // A corrupt body, or one cut off or aborted, ends the decoded body with that error; a decoded
      // body dropped before its end drops the answer and so its connection, which would otherwise
      // stay open under a paused answer. After a whole answer this does nothing.
      res.on("error", (e) => decoder.destroy(e));
      decoder.once("close", () => res.destroy());
      body = res.pipe(decoder);
    }
  }
  let taken = false;
  // Once a hook or a file asked for the web Response, the body is read through it.
  let web: HttpAnswer | undefined;
  const take = () => {
    const source = taken ? null : body;
    taken = true;
    return source;
  };
  return {
    status,
    opaqueRedirect: false,
    header,
    chunks: () => (web ? web.chunks() : take()),
    whole() {
      if (web) return web.whole?.() ?? null;
      const source = take();
      return source && wholeOf(source);
    },
    drop() {
      if (web) web.drop();
      else take()?.destroy();
    },
    response() {
      if (!web) {
        const source = take();
        const headers = new Headers();
        for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
        const init = { status, statusText: res.statusMessage, headers };
        web = fromResponse(new Response(source === null ? null : (stream.Readable.toWeb(source) as ReadableStream<Uint8Array>), init));
      }
      return web.response();
    },
  };
}

/**
 * A body read whole from its stream's events: one promise, where an async iteration makes an
 * iterator, a promise per chunk and an end-of-stream watcher (at a thousand calls in flight a
 * measurable part of a call's CPU). A stream closed before its end is cut off, as the iteration says.
 */
function wholeOf(stream: NodeStream): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let ended = false;
    stream.on("data", (chunk) => chunks.push(chunk));
    stream.on("error", reject);
    stream.once("end", () => {
      ended = true;
      resolve(chunks.length === 1 ? chunks[0]! : joined(chunks));
    });
    stream.once("close", () => {
      if (!ended) reject(new Error("the answer's body closed before its end"));
    });
  });
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
