// The lock a FileStore's changes are made under, across the processes (and threads) of one machine:
// a lock file that names its holder — host, pid, when that process started, and the thread's own
// life. A holder keeps its lock fresh (its mtime) while it holds it.
//
// A lock is taken over at once when its process has died (or is a zombie), or when its pid now names
// another process; never while its process lives, however long it holds it: a process frozen inside
// the lock (a failing disk, a paused container) would otherwise write after another took the store
// over, under a lease fence it checked before the freeze. A lock of another thread of this process,
// or of a process this machine cannot see (another host or pid namespace, no /proc), or written by an
// earlier version of this file, is taken over once it was not kept fresh for `staleMs` (a frozen
// process freezes all its threads, this one too). Waiting longer than `timeoutMs` is a
// StoreUnavailableError naming the store.
//
// Taking over is itself done one waiter at a time, under a second lock file (`.takeover`): a waiter
// that read a lock as abandoned must never remove one another waiter has just made. A lock is made
// whole (its text written to a file of its own, then linked to the lock's name), so it is never seen
// empty. A holder checks that the lock is still its own before each write it commits (`assertHeld`):
// one whose thread was blocked past `staleLockMs` and lost it writes nothing.
import { mkdirSync, readFileSync, statSync, unlinkSync, utimesSync } from "node:fs";
import { dirname } from "node:path";
import { StoreUnavailableError } from "./errors.js";
import { createWhole } from "./file-io.js";
import { randomUuid } from "./ids.js";
import { holderIsGone, machineOf } from "./internal/holder.js";
import { sleep } from "./internal/retry.js";

/** This machine as far as pids go (host name and pid namespace). */
const HOST = machineOf() ?? "";
/** What a lock file of this format starts with: an earlier one (`host pid random`) is judged by its age alone. */
const FORMAT = "paysys-lock-2";

/**
 * A process of this machine as Linux's /proc tells it (its stat, after the command's name, which may
 * hold spaces): whether it is a zombie, and when it started (field 22). Undefined without /proc.
 * With the pid, the start names one process's life.
 */
function processOf(pid: number): { zombie: boolean; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { zombie: fields[0] === "Z" || fields[0] === "X", start: fields[19] ?? "" };
  } catch {
    return undefined;
  }
}
const OWN_START = processOf(process.pid)?.start || "-";
/** This thread's life: its locks are told from those of the process's other threads (which share its pid). */
const LIFE = randomUuid().slice(0, 8);

/** A lock file's holder, as its text names it. */
interface LockHolder {
  host: string;
  pid: number;
  /** Undefined for a lock of an earlier format, or made where /proc was not readable. */
  start?: string;
  life?: string;
}

function holderOf(text: string): LockHolder {
  const [format, host = "", pid, start, life] = text.split(" ");
  if (format !== FORMAT) return { host: format ?? "", pid: Number(host) }; // `host pid random`
  return { host, pid: Number(pid), ...(start && start !== "-" ? { start } : {}), life };
}

/** Whether a lock's holder is gone for sure (dead, a zombie, or its pid reused), alive for sure, or unknown to this machine. */
function holderState(holder: LockHolder): "gone" | "alive" | "unknown" {
  if (!HOST || holder.host !== HOST || !(holder.pid > 0)) return "unknown"; // no host name: pids of other machines look alike
  if (holder.pid === process.pid) return holder.life === LIFE && holder.start === OWN_START ? "alive" : "unknown"; // another thread, or an earlier copy of this file
  if (holderIsGone({ id: "", host: holder.host, pid: holder.pid })) return "gone";
  const now = processOf(holder.pid);
  if (now === undefined || holder.start === undefined) return "unknown";
  return now.zombie || now.start !== holder.start ? "gone" : "alive";
}

export class FileLock {
  readonly #path: string;
  readonly #store: string;
  readonly #timeoutMs: number;
  readonly #staleMs: number;

  constructor(store: string, options: { timeoutMs: number; staleMs: number }) {
    this.#store = store;
    this.#path = `${store}.lock`;
    this.#timeoutMs = options.timeoutMs;
    this.#staleMs = options.staleMs;
  }

  /** The token of the lock this FileLock holds now (its store runs one holding at a time per path). */
  #held: string | undefined;

