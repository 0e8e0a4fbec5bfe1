// The lock a FileStore's changes are made under, across the processes of one machine: a lock file
// that names its process (host, pid, and when that process started). A lock is taken over at once
// when its process has died, or when its pid now names another process; never while its own
// process lives, however long it holds it: a process frozen inside the lock (a failing disk, a
// paused container) would otherwise write after another took the store over, under a lease fence it
// checked before the freeze. Only a lock whose process this machine cannot see (another host or pid
// namespace, or no /proc) is taken over once older than `staleMs`, and its holder keeps it fresh
// while it lives. Waiting longer than `timeoutMs` is a StoreUnavailableError naming the store.
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StoreUnavailableError } from "./errors.js";
import { holderIsGone, machineOf } from "./internal/holder.js";
import { sleep } from "./internal/retry.js";

/** This machine as far as pids go (host name and pid namespace): a lock is taken over only from a dead process of it. */
const HOST = machineOf() ?? "";

/**
 * When a process of this machine started, as Linux's /proc says (field 22 of its stat, after the
 * command's name, which may hold spaces); undefined elsewhere. With the pid, it names one process's life.
 */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}
const OWN_START = startOf(process.pid) ?? "-";

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

  /** Runs `fn` holding the lock file, kept fresh meanwhile (a long `update` is not taken for abandoned). */
  async holding<T>(fn: () => Promise<T>): Promise<T> {
    const token = await this.#take();
    const fresh = setInterval(() => this.#touch(token), Math.max(20, this.#staleMs / 3));
    (fresh as { unref?: () => void }).unref?.();
    try {
      return await fn();
    } finally {
      clearInterval(fresh);
      this.#drop(token);
    }
  }

  async #take(): Promise<string> {
    const token = `${HOST} ${process.pid} ${OWN_START} ${Math.random().toString(36).slice(2)}`;
    const started = Date.now();
    for (let pause = 1; ; pause = Math.min(pause * 2, 20)) {
      try {
        mkdirSync(dirname(this.#path), { recursive: true });
        const fd = openSync(this.#path, "wx", 0o600);
        try {
          writeSync(fd, token);
        } finally {
          closeSync(fd);
        }
        return token;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST")
          throw new StoreUnavailableError(`the store's lock ${this.#path} cannot be made: ${(e as Error).message}`, this.#store, { cause: e });
      }
      if (this.#isAbandoned()) continue;
      if (Date.now() - started > this.#timeoutMs) {
        throw new StoreUnavailableError(`the store ${this.#store} is locked by another live process (${this.#path}) for more than ${this.#timeoutMs} ms`, this.#store);
      }
      await sleep(pause);
    }
  }

  /** Removes the lock file when its holder is gone (see the top of the file); answers whether it did. */
  #isAbandoned(): boolean {
    let text: string;
    let age: number;
    try {
      text = readFileSync(this.#path, "utf8");
      age = Date.now() - statSync(this.#path).mtimeMs;
    } catch {
      return true; // let go while we looked
    }
    if (!this.#holderIsGone(text, age)) return false;
    try {
      if (readFileSync(this.#path, "utf8") === text) unlinkSync(this.#path);
    } catch {
      // another process took it over first
    }
    return true;
  }

  #holderIsGone(text: string, age: number): boolean {
    const [host, pidText, start] = text.split(" ");
    const pid = Number(pidText);
    if (host === HOST && pid > 0) {
      if (holderIsGone({ id: text, host, pid })) return true;
      const now = start && start !== "-" ? startOf(pid) : undefined;
      if (now !== undefined) return now !== start; // alive: gone only when the pid names another process now
    }
    // A lock being written has no content yet: give its process a moment.
    return text === "" ? age >= 1000 : age >= this.#staleMs;
  }

  /** Marks the lock as still held, while it is ours. */
  #touch(token: string): void {
    try {
      if (readFileSync(this.#path, "utf8") === token) utimesSync(this.#path, new Date(), new Date());
    } catch {
      // gone: the holder's own `#drop` or an error it will meet
    }
  }

  #drop(token: string): void {
    try {
      if (readFileSync(this.#path, "utf8") === token) unlinkSync(this.#path);
    } catch {
      // already gone
    }
  }
}
