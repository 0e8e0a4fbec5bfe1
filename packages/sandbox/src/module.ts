// What an interface of the sandbox is: a module with its own state and routes under its own
// prefix. The server knows nothing about any interface; a new one joins by being listed.

/** One request, as a module sees it: the path is relative to the module's prefix. */
export interface SandboxRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body (the server refuses bodies over its size limit). */
  body: string;
  /** The caller's address, as the socket reports it. */
  remoteAddress: string;
}

/** One answer: JSON, or raw bytes (a file, a page). */
export type SandboxAnswer = { status: number; headers?: Record<string, string> } & ({ json: unknown } | { body: Uint8Array | string; contentType: string });

/** The sandbox's own time: every module reads it, tests move it (`sandbox.clock.advance(ms)`). */
export class SandboxClock {
  #offset = 0;
  /** Milliseconds since the epoch, sandbox time. */
  now(): number {
    return Date.now() + this.#offset;
  }
  /** Moves sandbox time forward (tokens and requests expire as if that time had passed). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError("the clock only moves forward");
    this.#offset += ms;
  }
}

/** What every module is given when the sandbox starts. */
export interface ModuleContext {
  clock: SandboxClock;
  /** The sandbox's root address, e.g. http://127.0.0.1:43121 (known once it listens). */
  url: () => string;
}

export interface SandboxModule {
  /** Short name; control endpoints live under `/__sandbox/<name>/`. */
  readonly name: string;
  /** URL prefix of the interface, e.g. `/portal`. */
  readonly prefix: string;
  handle(request: SandboxRequest): Promise<SandboxAnswer>;
  /** Control endpoints for tests and demos (not part of any interface); undefined: no such endpoint. */
  control?(path: string, request: SandboxRequest): Promise<SandboxAnswer | undefined>;
  /** Lines for the command's banner: where the interface listens and how to sign in. */
  describe?(url: string): string[];
  /** Stops what the module started (timers, outgoing deliveries). */
  close?(): Promise<void>;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): SandboxAnswer => ({ status, json: body, ...(headers ? { headers } : {}) });

/** Waits that a closing sandbox can drop all at once (a pending wait then never resolves). */
export class Timers {
  readonly #pending = new Set<ReturnType<typeof setTimeout>>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#pending.delete(timer);
        resolve();
      }, ms);
      this.#pending.add(timer);
    });
  }

  clear(): void {
    for (const timer of this.#pending) clearTimeout(timer);
    this.#pending.clear();
  }
}
