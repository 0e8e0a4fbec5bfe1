// Edges of the call path that waits only where it has to (a review of that change found each of
// these broken by it; each case failed before its fix):
// - over node:http, an answer an afterResponse hook looked at is still read (not believed empty);
// - a caller who aborts in the same turn as the call sends nothing;
// - a logger that throws never changes a call: not its outcome, not how often it is sent;
// - a signal a caller's fetch joins with AbortSignal.any is let go after eight uses, with what Node
//   keeps with it;
// - a meter or tracer provider that throws, or a request that is not one, never makes a call throw
//   synchronously;
// - an async logger that fails leaves no unhandled rejection;
// - the escape hatch `raw` ends its attempt's timer when a hook throws.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as otel from "@opentelemetry/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LogEvent, RequestAbortedError } from "../src/index.js";
import { clientTelemetry, createInvoker, Transport } from "../src/internal/index.js";
import { testOperation } from "./operation.js";

const target = { interface: "test", baseUrl: "https://service.test" };
const op = testOperation({ id: "things.get" });
const notInstalled = () => Promise.reject(new Error("Cannot find package '@opentelemetry/api'"));
const ok = (body = '{"ok":1}') => new Response(body, { status: 200, headers: { "content-type": "application/json" } });
/** A `fetch` that answers `body` and counts what was sent. */
function counting(body?: string) {
  const fetch = async () => {
    fetch.sent++;
    return ok(body);
  };
  fetch.sent = 0;
  return fetch;
}

describe("an answer a hook looked at, over node:http", () => {
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        const body = JSON.stringify({ amount: "100.00", ok: true });
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("a JSON answer is read whole when an afterResponse hook looked at it (node:http)", async () => {
    const t = new Transport({ baseUrl: base, hooks: { afterResponse: () => {} } });
    const result = await t.call(testOperation({ id: "t.json" }), {});
    expect(result.kind === "json" && result.body).toEqual({ amount: "100.00", ok: true });
  });

  it("a text answer is not believed empty when an afterResponse hook looked at it (node:http)", async () => {
    const t = new Transport({ baseUrl: base, hooks: { afterResponse: () => {} } });
    const result = await t.call(testOperation({ id: "t.text", textAnswer: true }), {});
    expect(result.kind === "json" && result.body).toBe(JSON.stringify({ amount: "100.00", ok: true }));
  });
});

describe("an abort in the same turn as the call", () => {
  const op = testOperation({ id: "pay.create", idempotent: false });

  it("an abort in the same tick as the call sends nothing", async () => {
    const fetch = counting("{}");
    const transport = new Transport({ baseUrl: "http://sandbox.test", fetch });
    const { invoke } = createInvoker({ transport, operations: { [op.id]: op } });
    const controller = new AbortController();
    const p = invoke(op, { amount: 1 }, { signal: controller.signal });
    controller.abort();
    const e = await p.catch((x: unknown) => x);
    expect(fetch.sent).toBe(0);
    expect(e).toBeInstanceOf(RequestAbortedError);
    expect((e as RequestAbortedError).outcomeUnknown).toBe(false);
  });
});

describe("a logger that throws", () => {
  it.each([
    ["pay.create", false],
    ["things.get", true],
  ])("never changes %s (idempotent: %s): sent once, its answer given", async (id, idempotent) => {
    const events: LogEvent["type"][] = [];
    const fetch = counting('{"paid":true}');
    const t = new Transport({
      baseUrl: "http://sandbox.test",
      fetch,
      logger: (e) => {
        events.push(e.type);
        throw new Error("log sink down");
      },
    });
    const result = await t.call(testOperation({ id, idempotent }), { body: { amount: 1 } });
    expect(result.kind === "json" && result.body).toEqual({ paid: true });
    expect(fetch.sent).toBe(1);
    expect(events).toEqual(["request", "response"]);
  });
});

