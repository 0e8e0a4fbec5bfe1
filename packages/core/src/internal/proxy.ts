// Proxies from the environment, for the node:http adapter: what an enterprise network expects of a
// Node program, as curl reads them. `HTTPS_PROXY` for https addresses (a CONNECT tunnel, inside
// which TLS runs to the service itself: the proxy sees neither the request nor its credentials),
// `HTTP_PROXY` for http ones (the request in absolute form), `NO_PROXY` for the exceptions. A
// proxy's own user and password go in `Proxy-Authorization`, which logs never show.
import { base64 } from "./base64.js";

interface Socket {
  destroy(error?: unknown): unknown;
}
interface ConnectAnswer {
  statusCode?: number;
}
interface Outgoing {
  on(event: "connect", listener: (answer: ConnectAnswer, socket: Socket) => void): unknown;
  on(event: "error", listener: (error: unknown) => void): unknown;
  end(): unknown;
}
/** The builtins a tunnel needs. */
export interface ProxyModules {
  http: { request(url: URL, options: { method: string; path: string; headers: Record<string, string>; agent: false }, onAnswer?: never): unknown };
  tls: {
    connect(options: { socket: Socket; servername?: string; host: string }): Socket & { once(event: "secureConnect" | "error", listener: (error?: unknown) => void): unknown };
  };
}

/** How one request goes: to the proxy (absolute form), or through a tunnel it opens; undefined: straight. */
export interface ProxyRoute {
  url?: URL;
  options: { path?: string; headers?: Record<string, string>; createConnection?: (options: unknown, done: (error: unknown, socket?: Socket) => void) => void };
}

const defaultPort = (url: URL) => url.port || (url.protocol === "https:" ? "443" : "80");

/** Whether `NO_PROXY` exempts a host: `*`, or a name that is the host or one of its parent domains (a leading dot changes nothing), with or without a port. */
export function exempt(target: URL, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = target.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return noProxy
    .split(/[\s,]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === "*") return true;
      const [name, port] = entry
        .toLowerCase()
        .replace(/^\*?\./, "")
        .split(/:(?=\d+$)/);
      if (port && port !== defaultPort(target)) return false;
      return host === name || host.endsWith(`.${name}`);
    });
}

/** The route of a request by the environment's proxy settings. */
export function proxyFor(target: URL, env: Record<string, string | undefined>, modules: ProxyModules): ProxyRoute | undefined {
  const https = target.protocol === "https:";
  const setting = https ? (env.HTTPS_PROXY ?? env.https_proxy) : (env.HTTP_PROXY ?? env.http_proxy);
  if (!setting || exempt(target, env.NO_PROXY ?? env.no_proxy)) return undefined;
  const proxy = new URL(/^[a-z]+:\/\//i.test(setting) ? setting : `http://${setting}`);
  const auth: Record<string, string> = proxy.username
    ? { "proxy-authorization": `Basic ${base64(new TextEncoder().encode(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`))}` }
    : {};
  // The credentials go in Proxy-Authorization only: node:http makes an Authorization header of a
  // URL's user and password, which a proxy passes on, so a request with none of its own (a sign-in)
  // would give the service the proxy's password.
  proxy.username = "";
  proxy.password = "";
  if (!https) return { url: proxy, options: { path: target.href, headers: { host: target.host, ...auth } } };
  const authority = `${target.hostname}:${defaultPort(target)}`;
  return {
    options: {
      createConnection: (_options, done) => {
        const connect = modules.http.request(proxy, { method: "CONNECT", path: authority, headers: { host: authority, ...auth }, agent: false }) as Outgoing;
        connect.on("error", (e) => done(e));
        connect.on("connect", (answer, socket) => {
          if (answer.statusCode !== 200) {
            socket.destroy();
            return done(new Error(`the proxy ${proxy.host} refused the tunnel to ${authority} (HTTP ${answer.statusCode})`));
          }
          // SNI names a host, never an address (RFC 6066); the certificate is checked against `host` either way.
          const ip = /^[\d.]+$|:/.test(target.hostname);
          const secure = modules.tls.connect({ socket, host: target.hostname.replace(/^\[|\]$/g, ""), ...(ip ? {} : { servername: target.hostname }) });
          let connected = false;
          secure.once("error", (e) => {
            if (!connected) done(e);
          });
          secure.once("secureConnect", () => {
            connected = true;
            done(null, secure);
          });
        });
        connect.end();
      },
    },
  };
}
