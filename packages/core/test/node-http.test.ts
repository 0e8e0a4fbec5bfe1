// The default HTTP in Node: a `fetch` over node:http, tested against a real local server for each
// duty `fetch` did for the SDK (lengths, default headers and content decoding, redirects left to
// the transport, the signal ending the request or its body with its own reason, cut-off bodies).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ResponseTooLargeError } from "../src/errors.js";
import { Transport } from "../src/internal/index.js";
import { nodeChunks, nodeHttpFetch, nodeHttpModules } from "../src/internal/node-http.js";
import { testOperation } from "./operation.js";

type Handler = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;
let handler: Handler = (_q, _b, res) => res.end();
let server: Server;
let base = "";
const seen: { method?: string; headers: IncomingMessage["headers"]; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method, headers: req.headers, body: body.toString() });
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
const fetch = nodeHttpFetch(modules!);
const last = () => seen[seen.length - 1]!;
class Marker extends Error {}
/** Reads a body the transport's way, straight from Node. */
async function direct(r: Response): Promise<string> {
  const source = nodeChunks(r);
  if (!source) throw new Error("no direct body");
  const chunks: Uint8Array[] = [];
  for await (const c of source) chunks.push(c);
  return Buffer.concat(chunks).toString();
}

describe("nodeHttpFetch", () => {
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
    const r = await fetch(`${base}/x?a=1`, { method: "POST", headers: { "Content-Type": "application/json", Uid: "u-1" }, body });
    expect(await r.text()).toBe("ok");
    const got = last();
    expect(got.method).toBe("POST");
    expect(got.body).toBe(body);
    expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(got.headers["transfer-encoding"]).toBeUndefined();
    expect(got.headers).toMatchObject({ "content-type": "application/json", uid: "u-1", accept: "*/*", "accept-encoding": "gzip, deflate" });
  });

  it("lets the request's own headers win over the defaults", async () => {
    handler = (_q, _b, res) => res.end();
    await fetch(`${base}/`, { method: "GET", headers: new Headers({ "Accept-Encoding": "identity", "User-Agent": "till/1" }) });
    expect(last().headers).toMatchObject({ "accept-encoding": "identity", "user-agent": "till/1" });
  });

  it("answers status, headers (repeated ones joined) and body", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(201, [
        ["content-type", "application/json"],
        ["x-a", "1"],
        ["x-a", "2"],
        ["uid", "next"],
      ]);
      res.end('{"ok":true}');
    };
    const r = await fetch(`${base}/`, { method: "POST", body: "{}" });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-a")).toBe("1, 2");
    expect(r.headers.get("uid")).toBe("next");
    expect(await r.json()).toEqual({ ok: true });
  });

  it("has no body for a 204", async () => {
    handler = (_q, _b, res) => {
      res.statusCode = 204;
      res.end();
    };
    const r = await fetch(`${base}/`, { method: "DELETE" });
    expect(r.status).toBe(204);
    expect(r.body).toBeNull();
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
    expect(await (await fetch(`${base}/`, { method: "GET" })).text()).toBe(text);
  });

  it("fails the body of a corrupt gzip answer instead of returning garbage", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-encoding": "gzip" });
      res.end(Buffer.from("not gzip at all"));
    };
    const r = await fetch(`${base}/`, { method: "GET" });
    await expect(r.text()).rejects.toThrow();
  });

  it("fails the body of an answer cut off before its declared length", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("only part");
      setTimeout(() => res.socket?.destroy(), 10);
    };
    const r = await fetch(`${base}/`, { method: "GET" });
    await expect(r.text()).rejects.toThrow();
  });

  it("leaves redirects to the transport", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    };
    const before = seen.length;
    const r = await fetch(`${base}/`, { method: "GET" });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe("/elsewhere");
    expect(seen.length).toBe(before + 1); // /elsewhere was not asked for
  });

  it("ends a request whose answer has not come with the signal's reason", async () => {
    handler = () => {}; // never answers
    const controller = new AbortController();
    const pending = fetch(`${base}/`, { method: "POST", body: "{}", signal: controller.signal });
    setTimeout(() => controller.abort(new Marker("time")), 30);
    await expect(pending).rejects.toBeInstanceOf(Marker);
  });

  it("ends a body under way with the signal's reason (a timeout stays a timeout)", async () => {
    handler = (_q, _b, res) => {
      res.writeHead(200, { "content-length": "100" });
      res.write("first part");
    };
    const controller = new AbortController();
    const r = await fetch(`${base}/`, { method: "GET", signal: controller.signal });
    const reader = r.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort(new Marker("time"));
    await expect(reader.read()).rejects.toBeInstanceOf(Marker);
  });

  it("refuses an aborted signal and addresses that are not http(s) before connecting", async () => {
    const before = seen.length;
    const controller = new AbortController();
    controller.abort(new Marker("early"));
    await expect(fetch(`${base}/`, { method: "GET", signal: controller.signal })).rejects.toBeInstanceOf(Marker);
    await expect(fetch("file:///etc/passwd", { method: "GET" })).rejects.toThrow(/http/);
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

  describe("the body, read straight from Node or as a web body", () => {
    const text = JSON.stringify({ Uid: "u-2", rows: [1, 2, 3] });
    const answer = () => {
      handler = (_q, _b, res) => {
        res.setHeader("content-type", "application/json");
        res.end(text);
      };
      return fetch(`${base}/`, { method: "GET" });
    };

    it("gives the transport the Node chunks once, and then counts as used", async () => {
      const r = await answer();
      expect(r.bodyUsed).toBe(false);
      expect(await direct(r)).toBe(text);
      expect(r.bodyUsed).toBe(true);
      expect(nodeChunks(r)).toBeUndefined();
      // Read once: every other reader is refused, never handed an empty body.
      await expect(r.text()).rejects.toThrow(/already read/);
      expect(() => r.clone()).toThrow(TypeError); // as fetch's Response, once its body was consumed
    });

    it.each([
      ["text", (r: Response) => r.text()],
      ["json", async (r: Response) => JSON.stringify(await r.json())],
      ["arrayBuffer", async (r: Response) => Buffer.from(await r.arrayBuffer()).toString()],
      ["blob", async (r: Response) => (await r.blob()).text()],
      ["clone", async (r: Response) => `${await r.clone().text()}|${await r.text()}`],
      ["body", async (r: Response) => new Response(r.body).text()],
    ] as const)("gives the whole body to %s (never the empty one of the base Response)", async (name, read) => {
      const r = await answer();
      expect(r).toBeInstanceOf(Response);
      const got = await read(r);
      expect(got).toBe(name === "clone" ? `${text}|${text}` : text);
      expect(r.bodyUsed).toBe(true);
      // Once the web body is in use, it is the one to read: no second reading straight from Node.
      expect(nodeChunks(r)).toBeUndefined();
    });

    it("fails a direct read of a corrupt gzip body, of a body cut off, and of one whose signal fired", async () => {
      handler = (_q, _b, res) => {
        res.writeHead(200, { "content-encoding": "gzip" });
        res.end(Buffer.from("not gzip at all"));
      };
      await expect(direct(await fetch(`${base}/`, { method: "GET" }))).rejects.toThrow();
      handler = (_q, _b, res) => {
        res.writeHead(200, { "content-length": "100" });
        res.write("only part");
        setTimeout(() => res.socket?.destroy(), 10);
      };
      await expect(direct(await fetch(`${base}/`, { method: "GET" }))).rejects.toThrow();
      handler = (_q, _b, res) => {
        res.writeHead(200, { "content-length": "100" });
        res.write("first part");
      };
      const controller = new AbortController();
      const r = await fetch(`${base}/`, { method: "GET", signal: controller.signal });
      setTimeout(() => controller.abort(new Marker("time")), 20);
      await expect(direct(r)).rejects.toBeInstanceOf(Marker);
    });

    it("is how the transport reads a JSON answer: no web stream is made for it", async () => {
      let made = 0;
      const toWeb = (s: never) => {
        made++;
        return modules!.stream.Readable.toWeb(s);
      };
      const counting = { ...modules!, stream: { Readable: { toWeb } } };
      handler = (_q, _b, res) => {
        res.setHeader("content-type", "application/json");
        res.end(text);
      };
      const transport = new Transport({ baseUrl: base, fetch: nodeHttpFetch(counting) });
      const result = await transport.call(testOperation({ path: "/op" }), { body: {} });
      expect(result.kind === "json" && result.body).toEqual(JSON.parse(text));
      expect(made).toBe(0);
      // The control: reading the same answer as a web body makes one.
      await (await nodeHttpFetch(counting)(`${base}/`, { method: "GET" })).text();
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

    it("keeps the connection of a whole gzip answer for the next request", async () => {
      const sockets = new Set<unknown>();
      handler = (req, _b, res) => {
        sockets.add(req.socket);
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end(gzipSync(Buffer.from(text)));
      };
      for (let i = 0; i < 3; i++) expect(await direct(await fetch(`${base}/`, { method: "GET" }))).toBe(text);
      expect(sockets.size).toBe(1);
    });

    it("decodes a gzip body read directly", async () => {
      handler = (_q, _b, res) => {
        res.writeHead(200, { "content-encoding": "gzip" });
        res.end(gzipSync(Buffer.from(text)));
      };
      expect(await direct(await fetch(`${base}/`, { method: "GET" }))).toBe(text);
    });
  });
});
