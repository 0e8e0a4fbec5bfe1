// Node only (part of `@paysys/core/node`): how the file store reads and writes its files. A file is
// written whole (a temporary file renamed over the old one), so a process killed at any byte leaves
// the old content or the new; it is read as JSON, and content that is not is a typed error naming it.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { StoreCorruptError } from "./errors.js";

/** Writes `text` to a new temporary file beside `path` (flushed when `durable`), and answers its name. */
function writeTemporary(path: string, text: string, durable: boolean): string {
  const temporary = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const fd = openSync(temporary, "wx", 0o600);
  let written = false;
  try {
    writeSync(fd, text);
    if (durable) fsyncSync(fd);
    written = true;
  } finally {
    closeSync(fd);
    // A write that failed (a full disk) leaves no temporary file: each retry would leave one more.
    if (!written) rmSync(temporary, { force: true });
  }
  return temporary;
}

/**
 * Writes a file whole: a temporary file, flushed when `durable`, renamed over the old one (in a
 * folder made first, when `makeFolder`). `beforeCommit` runs right before the rename, and may refuse
 * it by throwing (the store's lock was lost meanwhile): then nothing is written. A write that fails
 * leaves the old content and no temporary file.
 */
export function writeWhole(path: string, text: string, durable: boolean, makeFolder = false, beforeCommit?: () => void): void {
  if (makeFolder) mkdirSync(dirname(path), { recursive: true });
  const temporary = writeTemporary(path, text, durable);
  try {
    beforeCommit?.();
    renameSync(temporary, path);
  } catch (e) {
    // Refused, or the rename failed: the old content stays, and no temporary file with it.
    rmSync(temporary, { force: true });
    throw e;
  }
}

/**
 * Makes a file whole (a temporary file linked to its name), unless one is there already: answers
 * whether it made it. It is never seen half written, and never written over what another process
 * made meanwhile (a first start, a lock file).
 */
export function createWhole(path: string, text: string, durable: boolean): boolean {
  const temporary = writeTemporary(path, text, durable);
  try {
    linkSync(temporary, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** Flushes a file already written to the disk. */
export function flushFile(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Flushes a folder's entries (a file renamed into it, one removed) to the disk. Where a folder cannot
 * be opened (Windows), the file system keeps them in order itself.
 */
export function flushFolder(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    if (process.platform === "win32") return;
    throw e;
  }
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** What `readJsonOr` answers for a file whose content is not JSON (empty, or cut short by a power cut). */
export const NOT_JSON = Symbol("not JSON");

/** A JSON file, undefined when it does not exist, NOT_JSON when its content is not JSON; a file that cannot be read is a StoreCorruptError naming it. */
export function readJsonOr<T>(file: string): T | undefined | typeof NOT_JSON {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new StoreCorruptError(`the store file ${file} cannot be read: ${(e as Error).message}`, file, { cause: e });
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return NOT_JSON;
  }
}

/** The error for a store file whose content is not JSON. */
export const notJson = (file: string) => new StoreCorruptError(`the store file ${file} is corrupt (its content is not JSON): it was not replaced by a fresh one`, file);

/** A JSON file, or undefined when it does not exist; unreadable content is a StoreCorruptError naming it. */
export function readJson<T>(file: string): T | undefined {
  const value = readJsonOr<T>(file);
  if (value === NOT_JSON) throw notJson(file);
  return value;
}

/** Records read by name, with no prototype: a key such as `constructor` or `__proto__` is a record like any other, never an object's own machinery. */
export const dictionary = <T>(records: Record<string, T>): Record<string, T> => Object.assign(Object.create(null) as Record<string, T>, records);
