// The default HTTP in Node: node:http(s), tested against a real local server for each duty `fetch`
// did for the SDK (lengths, default headers and content decoding, redirects left to the transport,
// the signal ending the request or its body with its own reason, cut-off bodies), the answer's body
// read straight from Node (a web Response made only when someone asks), an agent of the caller's,
// and the environment's proxies.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { type AddressInfo, connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ResponseTooLargeError } from "../src/errors.js";
import type { HttpAnswer } from "../src/internal/http.js";
import { nodeHttp, nodeHttpModules, utf8Length } from "../src/internal/http-node.js";
import { Transport } from "../src/internal/index.js";
import { testOperation } from "./operation.js";

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;
let handler: Handler = (_q, _b, res) => res.end();
let server: Server;
let base = "";
const seen: { method?: string; url?: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: body.toString() });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const modules = nodeHttpModules();
const http = nodeHttp(modules!, { env: {} });
const send = (url: string, init: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {}) =>
  http({ url, method: init.method ?? "GET", headers: init.headers ?? {}, body: init.body, signal: init.signal ?? new AbortController().signal });
const last = () => seen[seen.length - 1]!;
class Marker extends Error {}
/** Reads a body the transport's way, straight from Node. */
async function direct(a: HttpAnswer): Promise<string> {
  const source = a.chunks();
  if (!source) throw new Error("no body");
  const chunks: Uint8Array[] = [];
  for await (const c of source) chunks.push(c);
  return Buffer.concat(chunks).toString();
}
/** Reads a body whole, as the transport does when its length is declared and it is not compressed. */
async function whole(a: HttpAnswer): Promise<string> {
  const bytes = await a.whole!();
  if (!bytes) throw new Error("no body");
  return Buffer.from(bytes).toString();
}

