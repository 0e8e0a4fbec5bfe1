// The machine's monotonic clock, which every process of one boot shares (Linux: CLOCK_MONOTONIC,
// Node's `hrtime`), unlike the wall clock, which NTP or a person may step. An intent's holder is
// stamped with how its wall clock stood against it when the intent's `sendBy` was (`Holder.clock`,
// read anew for every intent: a step while the process ran moves later stamps with it); a process
// of the same boot reads that `sendBy` on the monotonic clock, so a wall clock stepped since (a till
// started again after NTP set its clock forward) cannot end a window early: a request still at the
// service would have read as never sent.
import { processWide } from "./process-wide.js";

type Proc = { hrtime?: { bigint(): bigint }; getBuiltinModule?: (name: string) => unknown };

const proc = () => (globalThis as { process?: Proc }).process;
const monotonicMs = (p: Proc) => Number(p.hrtime!.bigint() / 1_000_000n);

/** The boot's id (Linux), or undefined where there is none to read. */
function bootId(p: Proc): string | undefined {
  try {
    const fs = p.getBuiltinModule?.("node:fs") as { readFileSync(path: string, encoding: "utf8"): string } | undefined;
    return fs?.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The boot's id, read once per process (null: not read yet). */
const boot = processWide("boot-id", () => ({ id: null as string | undefined | null }));

/** This boot's id, where the monotonic clock can be read too. */
function thisBoot(p: Proc | undefined): string | undefined {
  if (!p?.hrtime?.bigint) return undefined;
  if (boot.id === null) boot.id = bootId(p);
  return boot.id;
}

/** `<boot id> <wall − monotonic ms>` now; undefined off Linux. */
export function bootClock(): string | undefined {
  const p = proc();
  const id = thisBoot(p);
  return id ? `${id} ${Date.now() - monotonicMs(p!)}` : undefined;
}

/** Below this, two readings of one instant differ by the clocks' rounding, not by a step. */
const STEP_MS = 1_000;

/**
 * `wallEnd`, an instant on the wall clock of the holder whose clock is `clock`, on this process's wall
 * clock: by the monotonic clock both share when they ran in one boot, where the wall clock was
 * stepped since by a second or more; undefined when they did not share a boot, or nothing was stepped.
 */
export function onThisClock(clock: string | undefined, wallEnd: number): number | undefined {
  const theirs = clock?.split(" ");
  const ours = thisBoot(proc());
  if (!theirs || !ours || theirs[0] !== ours || theirs.length !== 2 || !/^-?\d{1,16}$/.test(theirs[1]!)) return undefined;
  const offset = Number(theirs[1]);
  const here = Date.now() + (wallEnd - offset - monotonicMs(proc()!));
  return Math.abs(here - wallEnd) < STEP_MS ? undefined : here;
}
