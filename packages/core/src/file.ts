// A file answer (an xlsx report). The body is not read until the caller asks, so a large report
// can be streamed straight to disk (see `saveToFile` in `@paysys/core/node`).

/** A downloaded file: read it whole, or stream it. Its body can be consumed once. */
export class BinaryFile {
  readonly contentType: string;
  /** Byte length, when the server sent Content-Length. */
  readonly size: number | undefined;
  readonly #response: Response;

  constructor(response: Response) {
    this.#response = response;
    this.contentType = response.headers.get("content-type") ?? "application/octet-stream";
    const length = response.headers.get("content-length");
    this.size = length === null ? undefined : Number(length);
  }

  /** The whole file in memory. */
  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.#response.arrayBuffer());
  }

  /** The file as a web stream, read as it arrives. */
  stream(): ReadableStream<Uint8Array> {
    const body = this.#response.body;
    if (!body) throw new TypeError("the file has no body");
    return body;
  }
}
