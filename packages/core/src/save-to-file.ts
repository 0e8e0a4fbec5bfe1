// Node only (part of `@paysys/core/node`): a download streamed to disk.
import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { BinaryFile } from "./file.js";

/** Streams a downloaded file to disk without holding it in memory; resolves with the bytes written. */
export async function saveToFile(file: BinaryFile, path: string): Promise<number> {
  const out = createWriteStream(path);
  await pipeline(Readable.fromWeb(file.stream() as unknown as NodeReadableStream<Uint8Array>), out);
  return out.bytesWritten;
}
