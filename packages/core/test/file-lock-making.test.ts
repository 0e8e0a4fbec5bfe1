// A lock is made whole: its token is written to a file of its own, then linked to the lock's name.
// Before (a review's probe, 2026-11-27), the lock existed empty between its open and its write; a
// waiter removed an empty lock once it was 1 s old, whoever made it, so a live process stalled in
// between (a paused container, a failing disk) lost it, then wrote its token into the unlinked file
// and ran inside the lock beside the waiter. The stall is a writeSync that waits 1.3 s before
// writing the lock's token, in a worker thread.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { FileStore } from "../src/node.js";

const dist = new URL("../dist/node.js", import.meta.url).href;
const stalled = `
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");
const { workerData } = require("node:worker_threads");
const ctl = new Int32Array(workerData.sab);
const real = fs.writeSync;
let stalls = 1;
fs.writeSync = function (fd, data, ...rest) {
  if (stalls > 0 && typeof data === "string" && data.startsWith("paysys-lock-2")) {
    stalls--;
    Atomics.store(ctl, 1, 1); // the lock file exists, empty
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_300); // frozen for 1.3 s
  }
  return real.call(this, fd, data, ...rest);
};
syncBuiltinESMExports();
import(workerData.dist).then(({ FileStore }) => {
  void new FileStore(workerData.path).update("k", async () => {
    Atomics.store(ctl, 0, 1); // inside the lock
    await new Promise((r) => setTimeout(r, 1_000));
    Atomics.store(ctl, 0, 2);
    return "stalled";
  });
});`;

describe("FileStore: a lock being made", () => {
  it("is not taken from a live process: the waiter and the stalled maker are never inside together", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "paysys-lock-making-")), "store.json");
    const store = new FileStore(path, { lockTimeoutMs: 5_000 });
    const sab = new SharedArrayBuffer(8);
    const ctl = new Int32Array(sab);
    const w = new Worker(stalled, { eval: true, workerData: { dist, path, sab } });
    try {
      while (Atomics.load(ctl, 1) === 0) await new Promise((r) => setTimeout(r, 5));
      let together = false;
      await store.update("k", async () => {
        for (let i = 0; i < 40 && !together; i++) {
          together = Atomics.load(ctl, 0) === 1;
          await new Promise((r) => setTimeout(r, 25));
        }
        return "waiter";
      });
      expect({ twoHoldersAtOnce: together }).toEqual({ twoHoldersAtOnce: false });
    } finally {
      await w.terminate();
    }
  }, 10_000);
});
