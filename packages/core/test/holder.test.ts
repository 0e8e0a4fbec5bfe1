// Whether a holder's process is gone: only when its pid can be looked up where it ran. Two containers
// of one host with host networking share the host name, not their pids; a pid of the other one, not
// found here, must not read as a dead process (a live holder's payment would be resolved, then sent again).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { holderIsGone, processHolder } from "../src/internal/holder.js";

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
