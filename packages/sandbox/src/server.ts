// The sandbox's HTTP server: loopback only, port 0 by default (the OS picks a free one). It
// routes each request to the module whose prefix it has, and `/__sandbox/<module>/...` to that
// module's control endpoints. Slow or oversized requests are cut off: this is a test server, and a
// client that trickles its headers or body must not hold it forever.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { CashoutSandbox, type CashoutSandboxOptions } from "./cashout.js";
import { EcommerceSandbox, type EcommerceSandboxOptions } from "./ecommerce.js";
import { playFault, ruleFromJson, SandboxFaults } from "./faults.js";
import { FiscalSandbox, type FiscalSandboxOptions } from "./fiscal.js";
import { json, SandboxClock, type SandboxModule, type SandboxRequest } from "./module.js";
import { PortalSandbox, type PortalSandboxOptions } from "./portal.js";

export interface SandboxOptions {
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  portal?: PortalSandboxOptions;
  fiscal?: FiscalSandboxOptions;
  ecommerce?: EcommerceSandboxOptions;
  cashout?: CashoutSandboxOptions;
  /** Largest request body, in bytes; larger ones are answered 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Time allowed for a request's headers, and for the whole request, in ms. Defaults 5000 and 15000. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * How long every interface request waits before it is handled, in ms, as a service across a
   * network would (benchmarks of many registers or processes at a realistic round trip). Control
   * endpoints (`/__sandbox/…`) answer at once. Default 0. A `delay` fault rule adds to it.
   */
  latencyMs?: number;
}

export interface Sandbox {
  /** Root address, e.g. http://127.0.0.1:43121 */
  url: string;
  /** Sandbox time, shared by every module. */
  clock: SandboxClock;
  /** Base address of each interface by module name (`urlOf("portal")`). */
  urlOf(name: string): string;
  /** Base address for the portal client (both versions). */
  portalUrl: string;
  portal: PortalSandbox;
  /** Base address for the fiscal client. */
  fiscalUrl: string;
  fiscal: FiscalSandbox;
  /** Base address for the e-commerce client. */
  ecommerceUrl: string;
  ecommerce: EcommerceSandbox;
  /** Base address for the cash-out client. */
  cashoutUrl: string;
  cashout: CashoutSandbox;
  /** Every module, by name. */
  modules: ReadonlyMap<string, SandboxModule>;
  /** The fault mode: rules that make the next matching requests fail (also `POST /__sandbox/faults`). */
  faults: SandboxFaults;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > limit) return reject(new BodyTooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        req.removeAllListeners("data");
        reject(new BodyTooLarge());
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** Browsers may call the sandbox from any page (a test bundle, a payment form); credential and chain headers must be allowed by name. */
const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, accept, uid",
  "access-control-expose-headers": "content-type, content-length, content-disposition, uid",
};

/** The service's answer with one header dropped, or set to what the request presented in it (the `rewrite-header` fault). */
function rewriteHeader(
  answer: Awaited<ReturnType<SandboxModule["handle"]>>,
  fault: { name: string; value: "none" | "presented" },
  request: IncomingMessage["headers"],
): Awaited<ReturnType<SandboxModule["handle"]>> {
  const name = fault.name.toLowerCase();
  const headers = Object.fromEntries(Object.entries(answer.headers ?? {}).filter(([k]) => k.toLowerCase() !== name));
  const presented = request[name];
  if (fault.value === "presented" && typeof presented === "string") headers[name] = presented;
  return { ...answer, headers };
}

function send(res: ServerResponse, answer: Awaited<ReturnType<SandboxModule["handle"]>>): void {
  const headers: Record<string, string | number> = { ...answer.headers };
  let payload: Uint8Array | string;
  if ("json" in answer) {
    payload = JSON.stringify(answer.json);
    headers["content-type"] = "application/json; charset=utf-8";
  } else {
    payload = answer.body;
    headers["content-type"] = answer.contentType;
  }
  headers["content-length"] = typeof payload === "string" ? Buffer.byteLength(payload) : payload.byteLength;
  res.writeHead(answer.status, headers);
  res.end(payload);
}

/** `POST /__sandbox/faults` adds a rule (JSON), `DELETE` drops them all, `GET` lists the requests seen. */
function faultControl(faults: SandboxFaults, method: string, body: string) {
  if (method === "DELETE") {
    faults.clear();
    return json(200, { cleared: true });
  }
  if (method === "GET") return json(200, { seen: faults.seen.map(({ authorization, ...rest }) => ({ ...rest, authorization: authorization ? "(present)" : undefined })) });
  try {
    faults.add(ruleFromJson(JSON.parse(body)));
    return json(200, { added: true });
  } catch (e) {
    return json(400, { error: (e as Error).message });
  }
}

