// A file answer over a real loopback server, on both HTTP adapters: its first bytes are read to check
// the spec's signature and given back ahead of the rest (split or large, byte-exact); waiting for them
// is under the attempt's timeout and the caller's signal; cancel() and the caller's signal end the
// download and its connection (the signal once did nothing after the file was handed over); a
// download cut off is a ConnectionError, never a bare TypeError.
import { getEventListeners } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BinaryFile, ConnectionError, RequestAbortedError, TimeoutError } from "../src/index.js";
import { type CallResult, type OperationSpec, Transport } from "../src/internal/index.js";

const fileOf = (r: CallResult): BinaryFile => {
  if (r.kind !== "file") throw new Error("not a file");
  return r.file;
};

const op: OperationSpec = {
  id: "reports.x",
  method: "get",
  path: "/f",
  security: [],
  idempotent: true,
  movesMoney: false,
  body: false,
  envelope: { params: "", code: "/code", message: "/message" },
  unwrap: { at: [""] },
  binaryWhen: { format: "xlsx" },
  fileSignature: "504b0304",
} as OperationSpec;

let url = "";
const closed: string[] = [];
const big = Buffer.concat([Buffer.from([0x50, 0x4b, 3, 4]), Buffer.from(Array.from({ length: 3_000_000 }, (_, i) => (i * 7919) % 251))]);
let server: ReturnType<typeof createServer>;
beforeAll(async () => {
  server = createServer((req, res: ServerResponse) => {
    const mode = new URL(req.url!, "http://x").searchParams.get("m");
    res.on("close", () => closed.push(`${mode}:${res.writableFinished}`));
    res.writeHead(200, { "content-type": "application/octet-stream" });
    if (mode === "split") {
      res.write("P");
      setTimeout(() => res.write("K"), 20);
      setTimeout(() => res.end(Buffer.from([3, 4, 9, 9])), 40);
    } else if (mode === "hang") {
      /* headers, no byte */ res.flushHeaders();
    } else if (mode === "big") res.end(big);
    else if (mode === "broken") {
      res.write(Buffer.from([0x50, 0x4b, 3, 4, 1, 2, 3]));
      setTimeout(() => res.destroy(), 30);
    } else if (mode === "drip") {
      res.write(big.subarray(0, 100));
      const t = setInterval(() => res.write(Buffer.alloc(10)), 20);
      res.on("close", () => clearInterval(t));
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

for (const [name, fetch] of [
  ["node:http", undefined],
  ["fetch", globalThis.fetch],
] as const) {
  const t = () => new Transport({ baseUrl: url, fetch, retry: { baseDelayMs: 1, maxDelayMs: 4, maxRetries: 0 } });
  const call = (m: string, o: Record<string, unknown> = {}) => t().call({ ...op, path: `/f?m=${m}` } as OperationSpec, {}, o, { wantsFile: true });
  describe(name, () => {
    it("re-streams every byte (split signature)", async () => {
      expect([...(await fileOf(await call("split")).bytes())]).toEqual([0x50, 0x4b, 3, 4, 9, 9]);
    });
    it("re-streams a 3 MB file byte-exact", async () => {
      const got = Buffer.from(await fileOf(await call("big")).bytes());
      expect(got.equals(big)).toBe(true);
    });
    it("timeout while waiting for the first bytes is a TimeoutError, not a hang", async () => {
      const e = await call("hang", { timeoutMs: 300 }).catch((x) => x);
      expect(e).toBeInstanceOf(TimeoutError);
    }, 5000);
    it("caller abort while waiting for the first bytes is a RequestAbortedError", async () => {
      const ac = new AbortController();
      setTimeout(() => ac.abort(new Error("stop")), 200);
      const e = await call("hang", { signal: ac.signal, timeoutMs: 10_000 }).catch((x) => x);
      expect(e).toBeInstanceOf(RequestAbortedError);
    }, 5000);
    it("cancel() closes the connection", async () => {
      await fileOf(await call("drip")).cancel();
      await new Promise((res) => setTimeout(res, 300));
      expect(closed).toContain("drip:false");
      closed.length = 0;
    }, 5000);
    it("the caller's signal still ends the download once the file is handed over", async () => {
      const ac = new AbortController();
      const reader = fileOf(await call("drip", { signal: ac.signal, timeoutMs: 10_000 }))
        .stream()
        .getReader();
      await reader.read();
      ac.abort(new Error("stop"));
      const outcome = await Promise.race([
        (async () => {
          for (;;) {
            const x = await reader.read();
            if (x.done) return "done";
          }
        })().catch(() => "errored"),
        new Promise((res) => setTimeout(() => res("still streaming"), 1000)),
      ]);
      await reader.cancel().catch(() => {});
      expect(outcome).toBe("errored");
    }, 5000);
    it("a download cut off mid-file is a ConnectionError, and leaves no listener on the caller's signal", async () => {
      const ac = new AbortController();
      const before = getEventListeners(ac.signal, "abort").length;
      const e = await fileOf(await call("broken", { signal: ac.signal }))
        .bytes()
        .catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ConnectionError);
      expect(getEventListeners(ac.signal, "abort").length).toBe(before);
      // Without a signature or a signal too (a file operation the spec gives no signature).
      const unsigned = await new Transport({ baseUrl: url, fetch })
        .call({ ...op, fileSignature: undefined, path: "/f?m=broken" }, {}, {}, { wantsFile: true })
        .then((r) => fileOf(r).bytes())
        .catch((x: unknown) => x);
      expect(unsigned).toBeInstanceOf(ConnectionError);
      const whole = new AbortController();
      await fileOf(await call("split", { signal: whole.signal })).bytes();
      expect(getEventListeners(whole.signal, "abort").length).toBe(0);
    });
  });
}
