// A lock file that exists but cannot be read (made 0600 by another user's till in a shared folder:
// EACCES; or anything that is not a regular file) is a StoreUnavailableError naming the lock (a
// review's probe, 2026-11-27: it was read as "let go while we looked", and the waiter spun at 100%
// CPU for ever, past its timeout). The waiter runs in a worker thread, so a spin can be stopped.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

const dist = new URL("../dist/node.js", import.meta.url).href;
const waiter = `
const fs = require("node:fs");
const { syncBuiltinESMExports } = require("node:module");
const { parentPort, workerData } = require("node:worker_threads");
if (workerData.eacces) {
  // What a non-root till meets on a lock made (mode 0600) by another user's till: EACCES on read.
  const real = fs.readFileSync;
  fs.readFileSync = function (p, ...rest) {
    if (String(p).endsWith(".lock")) { const e = new Error("EACCES: permission denied, open '" + p + "'"); e.code = "EACCES"; throw e; }
    return real.call(this, p, ...rest);
  };
  syncBuiltinESMExports();
}
import(workerData.dist).then(async ({ FileStore }) => {
  const store = new FileStore(workerData.path, { lockTimeoutMs: 100, staleLockMs: 200 });
  try { await store.update("k", () => "v"); parentPort.postMessage("took the lock"); }
  catch (e) { parentPort.postMessage(e.name); }
});`;

function answerOf(path: string, eacces: boolean): Promise<string> {
  const w = new Worker(waiter, { eval: true, workerData: { dist, path, eacces } });
  return new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve("no answer after 1.5 s (spinning)"), 1_500);
    w.once("message", (m) => {
      clearTimeout(timer);
      resolve(String(m));
    });
    w.once("error", (e) => {
      clearTimeout(timer);
      resolve(`worker error ${e.message}`);
    });
  }).finally(() => w.terminate());
}

describe("FileStore: a lock file that cannot be read", () => {
  it("another user's lock (EACCES on read) is a StoreUnavailableError after lockTimeoutMs, not a spin", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "paysys-lock-unreadable-")), "store.json");
    writeFileSync(`${path}.lock`, "paysys-lock-2 otherhost 1 - life token");
    expect(await answerOf(path, true)).toBe("StoreUnavailableError");
  }, 10_000);

  it("a lock path that is not a file (EISDIR on read) is a StoreUnavailableError, not a spin", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "paysys-lock-unreadable-")), "store.json");
    mkdirSync(`${path}.lock`);
    expect(await answerOf(path, false)).toBe("StoreUnavailableError");
  }, 10_000);
});
