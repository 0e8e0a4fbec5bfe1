// A holder whose thread is blocked by synchronous work for longer than staleLockMs cannot keep its
// lock fresh; another thread of the process (or a process of another pid namespace) may then take it
// over, as it would a dead thread's. The holder checks that the lock is still its own before it
// commits a write: the one that lost it writes nothing, and says so (a review's probe, 2026-11-27:
// both wrote). What it decided meanwhile (a sign-in) may have been done twice; the store's state is
// the new holder's alone.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../src/errors.js";
import { FileStore } from "../src/node.js";

const dist = new URL("../dist/node.js", import.meta.url).href;
const other = `
const { parentPort, workerData } = require("node:worker_threads");
const ctl = new Int32Array(workerData.sab);
import(workerData.dist).then(({ FileStore }) => {
  const store = new FileStore(workerData.path, { staleLockMs: 150, lockTimeoutMs: 5_000 });
  parentPort.once("message", () => {
    void store.update("k", async () => {
      Atomics.store(ctl, 0, 1); // inside the lock
      await new Promise((r) => setTimeout(r, 1_500));
      Atomics.store(ctl, 0, 2);
      return "worker";
    });
  });
  parentPort.postMessage("ready");
});`;

describe("FileStore: a holder thread whose event loop was blocked past staleLockMs", () => {
  it("lost its lock to another thread: its write is refused (StoreUnavailableError), and the store keeps the other's", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "paysys-lock-blocked-")), "store.json");
    const store = new FileStore(path, { staleLockMs: 150, lockTimeoutMs: 5_000 });
    const sab = new SharedArrayBuffer(8);
    const ctl = new Int32Array(sab);
    const w = new Worker(other, { eval: true, workerData: { dist, path, sab } });
    try {
      await new Promise((r) => w.once("message", r));
      const ours = await store
        .update("k", () => {
          w.postMessage("go");
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800); // 800 ms of synchronous work
          return "main";
        })
        .catch((e: Error) => e);
      expect(Atomics.load(ctl, 0)).toBe(1); // the other thread took the lock over while we were blocked
      expect(ours).toBeInstanceOf(StoreUnavailableError);
      expect((ours as Error).message).toMatch(/lost its lock .* this write was not made/);
      while (Atomics.load(ctl, 0) !== 2) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 50));
      expect(store.get("k")).toBe("worker");
    } finally {
      await w.terminate();
    }
  }, 10_000);
});
