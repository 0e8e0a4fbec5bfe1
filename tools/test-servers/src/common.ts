import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export { freePort } from "../../free-port.mjs";

/** A server a test started: where to reach it, and how to stop or restart it (same port, same data). */
export interface RunningServer {
  /** A connection URL (`redis://127.0.0.1:port`, `postgres://user@127.0.0.1:port/db`). */
  url: string;
  port: number;
  /** Stops the server and waits until it has exited; its data stay until `stop`. */
  halt(): Promise<void>;
  /** Starts it again after `halt`, on the same port with the same data. */
  resume(): Promise<void>;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

/** A fresh folder under the system's temporary folder. */
export const temporaryFolder = (what: string) => mkdtempSync(join(tmpdir(), `paysys-${what}-`));