describe("the node:http adapter", () => {
  it("is what Node offers through process.getBuiltinModule", () => {
    expect(modules).toBeDefined();
  });

  it("lets core be imported where there is no global Response", async () => {
    vi.stubGlobal("Response", undefined);
    vi.resetModules();
    try {
      await expect(import("../src/internal/index.js")).resolves.toHaveProperty("Transport");
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });

  it("sends the method, the headers and the body with its length, never chunked", async () => {
    handler = (_q, _b, res) => res.end("ok");
    const body = JSON.stringify({ name: "Кофе" });
    const a = await send(`${base}/x?a=1`, { method: "POST", headers: { "content-type": "application/json", uid: "u-1" }, body });
    expect(await direct(a)).toBe("ok");
    const got = last();
    expect(got.method).toBe("POST");
    expect(got.body).toBe(body);
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(got.headers["transfer-encoding"]).toBeUndefined();
    expect(got.headers).toMatchObject({ "content-type": "application/json", uid: "u-1", accept: "*/*", "accept-encoding": "gzip, deflate" });
  });

  it("sends a text body byte for byte with its UTF-8 length (a pair, a lone surrogate) in the write of its headers", async () => {
    handler = (_q, _b, res) => res.end();
    // A lone surrogate is no JSON.stringify output, but a text body may be any text: U+FFFD, as Node writes it.
    for (const text of ['{"n":"Кофе ☕ 𝄞"}', "a\ud800b", "\udc00", "x\ud83d"]) {
      await send(`${base}/t`, { method: "POST", body: text });
      expect(last().headers["content-length"]).toBe(String(Buffer.byteLength(text)));
      expect(last().body).toBe(Buffer.from(text).toString());
    }
  });

  it("keeps a header's Latin-1 bytes beside a text body (node:http would join them as UTF-8)", async () => {
    let raw = "";
    handler = (req, _b, res) => {
      raw = req.rawHeaders[req.rawHeaders.findIndex((h) => h.toLowerCase() === "x-name") + 1]!;
      res.end();
    };
    await send(`${base}/l`, { method: "POST", headers: { "x-name": "café" }, body: "é" });
    // The server reads header bytes as Latin-1: one byte for é, not the two of its UTF-8.
    expect(raw).toBe("café");
    expect(last().body).toBe("é");
    expect(last().headers["content-length"]).toBe("2");
  });

  it("counts UTF-8 lengths as Buffer.byteLength does", () => {
    const units = ["a", "\u007f", "\u0080", "\u07ff", "\u0800", "\uffff", "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d\ude00"];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let n = 0; n < 2_000; n++) {
      const text = Array.from({ length: next() % 12 }, () => units[next() % units.length]).join("");
      expect(utf8Length(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
    }
  });

  it("lets the request's own headers win over the defaults", async () => {
    handler = (_q, _b, res) => res.end();
    await send(`${base}/`, { headers: { "accept-encoding": "identity", "user-agent": "till/1" } });
    expect(last().headers).toMatchObject({ "accept-encoding": "identity", "user-agent": "till/1" });
  });

  it("answers status, headers (repeated ones joined, any case) and body", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(201, [
        ["content-type", "application/json"],
        ["x-a", "1"],
        ["x-a", "2"],
        ["Uid", "next"],
        ["X-B", "3"],
      ]);
      res.end('{"ok":true}');
    };
    const a = await send(`${base}/`, { method: "POST", body: "{}" });
    expect(a.status).toBe(201);
    expect(a.header("x-a")).toBe("1, 2");
    expect(a.header("uid")).toBe("next");
    expect(a.header("X-A")).toBe("1, 2");
    expect(a.header("x-b")).toBe("3"); // another name of the same length
    expect(a.header("x-ab")).toBeNull();
    expect(JSON.parse(await direct(a))).toEqual({ ok: true });
  });

  it("has no body for a 204", async () => {
    handler = (_q, _b, res) => {
      res.statusCode = 204;
      res.end();
    };
    const a = await send(`${base}/`, { method: "DELETE" });
    expect(a.status).toBe(204);
    expect(a.chunks()).toBeNull();
    expect(a.response().body).toBeNull();
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("decodes a %s body, as fetch does", async (encoding, compress) => {
    const text = JSON.stringify({ rows: Array.from({ length: 200 }, (_, i) => ({ i })) });
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-encoding": encoding });
      res.end(compress(Buffer.from(text)));
    };
    expect(await direct(await send(`${base}/`))).toBe(text);
  });

  it.each([
    ["chunk by chunk", direct],
    ["whole", whole],
  ])("fails the body, read %s, of a corrupt gzip answer, of one cut off before its declared length, and of one whose signal fired", async (_way, read) => {
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end(Buffer.from("not gzip at all"));
    };
    if (read === direct) await expect(read(await send(`${base}/`))).rejects.toThrow(); // (a compressed body is never read whole)
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("only part");
      setTimeout(() => res.socket?.destroy(), 10);
    };
    await expect(read(await send(`${base}/`))).rejects.toThrow();
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("first part");
    };
    const controller = new AbortController();
    const a = await send(`${base}/`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Marker("time")), 20);
    await expect(read(a)).rejects.toBeInstanceOf(Marker);
  });

  it("leaves redirects to the transport", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    };
    const before = seen.length;
    const a = await send(`${base}/`);
    expect(a.status).toBe(302);
    expect(a.header("location")).toBe("/elsewhere");
    expect(seen.length).toBe(before + 1); // /elsewhere was not asked for
  });

  it("ends a request whose answer has not come with the signal's reason", async () => {
    handler = () => {}; // never answers
    const controller = new AbortController();
    const pending = send(`${base}/`, { method: "POST", body: "{}", signal: controller.signal });
    setTimeout(() => controller.abort(new Marker("time")), 30);
    await expect(pending).rejects.toBeInstanceOf(Marker);
  });

  it("refuses an aborted signal and addresses that are not http(s) before connecting", async () => {
    const before = seen.length;
    const controller = new AbortController();
    controller.abort(new Marker("early"));
    await expect(send(`${base}/`, { signal: controller.signal })).rejects.toBeInstanceOf(Marker);
    await expect(send("file:///etc/passwd")).rejects.toThrow(/http/);
    expect(seen.length).toBe(before);
  });

  it("is the transport's default in Node (Node's own fetch would send sec-fetch-mode)", async () => {
    handler = (_q, _b, res) => {
      res.setHeader("content-type", "application/json");
      res.end('{"ok":1}');
    };
    const op = testOperation({ path: "/op" });
    const result = await new Transport({ baseUrl: base }).call(op, { body: { a: 1 } });
    expect(result.kind === "json" && result.body).toEqual({ ok: 1 });
    expect(last().headers["sec-fetch-mode"]).toBeUndefined();
    await new Transport({ baseUrl: base, fetch: (u, i) => globalThis.fetch(u, i) }).call(op, { body: { a: 1 } });
    expect(last().headers["sec-fetch-mode"]).toBe("cors");
  });

  it("keeps every connection a wave of calls opened for the next wave (Node's global agent keeps 256)", async () => {
    // A till server with hundreds of registers in flight: each wave must find its connections open.
    handler = (_q, _b, res) => setTimeout(() => res.end("{}"), 20);
    const own = nodeHttp(modules!, { env: {} });
    let opened = 0;
    const count = () => opened++;
    server.on("connection", count);
    try {
      const wave = () =>
        Promise.all(Array.from({ length: 300 }, () => own({ url: `${base}/`, method: "GET", headers: {}, body: undefined, signal: new AbortController().signal }).then(direct)));
      await wave();
      expect(opened).toBe(300);
      await wave();
      expect(opened).toBe(300);
    } finally {
      server.off("connection", count);
    }
  });

  describe("the body, read straight from Node or as a web Response", () => {
    const text = JSON.stringify({ Uid: "u-2", rows: [1, 2, 3] });
    const answer = () => {
      handler = (_q, _b, res) => {
        res.setHeader("content-type", "application/json");
        res.end(text);
      };
      return send(`${base}/`);
    };

    it("gives its chunks once", async () => {
      const a = await answer();
      expect(await direct(a)).toBe(text);
      expect(a.chunks()).toBeNull();
      expect(a.whole!()).toBeNull();
    });

    it("gives its body whole once, a body of many chunks joined", async () => {
      const a = await answer();
      expect(await whole(a)).toBe(text);
      expect(a.whole!()).toBeNull();
      expect(a.chunks()).toBeNull();
      const big = "x".repeat(200_000);
      handler = (_q, _b, res) => {
        res.setHeader("content-length", String(big.length));
        for (let at = 0; at < big.length; at += 10_000) res.write(big.slice(at, at + 10_000));
        res.end();
      };
      expect(await whole(await send(`${base}/`))).toBe(big);
    });

    it("gives a real Response with the whole body when asked (a hook, a file), and is then read through it", async () => {
      const a = await answer();
      const r = a.response();
      expect(r).toBeInstanceOf(Response);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toBe("application/json");
      expect(a.response()).toBe(r); // made once
      expect(await direct(a)).toBe(text);
      expect(r.bodyUsed).toBe(true);
      const b = await answer();
      expect(await b.response().clone().json()).toEqual(JSON.parse(text));
      expect(await direct(b)).toBe(text);
    });

    it("is how the transport reads a JSON answer: no web stream is made for it", async () => {
      let made = 0;
      const toWeb = (s: never) => {
        made++;
        return modules!.stream.Readable.toWeb(s);
      };
      const counting = nodeHttp({ ...modules!, stream: { Readable: { toWeb } } }, { env: {} });
      handler = (_q, _b, res) => {
        res.setHeader("content-type", "application/json");
        res.end(text);
      };
      const transport = new Transport({ baseUrl: base });
      // The transport's HTTP is the platform's; the counting adapter stands in for it over the same request.
      const a = await counting({ url: `${base}/op`, method: "POST", headers: {}, body: "{}", signal: new AbortController().signal });
      expect(await direct(a)).toBe(text);
      expect(made).toBe(0);
      const result = await transport.call(testOperation({ path: "/op" }), { body: {} });
      expect(result.kind === "json" && result.body).toEqual(JSON.parse(text));
      // The control: asking for the Response makes one.
      (await counting({ url: `${base}/`, method: "GET", headers: {}, body: undefined, signal: new AbortController().signal })).response();
      expect(made).toBe(1);
    });

    it("closes the connection of a gzip answer dropped before its end (too large for the transport)", async () => {
      let closed = false;
      const rows = gzipSync(Buffer.from(JSON.stringify({ rows: Array.from({ length: 50_000 }, (_, i) => ({ i, s: `${i * 7919}` })) })));
      handler = (req, _b, res) => {
        req.socket.once("close", () => {
          closed = true;
        });
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.write(rows.subarray(0, rows.length / 2)); // and the rest never comes
      };
      const transport = new Transport({ baseUrl: base, maxResponseBytes: 1024 });
      await expect(transport.call(testOperation({ path: "/op" }), { body: {} })).rejects.toBeInstanceOf(ResponseTooLargeError);
      await vi.waitFor(() => expect(closed).toBe(true), { timeout: 2000 });
    });

    it("closes the connection of an answer dropped unread", async () => {
      let closed = false;
      handler = (req, _b, res) => {
        req.socket.once("close", () => {
          closed = true;
        });
        res.writeHead(200, { "content-length": "100000" });
        res.write("x".repeat(1000)); // and the rest never comes
      };
      (await send(`${base}/`)).drop();
      await vi.waitFor(() => expect(closed).toBe(true), { timeout: 2000 });
    });

    it("keeps the connection of a whole gzip answer for the next request", async () => {
      const sockets = new Set<unknown>();
      handler = (req, _b, res) => {
        sockets.add(req.socket);
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end(gzipSync(Buffer.from(text)));
      };
      for (let i = 0; i < 3; i++) expect(await direct(await send(`${base}/`))).toBe(text);
      expect(sockets.size).toBe(1);
    });
  });
});

