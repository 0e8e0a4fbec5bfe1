// Who holds a lease or began an intent: this program, and whether another one is gone. Node's
// `process` is read through `globalThis`, so browsers (which have none) load this too.
import { randomUuid } from "../ids.js";
import type { Holder } from "../stores.js";

type Proc = { pid?: number; getBuiltinModule?: (name: string) => unknown };

/** The machine's name, where the runtime tells it: Deno refuses it without --allow-sys (NotCapable), and that must not stop a client. */
function hostName(proc: Proc | undefined): string | undefined {
  try {
    return (proc?.getBuiltinModule?.("node:os") as { hostname(): string } | undefined)?.hostname();
  } catch {
    return undefined;
  }
}

/** This program as a holder: unique among live ones, with what lets a store on this machine tell that it died. */
export function processHolder(id?: string): Holder {
  const proc = (globalThis as { process?: Proc }).process;
  const host = hostName(proc);
  const pid = proc?.pid;
  return { id: id ?? `${host ?? "browser"}/${pid ?? 0}/${randomUuid().slice(0, 8)}`, ...(host ? { host } : {}), ...(pid ? { pid } : {}) };
}

/** True only when the holder ran on this machine in a process that no longer exists. */
export function holderIsGone(holder: Holder): boolean {
  const proc = (globalThis as { process?: Proc & { kill?: (pid: number, signal: number) => void } }).process;
  if (!holder.pid || !holder.host || !proc?.kill || holder.pid === proc.pid) return false;
  if (hostName(proc) !== holder.host) return false;
  try {
    proc.kill(holder.pid, 0);
    return false;
  } catch (e) {
    return (e as { code?: string }).code === "ESRCH";
  }
}