/** Starts the sandbox on loopback, with every interface module. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = new SandboxClock();
  let url = "";
  const context = { clock, url: () => url };
  const portal = new PortalSandbox(options.portal, context);
  const fiscal = new FiscalSandbox(options.fiscal, context);
  const ecommerce = new EcommerceSandbox(options.ecommerce, context);
  const cashout = new CashoutSandbox(options.cashout, context);
  const modules = new Map<string, SandboxModule>([portal, fiscal, ecommerce, cashout].map((m) => [m.name, m]));
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const latencyMs = options.latencyMs ?? 0;
  if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new RangeError(`latencyMs must be a number of ms, 0 or more, got ${latencyMs}`);
  const faults = new SandboxFaults();

  // Node checks the two request timeouts on this interval; its default (30 s) lets slow clients linger.
  const server: Server = createServer(
    { connectionsCheckingInterval: 1_000, headersTimeout: options.headersTimeoutMs ?? 5_000, requestTimeout: options.requestTimeoutMs ?? 15_000 },
    async (req, res) => {
      for (const [k, v] of Object.entries(cors)) res.setHeader(k, v);
      if (req.method === "OPTIONS") {
        res.writeHead(204);
        return res.end();
      }
      try {
        const target = new URL(req.url ?? "/", "http://sandbox");
        if (target.pathname === "/__sandbox/faults") return send(res, faultControl(faults, req.method ?? "GET", await readBody(req, maxBody)));
        const rule = faults.take({ method: req.method ?? "GET", path: target.pathname, host: req.headers.host ?? "", authorization: req.headers.authorization });
        if (latencyMs > 0 && !target.pathname.startsWith("/__sandbox/")) await faults.timers.sleep(latencyMs);
        // The body is read once, whoever needs it first (a fault that echoes it, the module).
        let reading: Promise<string> | undefined;
        const body = () => {
          reading ??= readBody(req, maxBody);
          return reading;
        };
        const request = async (path: string): Promise<SandboxRequest> => ({
          method: req.method ?? "GET",
          path,
          query: target.searchParams,
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : v])),
          body: await body(),
          remoteAddress: req.socket.remoteAddress ?? "",
        });
        // With `after`, the service does what the request asks, and the fault is played in place of its answer.
        const appliedModule = rule?.after ? [...modules.values()].find((m) => target.pathname.startsWith(`${m.prefix}/`)) : undefined;
        const applied = appliedModule && (await appliedModule.handle(await request(target.pathname.slice(appliedModule.prefix.length))));
        // A slow service has the request before it is slow: read now, it is done after the delay even if the client has gone.
        if (rule?.fault.kind === "delay") await body();
        if (rule && (await playFault(rule.fault, req, res, rule.fault.kind === "echo" ? await body() : "", faults.timers))) return;
        if (applied) return send(res, rule?.fault.kind === "rewrite-header" ? rewriteHeader(applied, rule.fault, req.headers) : applied);
        const control = /^\/__sandbox\/([^/]+)(\/.*)$/.exec(target.pathname);
        if (control) {
          const module = modules.get(control[1]!);
          const answer = module?.control ? await module.control(control[2]!, await request(control[2]!)) : undefined;
          return send(res, answer ?? json(404, { error: `no control endpoint ${target.pathname}` }));
        }
        const module = [...modules.values()].find((m) => target.pathname === m.prefix || target.pathname.startsWith(`${m.prefix}/`));
        if (!module) return send(res, json(404, { error: `no interface at ${target.pathname}` }));
        send(res, await module.handle(await request(target.pathname.slice(module.prefix.length) || "/")));
      } catch (e) {
        if (e instanceof BodyTooLarge) {
          res.setHeader("connection", "close");
          return send(res, json(413, { error: `the request body is larger than the sandbox's limit of ${maxBody} bytes` }));
        }
        send(res, json(500, { error: `sandbox failure: ${(e as Error).message}` }));
      }
    },
  );
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  url = `http://${address}:${port}`;
  const urlOf = (name: string) => {
    const m = modules.get(name);
    if (!m) throw new Error(`no sandbox module ${name}`);
    return `${url}${m.prefix}`;
  };
  return {
    url,
    clock,
    urlOf,
    portalUrl: urlOf("portal"),
    portal,
    fiscalUrl: urlOf("fiscal"),
    fiscal,
    ecommerceUrl: urlOf("ecommerce"),
    ecommerce,
    cashoutUrl: urlOf("cashout"),
    cashout,
    modules,
    faults,
    close: async () => {
      faults.close();
      for (const m of modules.values()) await m.close?.();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      });
    },
  };
}
