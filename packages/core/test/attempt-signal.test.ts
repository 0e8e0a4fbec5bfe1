// An attempt's signal fires on its own timeout or its caller's abort, and nothing else: a
// controller that serves another attempt carries no earlier attempt's timer or caller, an aborted
// one never serves again, one whose body was cut at the limit never serves again (a clone may still
// read it), a caller who aborted while the steps waited gets nothing sent, and Node's own fetch over
// many calls leaves no listener warning.
import { getEventListeners, once } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BadRequestError, RequestAbortedError, TimeoutError } from "../src/index.js";
import { attemptSignal, isTimeout } from "../src/internal/attempt-signal.js";
import { type OperationSpec, Transport } from "../src/internal/index.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const op: OperationSpec = {
  id: "test.op",
  method: "post",
  path: "/op",
  security: [],
  idempotent: false,
  movesMoney: false,
  body: true,
  envelope: { params: "", code: "/code" },
  unwrap: { at: ["/result"] },
};

describe("attemptSignal", () => {
  it("fires with a timeout reason after its time, and for the caller's abort with the caller's reason", async () => {
    const timed = attemptSignal(10, undefined);
    await sleep(40);
    expect(timed.signal.aborted).toBe(true);
    expect(isTimeout(timed.signal.reason)).toBe(true);

    const caller = new AbortController();
    const joined = attemptSignal(10_000, caller.signal);
    caller.abort("stop");
    expect(joined.signal.reason).toBe("stop");
    joined.end(true);
  });

  it("serves the next attempt after a clean end, without the earlier attempt's timer or caller", async () => {
    const caller = new AbortController();
    const first = attemptSignal(20, caller.signal);
    first.end(true);
    const second = attemptSignal(10_000, undefined);
    expect(second.signal).toBe(first.signal);
    caller.abort("the first attempt's caller");
    await sleep(50); // past the first attempt's timeout
    expect(second.signal.aborted).toBe(false);
    second.end(true);
  });

  it("never serves again once aborted, once ended unread, or after eight uses; ends once", () => {
    const aborted = attemptSignal(10_000, undefined);
    const caller = new AbortController();
    const joined = attemptSignal(10_000, caller.signal);
    caller.abort();
    joined.end(true);
    expect(attemptSignal(10_000, undefined).signal).not.toBe(joined.signal);
    aborted.end(false);
    expect(attemptSignal(10_000, undefined).signal).not.toBe(aborted.signal);
    const already = new AbortController();
    already.abort("before");
    expect(attemptSignal(10_000, already.signal).signal.reason).toBe("before");

    const signals = new Set<AbortSignal>();
    for (let i = 0; i < 16; i++) {
      const a = attemptSignal(10_000, undefined);
      signals.add(a.signal);
      a.end(true);
    }
    expect(signals.size).toBe(2);

    // Ending twice must not free the controller twice: two attempts at once never share it.
    const twice = attemptSignal(10_000, undefined);
    twice.end(true);
    twice.end(true);
    const a = attemptSignal(10_000, undefined);
    const b = attemptSignal(10_000, undefined);
    expect(a.signal).not.toBe(b.signal);
    a.end(true);
    b.end(true);
  });
});

describe("attempt signals over Node's fetch", () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  afterEach(() => process.off("warning", onWarning));

  it("many calls leave at most eight listeners on a signal and no warning, and a slow answer after quick ones still times out", async () => {
    process.on("warning", onWarning);
    let slow = false;
    const signals = new Set<AbortSignal>();
    const server = createServer((_, res) => {
      if (slow) return; // never answers
      res.setHeader("content-type", "application/json");
      res.end('{"code":0,"result":{"ok":true}}');
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const transport = new Transport({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      // Node's own fetch (undici, which leaves a listener on each signal until it is collected), not the default node:http.
      fetch: (url, init) => {
        signals.add(init!.signal!);
        return globalThis.fetch(url, init);
      },
      timeoutMs: 10_000, // a loaded CI machine took over 200 ms for a quick call; the slow call below sets its own
    });
    try {
      for (let i = 0; i < 200; i++) expect(await transport.call(op, {})).toMatchObject({ kind: "json", body: { code: 0, result: { ok: true } } });
      expect(signals.size).toBeGreaterThanOrEqual(200 / 8);
      expect(Math.max(...[...signals].map((signal) => getEventListeners(signal, "abort").length))).toBeLessThanOrEqual(8);
      slow = true;
      await expect(transport.call(op, {}, { timeoutMs: 200 })).rejects.toBeInstanceOf(TimeoutError);
      await sleep(20); // a warning is emitted on a later turn
      expect(warnings.map((w) => w.name)).not.toContain("MaxListenersExceededWarning");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

/** A server on a free port: `/op` as `answer` says, anything else never answered. Counts `/op` hits. */
async function serve(answer: (res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    if (req.url !== "/op") return;
    seen.hits++;
    answer(res);
  });
  const seen = {
    hits: 0,
    url: "",
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  seen.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return seen;
}

describe.each([
  ["node:http", undefined],
  ["Node's fetch", (u: string, i?: RequestInit) => globalThis.fetch(u, i)],
])("an error body cut at the limit, over %s", (_, fetch) => {
  it("is still read whole by a hook's clone when a later call times out", async () => {
    // 512 KiB in 16 KiB pieces, well past the 64 KiB read of an error body.
    const s = await serve(async (res) => {
      res.writeHead(400, { "content-type": "text/plain" });
      for (let i = 0; i < 32; i++) {
        res.write("x".repeat(16 * 1024));
        await sleep(5);
      }
      res.end();
    });
    let kept: Promise<number> | undefined;
    const t = new Transport({
      baseUrl: s.url,
      fetch,
      timeoutMs: 60,
      hooks: {
        afterResponse: ({ response }) => {
          kept = response
            .clone()
            .arrayBuffer()
            .then((b) => b.byteLength);
        },
      },
    });
    try {
      await expect(t.call(op, {}, { timeoutMs: 5_000 })).rejects.toBeInstanceOf(BadRequestError);
      await expect(t.call({ ...op, path: "/hang" }, {})).rejects.toBeInstanceOf(TimeoutError);
      await expect(kept).resolves.toBe(512 * 1024);
    } finally {
      s.close();
    }
  });
});

it("a caller who aborts while a step waits (a token renewed) gets nothing sent", async () => {
  const s = await serve((res) => res.end('{"code":0,"result":1}'));
  const t = new Transport({ baseUrl: s.url });
  const caller = new AbortController();
  const renewing = { headerNames: [], present: () => sleep(30) };
  try {
    const call = t.call(op, {}, { signal: caller.signal }, { steps: [renewing] });
    await sleep(5);
    caller.abort(new Error("cancel"));
    const error = await call.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestAbortedError);
    expect(error).toMatchObject({ attempts: 0, outcomeUnknown: false });
    expect(s.hits).toBe(0);
  } finally {
    s.close();
  }
});
