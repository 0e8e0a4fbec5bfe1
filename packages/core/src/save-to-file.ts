// Node only (part of `@paysys/core/node`): a download streamed to disk. It is written beside its
// path under a name of its own and renamed at the end, so a download cut off, a full disk or a
// folder that is not there leaves no file at the path that looks like the report.
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { InvalidArgumentError, PaysysError } from "./errors.js";
import type { BinaryFile } from "./file.js";

/**
 * Streams a downloaded file to disk without holding it in memory; resolves with the bytes written.
 * A download that fails is its typed error; a path that cannot be written is an InvalidArgumentError.
 */
export async function saveToFile(file: BinaryFile, path: string): Promise<number> {
  // Taken first: a file read already is refused before anything is written.
  const source = file.stream();
  const part = `${path}.${randomUUID().slice(0, 8)}.part`;
  const out = createWriteStream(part, { flags: "wx" });
  try {
    await pipeline(Readable.fromWeb(source as unknown as NodeReadableStream<Uint8Array>), out);
    await rename(part, path);
    return out.bytesWritten;
  } catch (e) {
    await rm(part, { force: true });
    if (e instanceof PaysysError) throw e;
    throw new InvalidArgumentError("saveToFile", `could not write ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}
