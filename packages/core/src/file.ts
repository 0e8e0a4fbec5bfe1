// A file answer (an xlsx report). The body is not read until the caller asks, so a large report
// can be streamed straight to disk (see `saveToFile` in `@paysys/core/node`).
import { InvalidArgumentError } from "./errors.js";

/**
 * A downloaded file: read it whole, or stream it. Its body can be consumed once. A file nobody
 * reads keeps its connection open until the server gives up on it (and the process with it):
 * read it, or `cancel()` it, or declare it with `await using` so it is cancelled when unread.
 */
export class BinaryFile {
  readonly contentType: string;
  /** Byte length, when the server sent Content-Length. */
  readonly size: number | undefined;
  readonly #response: Response;
  readonly #body: ReadableStream<Uint8Array> | null;
  #taken = false;

  constructor(response: Response) {
    this.#response = response;
    // Taken now, not when asked for: over node:http this makes the web body, which pauses the
    // connection of a large file nobody reads (and lets the process exit) as it fills.
    this.#body = response.body;
    this.contentType = response.headers.get("content-type") ?? "application/octet-stream";
    const length = response.headers.get("content-length");
    this.size = length === null ? undefined : Number(length);
  }

  /** The whole file in memory. */
  async bytes(): Promise<Uint8Array> {
    this.#take("bytes");
    return new Uint8Array(await this.#response.arrayBuffer());
  }

  /** The file as a web stream, read as it arrives. */
  stream(): ReadableStream<Uint8Array> {
    this.#take("stream");
    const body = this.#body;
    if (!body) throw new InvalidArgumentError("file.stream", "the file has no body");
    return body;
  }

  /** A file is read once: a second read is refused by name, not a stream's "locked" TypeError. */
  #take(how: string): void {
    if (this.#taken) throw new InvalidArgumentError(`file.${how}`, "the file was read already (once only)");
    this.#taken = true;
  }

  /** Drops the file unread and frees its connection. Harmless once the file was read. */
  async cancel(): Promise<void> {
    const body = this.#body;
    if (body && !body.locked && !this.#response.bodyUsed) await body.cancel();
  }

  /**
   * `await using file = await portal.reports.dealerStatistics(...)`: an unread file is cancelled at
   * the end of the block. The well-known symbol itself (every runtime the SDK supports has it, and
   * `await using` needs it): a bundler drops a class keyed by it when unused, not one keyed by a
   * variable, and core's first layer is one file every client entry reaches (src/first-load.ts).
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.cancel();
  }
}
