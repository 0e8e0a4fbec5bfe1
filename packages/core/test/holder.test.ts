// Whether a holder's process is gone: only when its pid can be looked up where it ran. Two containers
// of one host with host networking share the host name, not their pids; a pid of the other one, not
// found here, must not read as a dead process (a live holder's payment would be resolved, then sent again).
// And, from that, how long another process's request (this holder's last life's included) may still land.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { holderIsGone, isThisProcess, processHolder, stampedHolder } from "../src/internal/holder.js";
import { landsUntil, windowEnd } from "../src/internal/landing.js";
import { DEFAULT_LANDING_MS, type Holder, type JournalEntry } from "../src/stores.js";

/** A pid no process has now: one that just exited. */
const deadPid = () => spawnSync(process.execPath, ["-e", ""]).pid!;

describe("holderIsGone", () => {
  it("a holder of this machine whose process has exited is gone; a live one is not", () => {
    const me = processHolder("me");
    expect(holderIsGone({ ...me, pid: deadPid() })).toBe(true);
    expect(holderIsGone(me)).toBe(false);
  });

  it.runIf(existsSync("/proc/self/ns/pid"))("a holder recorded with the host name alone (another pid namespace, or an older SDK) is never taken for dead", () => {
    expect(processHolder("me").host).toMatch(/#\d+$/);
    expect(holderIsGone({ id: "other", host: hostname(), pid: deadPid() })).toBe(false);
    expect(holderIsGone({ id: "other", host: `${hostname()}#1`, pid: deadPid() })).toBe(false);
  });
});

describe("landsUntil: until when another process's request may still land", () => {
  const intent = (holder: Holder): JournalEntry => ({ key: "k", operation: "op", hash: "h", holder, startedAt: Date.now(), sendBy: Date.now() + 40_000, state: "pending" });

  it("this process's own intent: only a window its call noted (none here)", () => {
    const me = processHolder("till");
    expect(landsUntil(intent(me), me, DEFAULT_LANDING_MS)).toBe(0);
  });

  it("the same holder name in another process, alive: the intent's whole window", () => {
    const other = { ...processHolder("till"), pid: process.ppid };
    expect(isThisProcess(other, processHolder("till"))).toBe(false);
    const entry = intent(other);
    expect(landsUntil(entry, processHolder("till"), DEFAULT_LANDING_MS)).toBe(entry.sendBy);
  });

  it("an intent's holder is the holder's fields, its life read, and the clock, as a plain record", () => {
    const me = processHolder("till");
    const stamped = stampedHolder(me);
    const { clock, ...rest } = stamped;
    expect(rest).toEqual({ id: me.id, host: me.host, pid: process.pid, life: me.life });
    expect(Object.keys(stamped)).toEqual(["id", "host", "pid", "life", ...(clock === undefined ? [] : ["clock"])]);
    expect(Object.getOwnPropertyDescriptor(stamped, "life")).toHaveProperty("value", me.life);
    expect(stampedHolder({ id: "bare" })).toEqual(clock === undefined ? { id: "bare" } : { id: "bare", clock: expect.any(String) });
  });

  it.runIf(existsSync("/proc/sys/kernel/random/boot_id"))(
    "a holder of this boot whose wall clock stood two minutes behind ours (ours stepped since): its window on the monotonic clock; of another boot, as stamped",
    () => {
      const me = processHolder("till");
      const stamp = stampedHolder(me).clock!;
      const [boot, offset] = stamp.split(" ");
      const behind = { ...me, pid: process.ppid, life: "earlier", clock: `${boot} ${Number(offset) - 120_000}` };
      const entry = intent(behind);
      // The stamp and the reading each sample two clocks a moment apart: a loaded machine parts them by a few ms (5 seen in CI).
      expect(Math.abs(windowEnd(entry, me) - entry.sendBy - 120_000)).toBeLessThan(50);
      const steady = intent({ ...behind, clock: stamp });
      expect(windowEnd(steady, me)).toBe(steady.sendBy);
      const otherBoot = intent({ ...behind, clock: `another-boot ${Number(offset) - 120_000}` });
      expect(windowEnd(otherBoot, me)).toBe(otherBoot.sendBy);
      // A malformed stamp (no offset: Number("") is 0, decades away) is read as stamped.
      for (const clock of [`${boot} `, `${boot} 0x0`, `${boot}`, `${boot} 1e3`]) {
        const odd = intent({ ...behind, clock });
        expect(windowEnd(odd, me)).toBe(odd.sendBy);
      }
    },
  );

  it("this holder's name and pid under another life (an earlier life given the pid back, or a worker thread): not this process, never gone, whole window", () => {
    const me = processHolder("till");
    const other = { ...me, life: "another-life" };
    expect(isThisProcess(other, me)).toBe(false);
    expect(holderIsGone(other)).toBe(false);
    const entry = intent(other);
    expect(landsUntil(entry, processHolder("till"), DEFAULT_LANDING_MS)).toBe(entry.sendBy);
  });

  it("a pid found gone before an intent began is of an earlier process: found gone afresh for that intent", async () => {
    const gone = { id: "till", host: processHolder("till").host, pid: deadPid() }; // recorded without a life (an older SDK)
    const first = landsUntil(intent(gone), processHolder("till"), DEFAULT_LANDING_MS);
    // 30 ms by the clock the finding is stamped with (a timer may fire a millisecond early by it).
    for (const start = Date.now(); Date.now() - start < 30; ) await new Promise((r) => setTimeout(r, 5));
    const later = landsUntil(intent(gone), processHolder("till"), DEFAULT_LANDING_MS); // intent() begins now, after the first finding
    expect(later - first).toBeGreaterThanOrEqual(30);
  });

  it("a process found gone: 10 s from when this process first found it so, the same at every ask", async () => {
    const gone = { ...processHolder("till"), pid: deadPid() };
    const entry = intent(gone);
    const first = landsUntil(entry, processHolder("till"), DEFAULT_LANDING_MS);
    expect(first - Date.now()).toBeGreaterThan(9_000);
    expect(first - Date.now()).toBeLessThanOrEqual(10_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(landsUntil(entry, processHolder("till"), DEFAULT_LANDING_MS)).toBe(first);
  });
});

describe("windowEnd: until when another host's intent may be under way", () => {
  // Stamped by a clock 30 s behind this one's: by this clock its window ended 10 s ago.
  const behind = (host: string, id: string): JournalEntry => {
    const startedAt = Date.now() - 30_000;
    return { key: `k-${id}`, id, operation: "op", hash: "h", holder: { id: "shop-a", host }, startedAt, sendBy: startedAt + 20_000, state: "pending" };
  };

  it("another host's: its whole window from when this process first saw it pending, the same at every ask", async () => {
    const entry = behind("another-host", "i1");
    const first = windowEnd(entry, processHolder("shop"));
    expect(first - Date.now()).toBeGreaterThan(19_000);
    expect(first - Date.now()).toBeLessThanOrEqual(20_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(windowEnd(entry, processHolder("shop"))).toBe(first);
    expect(landsUntil(entry, processHolder("shop"), DEFAULT_LANDING_MS)).toBe(first);
  });

  it("this host's: its sendBy (one clock)", () => {
    const entry = behind(processHolder("shop").host!, "i2");
    expect(windowEnd(entry, processHolder("shop"))).toBe(entry.sendBy);
  });
});