describe("a signal joined by a caller's fetch", () => {
  it("a signal a caller's fetch joins with AbortSignal.any is not reused without end", async () => {
    const uses = new Map<AbortSignal, number>();
    const t = new Transport({
      baseUrl: "http://sandbox.test",
      fetch: async (_url: string, init: RequestInit) => {
        const signal = init.signal!;
        uses.set(signal, (uses.get(signal) ?? 0) + 1);
        const joined = AbortSignal.any([signal, new AbortController().signal]);
        joined.addEventListener("abort", () => {});
        return new Response('{"ok":1}', { status: 200, headers: { "content-type": "application/json", "content-length": "8" } });
      },
    });
    for (let i = 0; i < 200; i++) await t.call(testOperation(), {});
    const most = Math.max(...uses.values());
    const last = [...uses.keys()].at(-1)!;
    const dependants = (last as unknown as Record<symbol, Set<unknown> | undefined>)[Object.getOwnPropertySymbols(last).find((s) => String(s) === "Symbol(kDependantSignals)")!];
    expect({ most, dependantsKept: dependants?.size }).toEqual({ most: expect.toSatisfy((n: number) => n <= 8), dependantsKept: expect.toSatisfy((n: number) => n <= 8) });
  });
});

describe("a meter provider that throws", () => {
  it("a meter provider that throws never makes a call throw synchronously", async () => {
    const meterProvider = {
      getMeter: () => {
        throw new Error("meter broken");
      },
    };
    const telemetry = clientTelemetry({ api: otel, meterProvider } as never, target, notInstalled);
    const transport = new Transport({ baseUrl: target.baseUrl, fetch: async () => new Response("{}", { headers: { "content-type": "application/json" } }) });
    const { invoke } = createInvoker({ transport, operations: { [op.id]: op }, telemetry });
    await invoke(op, {}).catch(() => {}); // the api's load settled: the next call is the synchronous path
    let p: Promise<unknown> | undefined;
    expect(() => {
      p = invoke(op, {});
    }).not.toThrow();
    await p?.catch(() => {});
  });
});

describe("a tracer provider that throws", () => {
  it("never makes a call throw synchronously", async () => {
    const fails = () => {
      throw new Error("no delegate configured");
    };
    const telemetry = clientTelemetry({ tracerProvider: { getTracer: fails, getDelegate: fails } } as never, target, notInstalled);
    await new Promise((r) => setTimeout(r, 0)); // the (failed) api load is over
    const transport = new Transport({ baseUrl: target.baseUrl, fetch: async () => ok() });
    const { invoke } = createInvoker({ transport, operations: { [op.id]: op }, telemetry });
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = invoke(op, {});
    }).not.toThrow();
    await expect(promise).rejects.toThrow("no delegate configured");
  });
});

describe("Transport.send", () => {
  it("answers a rejected promise, never a throw, for a request that is not one", async () => {
    const t = new Transport({ baseUrl: "http://sandbox.test", fetch: async () => ok() });
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = t.send(undefined as never);
    }).not.toThrow();
    await expect(promise).rejects.toBeInstanceOf(TypeError);
  });
});

describe("an async logger that fails", () => {
  it("leaves no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const on = (e: unknown) => unhandled.push(e);
    process.on("unhandledRejection", on);
    try {
      const logger = async () => {
        throw new Error("log sink down");
      };
      const t = new Transport({ baseUrl: "http://sandbox.test", fetch: async () => ok(), logger });
      expect(await t.call(testOperation(), {})).toMatchObject({ kind: "json", body: { ok: 1 } });
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off("unhandledRejection", on);
    }
    expect(unhandled).toEqual([]);
  });
});

describe("the escape hatch raw", () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const throws = () => {
    throw new Error("hook");
  };
  it.each([
    ["beforeRequest", { beforeRequest: throws }],
    ["afterResponse", { afterResponse: throws }],
  ])("a %s hook that throws leaves no attempt timer armed", async (_name, hooks) => {
    const t = new Transport({ baseUrl: "http://sandbox.test", timeoutMs: 600_000, fetch: async () => ok(), hooks });
    const before = timers();
    const error = await (t.raw as unknown as { POST(path: string, init: object): Promise<unknown> }).POST("/x", { body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(timers()).toBe(before);
  });
});
