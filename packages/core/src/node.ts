// Node-only helpers, kept out of the main entry so the clients stay fetch-only for browsers.
import { createWriteStream, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { BinaryFile } from "./file.js";
import type { ChainStore, TokenStore } from "./stores.js";

/** Streams a downloaded file to disk without holding it in memory; resolves with the bytes written. */
export async function saveToFile(file: BinaryFile, path: string): Promise<number> {
  const out = createWriteStream(path);
  await pipeline(Readable.fromWeb(file.stream() as unknown as NodeReadableStream<Uint8Array>), out);
  return out.bytesWritten;
}

export interface FileStoreOptions {
  /** How long to wait for another process's lock before giving up, in ms. Default 10000. */
  lockTimeoutMs?: number;
  /** A lock older than this is taken to belong to a process that died, in ms. Default 30000. */
  staleLockMs?: number;
}

/**
 * A store kept in one JSON file, for processes on one machine: a till program that restarts
 * continues its chains, and processes that share a credential share its token. Every write goes to
 * a temporary file that is then renamed over the store, so a crash never leaves half a file; `update`
 * holds a lock file while it reads, decides and writes, so two processes never both decide.
 */
export class FileStore implements ChainStore, TokenStore {
  readonly path: string;
  readonly #options: Required<FileStoreOptions>;

  constructor(path: string, options: FileStoreOptions = {}) {
    this.path = path;
    this.#options = { lockTimeoutMs: options.lockTimeoutMs ?? 10_000, staleLockMs: options.staleLockMs ?? 30_000 };
    mkdirSync(dirname(path), { recursive: true });
  }

  #read(): Record<string, string> {
    try {
      const parsed = JSON.parse(readFileSync(this.path, "utf8"));
      return parsed !== null && typeof parsed === "object" ? parsed : {};
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return {};
      throw new Error(`the store ${this.path} cannot be read: ${(e as Error).message}`);
    }
  }

  #write(values: Record<string, string>): void {
    const temporary = `${this.path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }

  get(key: string): string | undefined {
    return this.#read()[key];
  }

  async set(key: string, value: string): Promise<void> {
    await this.update(key, () => value);
  }

  /** Reads a key's value, lets `decide` choose the new one (undefined: leave it) and writes it, under the lock. */
  async update(key: string, decide: (current: string | undefined) => string | undefined | Promise<string | undefined>): Promise<string | undefined> {
    return this.withLock(async () => {
      const values = this.#read();
      const next = await decide(values[key]);
      if (next !== undefined && next !== values[key]) this.#write({ ...values, [key]: next });
      return next ?? values[key];
    });
  }

  /** Runs `fn` while holding the store's lock file (one holder across processes). */
  async withLock<T>(fn: () => Promise<T>): Promise<T> {
    const lock = `${this.path}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        const handle = await open(lock, "wx");
        await handle.writeFile(String(process.pid));
        await handle.close();
        break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        let age: number;
        try {
          age = Date.now() - (await stat(lock)).mtimeMs;
        } catch {
          continue; // the holder let go while we looked
        }
        if (age > this.#options.staleLockMs) rmSync(lock, { force: true });
        else if (Date.now() - started > this.#options.lockTimeoutMs) throw new Error(`the store ${this.path} is locked by another process (${lock})`);
        else await new Promise((r) => setTimeout(r, 5 + Math.random() * 20));
      }
    }
    try {
      return await fn();
    } finally {
      rmSync(lock, { force: true });
    }
  }
}