describe("an agent of the caller's, and the environment's proxies", () => {
  it("sends every request through the agent given (client certificates, socket limits, a proxy agent)", async () => {
    let used = 0;
    class CountingAgent extends Agent {
      override createConnection(...args: Parameters<Agent["createConnection"]>) {
        used++;
        return super.createConnection(...args);
      }
    }
    handler = (_q, _b, res) => {
      res.setHeader("content-type", "application/json");
      res.end("{}");
    };
    const transport = new Transport({ baseUrl: base, agent: new CountingAgent({ keepAlive: true }) });
    for (let i = 0; i < 3; i++) await transport.call(testOperation({ path: "/op" }), { body: {} });
    expect(used).toBe(1); // one connection, kept alive by the caller's agent, for all three
  });

  /** A forward proxy on loopback: absolute-form requests for http, CONNECT tunnels for https; it counts both. */
  async function proxy() {
    const log: string[] = [];
    const p = createServer((req, res) => {
      log.push(`${req.method} ${req.url} auth=${req.headers["proxy-authorization"] ?? "-"}`);
      const target = new URL(req.url!);
      const forward = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      forward.on("error", () => res.destroy());
      req.pipe(forward);
    });
    // Tunnels leave the server's own bookkeeping: they are ended by hand on close.
    const tunnels = new Set<{ destroy(): void }>();
    p.on("connect", (req, socket, head) => {
      tunnels.add(socket);
      log.push(`CONNECT ${req.url} auth=${req.headers["proxy-authorization"] ?? "-"}`);
      const [host, port] = req.url!.split(":");
      // Either side may end first: the other is then ended, never left to fail unheard.
      socket.on("error", () => upstream.destroy());
      const upstream = netConnect(Number(port), host!, () => {
        socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      upstream.on("error", () => socket.destroy());
      tunnels.add(upstream);
    });
    await new Promise<void>((resolve) => p.listen(0, "127.0.0.1", resolve));
    const close = () => {
      for (const t of tunnels) t.destroy();
      p.closeAllConnections();
      return new Promise((r) => p.close(r));
    };
    return { url: `http://user:p%40ss@127.0.0.1:${(p.address() as AddressInfo).port}`, log, close };
  }

  it("sends http requests through HTTP_PROXY in absolute form, with the proxy's credentials, unless NO_PROXY names the host", async () => {
    const p = await proxy();
    try {
      handler = (_q, _b, res) => res.end("via");
      const through = nodeHttp(modules!, { env: { HTTP_PROXY: p.url } });
      const a = await through({ url: `${base}/p?x=1`, method: "GET", headers: {}, body: undefined, signal: new AbortController().signal });
      expect(await direct(a)).toBe("via");
      expect(p.log).toEqual([`GET ${base}/p?x=1 auth=Basic ${Buffer.from("user:p@ss").toString("base64")}`]);
      expect(last().headers.host).toBe(new URL(base).host);
      // The proxy's password is the proxy's: the service gets no Authorization made of it.
      expect(last().headers.authorization).toBeUndefined();
      const exempt = nodeHttp(modules!, { env: { HTTP_PROXY: p.url, NO_PROXY: "localhost, 127.0.0.1" } });
      await direct(await exempt({ url: `${base}/p`, method: "GET", headers: {}, body: undefined, signal: new AbortController().signal }));
      expect(p.log).toHaveLength(1);
    } finally {
      await p.close();
    }
  });

  it("tunnels https requests through HTTPS_PROXY with CONNECT, TLS running to the service itself", { timeout: 30_000 }, async () => {
    // A service with a certificate of its own, trusted by a process started with it as an extra CA.
    const dir = mkdtempSync(join(tmpdir(), "paysys-tls-"));
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=IP:127.0.0.1",
        ],
        { stdio: "ignore" },
      );
      const tls = createHttpsServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (_q, res) => res.end("secret service"));
      await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", resolve));
      const p = await proxy();
      try {
        const child = spawn(process.execPath, ["--input-type=module", "-e", tunnelScript(`https://127.0.0.1:${(tls.address() as AddressInfo).port}/x`)], {
          env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem"), HTTPS_PROXY: p.url, NO_PROXY: "" },
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout!.on("data", (d) => (out += d));
        const killer = setTimeout(() => child.kill(), 15_000);
        await new Promise((r) => child.once("exit", r));
        clearTimeout(killer);
        expect(out.trim()).toBe("secret service");
        expect(p.log).toEqual([`CONNECT 127.0.0.1:${(tls.address() as AddressInfo).port} auth=Basic ${Buffer.from("user:p@ss").toString("base64")}`]);
      } finally {
        await p.close();
        tls.closeAllConnections();
        tls.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A process that fetches `url` through core's default HTTP (built), which reads HTTPS_PROXY from its environment. */
function tunnelScript(url: string): string {
  const core = new URL("../dist/internal/index.js", import.meta.url).pathname;
  return `
    const { Transport } = await import(${JSON.stringify(core)});
    const op = { id: "t.get", method: "get", path: "", security: [], idempotent: true, movesMoney: false, body: false, envelope: { params: "" }, unwrap: { at: [""] }, textAnswer: true };
    const result = await new Transport({ baseUrl: ${JSON.stringify(url)} }).call(op, {});
    console.log(result.body);
    process.exit(0); // the tunnel is kept alive for the next request: nothing else would end the process
  `;
}
