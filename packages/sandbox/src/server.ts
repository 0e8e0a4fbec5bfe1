// The sandbox's HTTP server: loopback only, port 0 by default (the OS picks a free one).
//   /portal/v2/...  and  /portal/...   the partner portal, v2 and v1
//   /__sandbox/...                      control endpoints for tests and demos (not part of any interface)
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { PortalSandbox, type PortalSandboxOptions } from "./portal.js";

export interface SandboxOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  portal?: PortalSandboxOptions;
}

export interface Sandbox {
  /** Root address, e.g. http://127.0.0.1:43121 */
  url: string;
  /** Base address for the portal client (both versions). */
  portalUrl: string;
  portal: PortalSandbox;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error("body too large"));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Browsers may call the sandbox from any page (a test bundle, a dev server); the Authorization header must be allowed by name. */
const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, accept, uid",
  "access-control-expose-headers": "content-type, content-length, content-disposition, uid",
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Starts the sandbox on loopback. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const portal = new PortalSandbox(options.portal);
  const server: Server = createServer(async (req, res) => {
    for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
    if (req.method === "OPTIONS") {
      res.writeHead(204);
      return res.end();
    }
    try {
      const url = new URL(req.url ?? "/", "http://sandbox");
      if (url.pathname.startsWith("/__sandbox/")) return control(portal, url, req, res);
      if (url.pathname.startsWith("/portal/")) {
        if (req.method !== "POST") return sendJson(res, 405, { code: 1, message: "portal requests are POST" });
        const answer = await portal.handle(url.pathname.slice("/portal".length), await readBody(req), { authorization: req.headers.authorization });
        if ("file" in answer) {
          res.writeHead(answer.status, {
            "content-type": answer.contentType,
            "content-length": answer.file.byteLength,
            "content-disposition": `attachment; filename="${answer.filename}"`,
          });
          return res.end(answer.file);
        }
        return sendJson(res, answer.status, answer.json);
      }
      sendJson(res, 404, { error: `no interface at ${url.pathname}` });
    } catch (e) {
      sendJson(res, 500, { error: `sandbox failure: ${(e as Error).message}` });
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port, address } = server.address() as AddressInfo;
  const url = `http://${address}:${port}`;
  return {
    url,
    portalUrl: `${url}/portal`,
    portal,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

async function control(portal: PortalSandbox, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (url.pathname === "/__sandbox/portal/captcha" && req.method === "GET") {
    const text = portal.captchaText(url.searchParams.get("session") ?? "");
    return text ? sendJson(res, 200, { text }) : sendJson(res, 404, { error: "no such captcha session" });
  }
  if (url.pathname === "/__sandbox/portal/expire-tokens" && req.method === "POST") {
    portal.expireAccessTokens();
    return sendJson(res, 200, { expired: true });
  }
  if (url.pathname === "/__sandbox/portal/stats" && req.method === "GET") return sendJson(res, 200, portal.stats);
  sendJson(res, 404, { error: `no control endpoint ${url.pathname}` });
}
