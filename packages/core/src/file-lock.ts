// The lock a FileStore's changes are made under, across the processes of one machine: a lock file
// that names its process. A lock whose process has died is taken over at once (on this machine),
// one older than `staleMs` also; waiting longer than `timeoutMs` for a live one is a
// StoreUnavailableError naming the store.
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StoreUnavailableError } from "./errors.js";
import { holderIsGone, machineOf } from "./internal/holder.js";
import { sleep } from "./internal/retry.js";

/** This machine as far as pids go (host name and pid namespace): a lock is taken over only from a dead process of it. */
const HOST = machineOf() ?? "";

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

  /** Runs `fn` holding the lock file. */
  async holding<T>(fn: () => Promise<T>): Promise<T> {
    const token = await this.#take();
    try {
      return await fn();
    } finally {
      this.#drop(token);
    }
  }

  async #take(): Promise<string> {
    const token = `${HOST} ${process.pid} ${Math.random().toString(36).slice(2)}`;
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

  /** Removes the lock file when its process died (on this machine) or it is older than `staleMs`; answers whether it did. */
  #isAbandoned(): boolean {
    let text: string;
    let age: number;
    try {
      text = readFileSync(this.#path, "utf8");
      age = Date.now() - statSync(this.#path).mtimeMs;
    } catch {
      return true; // let go while we looked
    }
    const [host, pid] = text.split(" ");
    const dead = host === HOST && Number(pid) > 0 && holderIsGone({ id: text, host, pid: Number(pid) });
    // A lock being written has no content yet: give its process a moment.
    if (!dead && (text === "" ? age < 1000 : age < this.#staleMs)) return false;
    try {
      if (readFileSync(this.#path, "utf8") === text) unlinkSync(this.#path);
    } catch {
      // another process took it over first
    }
    return true;
  }

  #drop(token: string): void {
    try {
      if (readFileSync(this.#path, "utf8") === token) unlinkSync(this.#path);
    } catch {
      // already gone
    }
  }
}
