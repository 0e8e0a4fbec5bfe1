// Which HTTP a client gets: node:http(s) in Node (http-node.ts says why), the runtime's own
// `fetch` everywhere else — Bun, Deno, workerd and browsers, whose `fetch` is their fast path —
// unless the caller passed a `fetch` (or, in Node, an agent).
import type { FetchLike } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { fetchHttp, type HttpAdapter } from "./http.js";
import { nodeHttp, nodeHttpModules } from "./http-node.js";
import { isNode } from "./runtime.js";

let platform: HttpAdapter | undefined;

/** The platform's HTTP, chosen once. The runtime's `fetch` is looked up at each call: a polyfill installed after the client was made still counts. */
export function platformHttp(): HttpAdapter {
  platform ??= (() => {
    const modules = isNode() ? nodeHttpModules() : undefined;
    return modules ? nodeHttp(modules) : fetchHttp((url, init) => globalThis.fetch(url, init));
  })();
  return platform;
}

/** The HTTP of a client: the caller's `fetch`, node:http with the caller's agent, or the platform's. */
export function httpFor(options: { fetch?: FetchLike; agent?: unknown }): HttpAdapter {
  if (options.fetch) return fetchHttp(options.fetch);
  if (options.agent === undefined) return platformHttp();
  const modules = nodeHttpModules();
  if (!modules) throw new ConfigurationError("agent: only Node's HTTP takes an agent; on this runtime pass a `fetch` instead");
  return nodeHttp(modules, { agent: options.agent });
}
