// FileStore's lock (file-lock.ts) against holders that are not what they seem, and against waiters
// that race to take over a dead one's lock (two reviews' probes, 2026-11-27).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { machineOf } from "../src/internal/holder.js";
import { FileStore } from "../src/node.js";

const folder = () => mkdtempSync(join(tmpdir(), "paysys-lock-"));
const holderFixture = new URL("./fixtures/store-holder.mjs", import.meta.url).pathname;
const workerFixture = new URL("./fixtures/lock-worker.mjs", import.meta.url).pathname;
/** The message of an update that did not get the lock within 3 s (the holder's lock stale after 200 ms), or undefined. */
const updateFails = (path: string) =>
  new FileStore(path, { staleLockMs: 200, lockTimeoutMs: 3_000 })
    .update("after", () => "ok")
    .then(
      () => undefined,
      (e: Error) => e.message,
    );
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean, ms = 10_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await sleep(20);
  }
}

// Waiters that all find a dead process's lock: each reads it as abandoned, but only one at a time may
// remove it (the takeover lock). Before, one waiter's removal could hit the lock another waiter had
// just made, two tills held the store's lock at once, and both took one register's lease. Worker
// threads stand in for the tills: they race on the file exactly as processes do.
const racer = new URL("./fixtures/lease-racer.mjs", import.meta.url).pathname;

describe("FileStore's lock and holders that are not what they seem", () => {
  // A holder that died but was not reaped (a zombie: its parent does not wait(), e.g. a shell that
  // exec'd into something else, a container whose PID 1 is not an init) is "alive" to kill(pid, 0)
  // and keeps its /proc/<pid>/stat, start time included: its state (Z) says it is gone.
  it("a lock left by a process that died (a zombie not yet reaped) is taken over", async () => {
    const path = join(folder(), "store.json");
    // sh starts the holder in the background, then becomes `sleep`, which never reaps it.
    const sh: ChildProcess = spawn("sh", ["-c", `"${process.execPath}" "${holderFixture}" lock "${path}" 200 & exec sleep 60`], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      let out = "";
      sh.stdout!.on("data", (d) => (out += d));
      await waitFor(() => out.includes("ready"));
      const pid = Number(readFileSync(`${path}.lock`, "utf8").split(" ")[2]);
      process.kill(pid, "SIGKILL"); // the holder dies inside the lock
      await waitFor(() => readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z "));
      expect(await updateFails(path)).toBeUndefined();
    } finally {
      sh.kill("SIGKILL");
    }
  }, 30_000);

  // A worker thread shares its process's pid and start time: a worker that dies while holding the
  // lock (an uncaught error, worker.terminate()) leaves a lock that names a live process, its own.
  // The lock also names the thread's life, and another thread's lock is taken over once it was not
  // kept fresh for staleLockMs (a live thread keeps it fresh).
  it("a lock left by a worker thread that died inside it is taken over (by its own process)", async () => {
    const path = join(folder(), "store.json");
    const worker = new Worker(workerFixture, { workerData: { path } });
    worker.on("error", () => {});
    await new Promise<void>((resolve) => worker.once("message", () => resolve()));
    await new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    expect(existsSync(`${path}.lock`)).toBe(true); // the dead thread's lock is still there
    expect(await updateFails(path)).toBeUndefined();
  }, 30_000);

  // A lock of the earlier format (`host pid random`), from a live process running the earlier
  // version during an upgrade, is judged as that version judged it (by its age), never read as the
  // new format: its random part would be a start time that never matches, and it would be taken
  // over at once while its process still writes.
  it("a lock written by the previous patch release for a live process is not taken over at once", async () => {
    const path = join(folder(), "store.json");
    const live = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      await sleep(100);
      writeFileSync(`${path}.lock`, `${machineOf() ?? ""} ${live.pid} ${Math.random().toString(36).slice(2)}`);
      const started = Date.now();
      const err = await new FileStore(path, { staleLockMs: 30_000, lockTimeoutMs: 1_500 })
        .update("after", () => "ok")
        .then(
          () => undefined,
          (e: Error) => e,
        );
      // Expected: still waiting for the live holder when lockTimeoutMs runs out.
      expect({ tookOverAfterMs: err ? "never" : Date.now() - started }).toEqual({ tookOverAfterMs: "never" });
    } finally {
      live.kill("SIGKILL");
    }
  }, 30_000);

  it("after a till dies holding the lock, one register's lease is taken by one till only", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "paysys-lock-race-")), "store.json");
    const ns = /\d+/.exec(readlinkSync("/proc/self/ns/pid"))![0];
    const deadLock = `${hostname()}#${ns} 4000000 1 deadholder`; // a pid above pid_max: never alive
    const rounds = 600;
    const tills = 3;
    const sab = new SharedArrayBuffer(8);
    const ctl = new Int32Array(sab);
    const workers = Array.from({ length: tills }, (_, index) => new Worker(racer, { workerData: { path, sab, rounds, index } }));
    const results = workers.map(
      (w) =>
        new Promise<[number, unknown][]>((resolve, reject) => {
          w.once("message", resolve);
          w.once("error", reject);
        }),
    );
    for (let r = 1; r <= rounds; r++) {
      writeFileSync(`${path}.lock`, deadLock); // a till killed inside the store
      Atomics.store(ctl, 0, r);
      Atomics.notify(ctl, 0);
      while (Atomics.load(ctl, 1) < r * tills) await new Promise((res) => setTimeout(res, 1));
    }
    const won = new Map<number, number>();
    for (const list of await Promise.all(results)) for (const [r] of list) won.set(r, (won.get(r) ?? 0) + 1);
    await Promise.all(workers.map((w) => w.terminate()));
    const doubly = [...won].filter(([, n]) => n > 1).map(([r]) => r);
    expect({ leasesHeldByTwoTills: doubly.length }).toEqual({ leasesHeldByTwoTills: 0 });
    expect(won.size).toBeGreaterThan(rounds / 2); // the race was run: most rounds had a winner
  }, 60_000);
});
