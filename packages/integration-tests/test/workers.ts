// What the multi-process tests share (crash.test.ts, fleet.test.ts, cashout.test.ts): a worker
// started as a child process of its own, killed with -9, driven line by line over stdin; the
// beliefs each worker writes (one JSON line per belief); and the judgement of the sandbox's records
// against those beliefs.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createInterface, type Interface } from "node:readline";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export interface Worker {
  child: ChildProcess;
  /** The first line the worker prints, parsed: it is ready (restarted and recovered, listening…). */
  ready: Promise<Record<string, unknown>>;
  exited: Promise<Exit>;
  lines: Interface;
}

/** Starts `node <script> ...args`; stdout is read as JSON lines, stderr kept for the failure message. */
export function startWorker(script: URL, args: string[]): Worker {
  const child = spawn(process.execPath, [script.pathname, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<Exit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal, stderr })));
  const lines = createInterface({ input: child.stdout! });
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    lines.once("line", (line) => resolve(JSON.parse(line)));
    exited.then(({ code, signal, stderr }) => reject(new Error(`the worker ${script.pathname} ended (${code ?? signal}) before it was ready: ${stderr}`)));
  });
  ready.catch(() => {}); // a worker killed before it was ready is the caller's to tell
  return { child, ready, exited, lines };
}

/** Kills the worker with -9 and waits for it to be gone; true when the kill (not its own end) stopped it. */
export async function killHard(worker: Worker): Promise<boolean> {
  worker.child.kill("SIGKILL");
  return (await worker.exited).signal === "SIGKILL";
}

/** Sends one command line to a worker and resolves with the JSON line it answers. */
export function ask<T>(worker: Worker, command: string): Promise<T> {
  return new Promise((resolve) => {
    worker.lines.once("line", (line) => resolve(JSON.parse(line) as T));
    worker.child.stdin!.write(`${command}\n`);
  });
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A random whole number of ms in [min, max). */
export const randomMs = (min: number, max: number) => Math.floor(min + Math.random() * (max - min));

export interface Belief {
  key: string;
  state: string;
}

/** Every belief a worker ever wrote, in order (a key may have several: unknown, then done). */
export const beliefsOf = (path: string): Belief[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Belief)
    : [];

export const tally = (names: string[]) => names.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());

export const clean = { duplicates: 0, believedButNot: 0, doneButBelievedNot: 0, missing: 0 };

/**
 * The sandbox's records against the beliefs. `done`: how many times the service did each key.
 * `stillUnknown`: keys whose outcome nothing could tell yet (they may be anywhere, but must never
 * have been believed either way).
 */
export function judge(all: string[], done: Map<string, number>, beliefs: Belief[], stillUnknown = new Set<string>()) {
  const last = new Map(beliefs.map((b) => [b.key, b.state]));
  const everBelievedDone = new Set(beliefs.filter((b) => b.state === "done").map((b) => b.key));
  return {
    duplicates: [...done.values()].filter((n) => n > 1).length,
    believedButNot: [...everBelievedDone].filter((k) => !done.has(k)).length,
    doneButBelievedNot: [...done.keys()].filter((k) => last.get(k) !== "done" && !stillUnknown.has(k)).length,
    missing: stillUnknown.size > 0 ? 0 : all.filter((k) => !done.has(k) || last.get(k) !== "done").length,
  };
}