  /** Runs `fn` holding the lock file, kept fresh meanwhile (a long `update` is not taken for abandoned). */
  async holding<T>(fn: () => Promise<T>): Promise<T> {
    const token = await this.#take();
    this.#held = token;
    const fresh = setInterval(() => this.#touch(token), Math.max(1, Math.floor(this.#staleMs / 3)));
    (fresh as { unref?: () => void }).unref?.();
    try {
      return await fn();
    } finally {
      clearInterval(fresh);
      this.#held = undefined;
      this.#drop(this.#path, token);
    }
  }

  /**
   * Throws StoreUnavailableError unless the lock is still this holder's: called right before a
   * write is committed (renamed into place), so a holder that lost the lock writes nothing.
   */
  assertHeld(): void {
    const token = this.#held;
    if (token !== undefined && this.#text(this.#path) === token) return;
    throw new StoreUnavailableError(
      `the store ${this.#store} lost its lock (${this.#path}) while it held it (blocked longer than staleLockMs, ${this.#staleMs} ms?): this write was not made`,
      this.#store,
    );
  }

  async #take(): Promise<string> {
    const token = this.#token();
    const started = Date.now();
    for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
      if (this.#make(this.#path, token)) return token;
      if (this.#takeOver()) continue; // removed an abandoned lock: make ours at once (each removal needs an abandoned lock)
      if (Date.now() - started > this.#timeoutMs) throw this.#stillHeld();
      await sleep(pause);
    }
  }

  #token(): string {
    return `${FORMAT} ${HOST} ${process.pid} ${OWN_START} ${LIFE} ${Math.random().toString(36).slice(2)}`;
  }

  /** Makes `path` holding `token`, whole (file-io's createWhole); false when it exists. */
  #make(path: string, token: string): boolean {
    try {
      mkdirSync(dirname(path), { recursive: true });
      return createWhole(path, token, false);
    } catch (e) {
      throw this.#unusable(path, e);
    }
  }

  #unusable(path: string, e: unknown): StoreUnavailableError {
    return new StoreUnavailableError(`the store's lock ${path} cannot be used: ${(e as Error).message}`, this.#store, { cause: e });
  }

  /**
   * Removes the lock when its holder is gone, under the takeover lock; answers whether it removed
   * one. The takeover lock is held for a few file operations: one left by a holder that died in
   * between is removed by the same rules.
   */
  #takeOver(): boolean {
    const seen = this.#read(this.#path);
    if (seen === undefined || !this.#isGone(seen, this.#staleMs)) return false; // let go while we looked, or held
    const guard = `${this.#path}.takeover`;
    const token = this.#token();
    if (!this.#make(guard, token)) {
      const other = this.#read(guard);
      if (other !== undefined && this.#isGone(other, this.#staleMs)) this.#drop(guard, other.text);
      return false;
    }
    try {
      // Under the takeover lock nobody else removes the lock, and nobody makes one while it exists:
      // the same text is the same lock. Judged again, as its holder may have kept it fresh meanwhile.
      const again = this.#read(this.#path);
      if (again === undefined || again.text !== seen.text || !this.#isGone(again, this.#staleMs)) return false;
      this.#remove(this.#path);
      return true;
    } finally {
      this.#drop(guard, token);
    }
  }

  /** A lock file's text and age; undefined when there is none. One that cannot be read (a folder, another user's) is a StoreUnavailableError. */
  #read(path: string): { text: string; age: number } | undefined {
    try {
      return { text: readFileSync(path, "utf8"), age: Date.now() - statSync(path).mtimeMs };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw this.#unusable(path, e);
    }
  }

  /** Whether a lock (its text and age) is abandoned: its holder is gone, or unknown here and it was not kept fresh for `staleMs`. */
  #isGone({ text, age }: { text: string; age: number }, staleMs: number): boolean {
    const state = holderState(holderOf(text)); // an empty one (an earlier version, mid-write) is unknown: judged by its age
    return state === "gone" || (state === "unknown" && age >= staleMs);
  }

  #stillHeld(): StoreUnavailableError {
    const held = this.#read(this.#path);
    const holder = held && holderOf(held.text);
    const who = holder?.pid === process.pid && holder.host === HOST ? "this process (another thread, or a call that has not let go)" : "another live process";
    return new StoreUnavailableError(`the store ${this.#store} is locked by ${who} (${this.#path}) for more than ${this.#timeoutMs} ms`, this.#store);
  }

  /** A lock file's text, or undefined when it cannot be read (gone). */
  #text(path: string): string | undefined {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  }

  /** Marks the lock as still held, while it is ours. */
  #touch(token: string): void {
    try {
      if (readFileSync(this.#path, "utf8") === token) utimesSync(this.#path, new Date(), new Date());
    } catch {
      // gone: the holder's own `#drop` or an error it will meet
    }
  }

  #remove(path: string): void {
    try {
      unlinkSync(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw this.#unusable(path, e);
    }
  }

  #drop(path: string, token: string): void {
    try {
      if (readFileSync(path, "utf8") === token) unlinkSync(path);
    } catch {
      // already gone
    }
  }
}
