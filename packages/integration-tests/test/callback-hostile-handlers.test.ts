// Proves that the Node and fetch handlers always answer and never reject: mounted as the README shows
// (createServer(shop.callbacks.nodeHandler(fn))), one rejected promise, from a body cut off or a store
// that fails, ends the merchant's process. Also: a sender not allowed cannot hold a request open by
// trickling its body, and a method other than POST (405), never reach the processor.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { MemoryCallbackStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { afterEach, describe, expect, it, vi } from "vitest";
import { merchant } from "./credentials.js";

const M = merchant.merchantId;
const ALLOWED = "35.157.105.64";
const body = (id: string) => JSON.stringify({ id, orderId: `o-${id}`, merchantId: M, amount: 1_000, status: 1, errCode: 0 });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const closers: (() => void)[] = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
});

/** A shop whose callbacks are not confirmed by a status query (nothing answers at its baseUrl). */
const shop = (store: object, allowedAddresses: string[] | "any") =>
  createEcommerceClient({ ...merchant, baseUrl: "http://127.0.0.1:9", callbackStore: store as never, callbacks: { allowedAddresses, confirm: false } });

async function listen(server: ReturnType<typeof createServer>): Promise<number> {
  await once(server.listen(0, "127.0.0.1"), "listening");
  closers.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

interface Outcome {
  settled: boolean;
  rejected?: unknown;
  ended: boolean;
}

/** Mounts the node handler and records, per request, whether its promise settled or rejected and whether an answer was sent. */
async function mount(store: object, fn: () => unknown = () => {}) {
  const h = shop(store, "any").callbacks.nodeHandler(fn);
  const outcomes: Outcome[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const o: Outcome = { settled: false, ended: false };
    outcomes.push(o);
    res.on("finish", () => {
      o.ended = true;
    });
    h(req, res).then(
      () => {
        o.settled = true;
      },
      (e: unknown) => {
        o.settled = true;
        o.rejected = e;
      },
    );
  });
  return { port: await listen(server), outcomes };
}

describe("nodeHandler's promise", () => {
  it("a chunked body cut off by the sender: the handler settles without rejecting", async () => {
    const { port, outcomes } = await mount(new MemoryCallbackStore());
    const s = connect(port, "127.0.0.1");
    await once(s, "connect");
    s.write('POST /cb HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"id":"t-1","ord\r\n');
    await pause(100);
    s.destroy();
    await vi.waitFor(() => expect(outcomes[0]?.settled).toBe(true));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.rejected).toBeUndefined();
  });

  it("a Content-Length body cut off by the sender: the handler settles without rejecting", async () => {
    const { port, outcomes } = await mount(new MemoryCallbackStore());
    const s = connect(port, "127.0.0.1");
    await once(s, "connect");
    s.write('POST /cb HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"id":');
    await pause(100);
    s.destroy();
    await vi.waitFor(() => expect(outcomes[0]?.settled).toBe(true));
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.rejected).toBeUndefined();
  });

  it("the store's claim fails: the handler answers 503 rather than rejecting", async () => {
    const store = new MemoryCallbackStore();
    store.claim = async () => {
      throw new Error("ECONNREFUSED redis://:hunter2@db:6379");
    };
    const { port, outcomes } = await mount(store);
    const r = await fetch(`http://127.0.0.1:${port}/cb`, { method: "POST", body: body("t-2"), signal: AbortSignal.timeout(1_500) });
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ accepted: false });
    expect(outcomes[0]!.rejected).toBeUndefined();
  });

  it("the processor throws and the store's release fails: the handler answers 500 rather than rejecting", async () => {
    const store = new MemoryCallbackStore();
    store.release = async () => {
      throw new Error("store down");
    };
    const { port, outcomes } = await mount(store, () => {
      throw new Error("merchant DB down");
    });
    const r = await fetch(`http://127.0.0.1:${port}/cb`, { method: "POST", body: body("t-3"), signal: AbortSignal.timeout(1_500) });
    expect(r.status).toBe(500);
    expect(await r.json()).toEqual({ accepted: false });
    expect(outcomes[0]!.rejected).toBeUndefined();
  });
});

describe("README mounting: createServer(shop.callbacks.nodeHandler(fn))", () => {
  it("one cut-off request does not end the merchant's process", async () => {
    const code = `
      import { createServer } from "node:http";
      import { connect } from "node:net";
      import { createEcommerceClient } from "@paysys/ecommerce";
      const shop = createEcommerceClient({ merchantId: "shop01", password: "pw-secret", callbacks: { allowedAddresses: "any" } });
      const server = createServer(shop.callbacks.nodeHandler(() => {}));
      server.listen(0, "127.0.0.1", () => {
        const s = connect(server.address().port, "127.0.0.1", () => {
          s.write("POST /cb HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 500\\r\\n\\r\\n{");
          setTimeout(() => s.destroy(), 100);
        });
        setTimeout(() => { process.stdout.write("STILL-ALIVE\\n"); server.close(); }, 800);
      });`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", code], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    const [exit] = await once(child, "exit");
    expect(out).toContain("STILL-ALIVE");
    expect(exit).toBe(0);
  });
});

describe("requests that are not a callback", () => {
  it("a sender that is not allowed, trickling its body, is refused with 403 without waiting for the body", async () => {
    let calls = 0;
    const port = await listen(
      createServer(
        shop(new MemoryCallbackStore(), [ALLOWED]).callbacks.nodeHandler(() => {
          calls++;
        }),
      ),
    );
    const s = connect(port, "127.0.0.1");
    await once(s, "connect");
    let answer = "";
    s.on("data", (d) => {
      answer += d;
    });
    s.write("POST /cb HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n");
    const t0 = Date.now();
    // 10 bytes every 100 ms: the whole body would take over half an hour.
    while (!answer && Date.now() - t0 < 3_000) {
      s.write("a".repeat(10));
      await pause(100);
    }
    s.destroy();
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 403 Forbidden");
    expect(calls).toBe(0);
  });

  it("GET, HEAD, PUT, DELETE and OPTIONS, with a callback's body where they can carry one, are each answered 405 and never reach the processor", async () => {
    let calls = 0;
    const port = await listen(
      createServer(
        shop(new MemoryCallbackStore(), "any").callbacks.nodeHandler(() => {
          calls++;
        }),
      ),
    );
    const answers: Record<string, number> = {};
    for (const method of ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]) {
      const body = JSON.stringify({ id: "t-m1", orderId: "o-m1", merchantId: merchant.merchantId, amount: 5_000, status: 1 });
      const r = await fetch(`http://127.0.0.1:${port}/cb`, { method, ...(method === "PUT" || method === "DELETE" ? { body } : {}) });
      answers[method] = r.status;
    }
    expect(answers).toEqual({ GET: 405, HEAD: 405, PUT: 405, DELETE: 405, OPTIONS: 405 });
    expect(calls).toBe(0);
  });

  it("fetchHandler: a body stream that errors mid-way is answered 400 and never reaches the processor", async () => {
    let calls = 0;
    const h = shop(new MemoryCallbackStore(), [ALLOWED]).callbacks.fetchHandler(() => {
      calls++;
    });
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"id":'));
        setTimeout(() => c.error(new Error("client went away")), 10);
      },
    });
    const req = new Request("http://x/cb", { method: "POST", body: stream, duplex: "half" } as RequestInit);
    const r = await h(req, { remoteAddress: ALLOWED });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ accepted: false });
    expect(calls).toBe(0);
  });
});
