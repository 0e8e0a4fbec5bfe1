// Who holds a lease or began an intent: this program, and whether another one is gone. Node's
// `process` is read through `globalThis`, so browsers (which have none) load this too.
import { randomUuid } from "../ids.js";
import type { Holder } from "../stores.js";
import { bootClock } from "./boot-clock.js";
import { processWide } from "./process-wide.js";

type Proc = { pid?: number; getBuiltinModule?: (name: string) => unknown };

/** The machine's name, where the runtime tells it: Deno refuses it without --allow-sys (NotCapable), and that must not stop a client. */
function hostName(proc: Proc | undefined): string | undefined {
  try {
    return (proc?.getBuiltinModule?.("node:os") as { hostname(): string } | undefined)?.hostname();
  } catch {
    return undefined;
  }
}

let machine: string | undefined | null = null;
/**
 * Where this process's pids mean something: the host name and, on Linux, the pid namespace
 * (`vm#4026531836`). Two containers of one host with host networking share the host name, not their
 * pids: a pid of the other, looked up here, is not its process (and, not found, would read as dead).
 * A holder recorded without it (by an older SDK) is never taken for dead: its lease lapses instead.
 */
export function machineOf(): string | undefined {
  if (machine !== null) return machine;
  const proc = (globalThis as { process?: Proc }).process;
  const host = hostName(proc);
  let ns: string | undefined;
  try {
    ns = (proc?.getBuiltinModule?.("node:fs") as { readlinkSync(path: string): string } | undefined)?.readlinkSync("/proc/self/ns/pid");
  } catch {
    ns = undefined; // not Linux, or not allowed: the host name alone
  }
  const id = ns && /^pid:\[(\d+)\]$/.exec(ns)?.[1];
  machine = host === undefined ? undefined : id ? `${host}#${id}` : host;
  return machine;
}

/**
 * This process's life: one random id, shared by every loaded copy of core (a worker thread has its
 * own). Made at first use: workerd refuses random values while a module loads.
 */
const lives = processWide("life", () => ({ id: undefined as string | undefined }));
const life = () => (lives.id ??= randomUuid().slice(0, 13));

/** This program as a holder: unique among live ones, with what lets a store on this machine tell that it died. */
export function processHolder(id?: string): Holder {
  const proc = (globalThis as { process?: Proc }).process;
  const host = machineOf();
  const pid = proc?.pid;
  // `life` is read (and so made) when the holder is first written or compared, not when a client is made.
  return {
    id: id ?? `${host ?? "browser"}/${pid ?? 0}/${randomUuid().slice(0, 8)}`,
    ...(host ? { host } : {}),
    ...(pid ? { pid } : {}),
    get life() {
      return life();
    },
  };
}

/** True only when the holder ran on this machine in a process that no longer exists. */
export function holderIsGone(holder: Holder): boolean {
  const proc = (globalThis as { process?: Proc & { kill?: (pid: number, signal: number) => void } }).process;
  // Our own pid is never gone: under another life it may be a worker thread of this process (each
  // has a life of its own), not an earlier process that had the pid.
  if (!holder.pid || !holder.host || !proc?.kill || holder.pid === proc.pid) return false;
  if (machineOf() !== holder.host) return false;
  try {
    proc.kill(holder.pid, 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ESRCH";
  }
}

/** The holder as an intent records it: its life read, and its wall clock against the boot's monotonic one now, beside the intent's `sendBy` (boot-clock.ts). */
export function stampedHolder(holder: Holder): Holder {
  // Field by field: a spread of the holder, whose `life` is a getter, takes V8's slow copy (1.2 µs a
  // receipt, against 0.06). The fields and their order are the spread's.
  const { id, host, pid, life } = holder;
  const stamped: Holder = { id };
  if (host !== undefined) stamped.host = host;
  if (pid !== undefined) stamped.pid = pid;
  if (life !== undefined) stamped.life = life;
  const clock = bootClock();
  if (clock) stamped.clock = clock;
  return stamped;
}

/**
 * Whether `holder` is this very process, not only its name: a till started again keeps its name, and
 * may get its pid back, but not its life (a holder recorded without one is never this process).
 */
export function isThisProcess(holder: Holder, self: Holder): boolean {
  return holder.id === self.id && holder.life === self.life && holder.pid === self.pid && holder.host === self.host;
}
