// Every command the store sends goes through here: bounded by the store's timeout, its failures
// turned into the SDK's typed errors, and scripts sent by their SHA-1 (EVALSHA) with the source only
// when the server does not have them yet (after a restart, or the first time).
import { createHash } from "node:crypto";
import { PaysysError, StoreCorruptError, StoreUnavailableError } from "@paysys/core";
import { withoutUrlCredentials } from "@paysys/core/internal";

/**
 * What the store needs of your client: node-redis v5's `sendCommand`, with an `abortSignal` that
 * withdraws a command not yet written (a timed-out write never runs later), and its `options` to name
 * the server in errors (without credentials).
 */
export interface RedisCommandClient {
  /**
   * Sends one command; a command not yet written when `abortSignal` fires is withdrawn. `typeMapping`
   * replaces the client's own (node-redis merges a command's options over the client's `commandOptions`).
   */
  sendCommand<T = unknown>(args: ReadonlyArray<string>, options?: { abortSignal?: AbortSignal; typeMapping?: Record<string, never> }): Promise<T>;
  /** The options the client was created with: only the address is read, to name the server in errors. */
  readonly options?: { url?: string; socket?: { host?: string; port?: number; path?: string }; database?: number } | undefined;
}

/** The server as errors name it: its address, database and prefix, never a user name or password. */
export function storeName(client: RedisCommandClient, prefix: string): string {
  const options = client.options ?? {};
  let where = "redis";
  if (options.url) {
    try {
      const url = new URL(options.url);
      where = `${url.protocol}//${url.host}${url.pathname.length > 1 ? url.pathname : ""}`;
    } catch {
      where = "redis (unparsable url)";
    }
  } else if (client.options === undefined) {
    // A client that shows no options (node-redis's createClientPool): no address to name, and
    // "localhost:6379" would send an operator to the wrong server.
    where = "redis (address not shown by the client: a client pool?)";
  } else if (options.socket?.path) {
    where = `redis+unix://${options.socket.path}`;
  } else {
    where = `redis://${options.socket?.host ?? "localhost"}:${options.socket?.port ?? 6379}${options.database ? `/${options.database}` : ""}`;
  }
  return `${where} (prefix ${prefix})`;
}

/** node-redis's own decoding: bulk and simple strings as strings, integers as numbers. */
const NO_TYPE_MAPPING: Record<string, never> = {};

const sha1 = (source: string) => createHash("sha1").update(source).digest("hex");

export class Connection {
  readonly #client: RedisCommandClient;
  readonly #timeoutMs: number;
  readonly #shas = new Map<string, string>();
  /** The server as errors name it. */
  readonly name: string;

  constructor(client: RedisCommandClient, name: string, timeoutMs: number) {
    this.#client = client;
    this.name = name;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Runs `work` (one or more commands) within the timeout. On timeout the commands not yet written
   * are withdrawn and StoreUnavailableError names the operation; a refused connection or a closed
   * client is a StoreUnavailableError too; an answer of the wrong type is a StoreCorruptError.
   */
  async run<T>(operation: string, work: (send: <R>(args: string[]) => Promise<R>) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new StoreUnavailableError(`the Redis store ${this.name} did not answer ${operation} within ${this.#timeoutMs} ms`, this.name));
      }, this.#timeoutMs);
    });
    // Text answers whatever the client maps Redis's types to for the app (Buffers, say): the store's
    // scripts answer states ("exists", "done") that a Buffer never equals, and a begin would read as written.
    const send = <R>(args: string[]) => this.#client.sendCommand<R>(args, { abortSignal: controller.signal, typeMapping: NO_TYPE_MAPPING });
    try {
      return await Promise.race([work(send), timedOut]);
    } catch (e) {
      throw this.#typed(operation, e);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Runs a script by its SHA-1, sending its source only when the server answers that it has not got it. */
  async script<R>(send: <T>(args: string[]) => Promise<T>, source: string, keys: string[], args: string[]): Promise<R> {
    const sha = this.#shas.get(source) ?? sha1(source);
    this.#shas.set(source, sha);
    const tail = [String(keys.length), ...keys, ...args];
    try {
      return await send<R>(["EVALSHA", sha, ...tail]);
    } catch (e) {
      if (!(e instanceof Error) || !e.message.startsWith("NOSCRIPT")) throw e;
      return await send<R>(["EVAL", source, ...tail]);
    }
  }

  #typed(operation: string, e: unknown): PaysysError {
    if (e instanceof PaysysError) return e;
    const message = withoutUrlCredentials(e instanceof Error ? e.message : String(e));
    // The server refuses work for now (out of memory, a replica after a failover, a failed save, still
    // loading, a script running too long): unavailable, wherever it came from (a script's too).
    if (/^(OOM|READONLY|MISCONF|LOADING|BUSY|MASTERDOWN|NOREPLICAS|CLUSTERDOWN|TRYAGAIN)\b/.test(message)) {
      return new StoreUnavailableError(`the Redis store ${this.name} failed ${operation}: ${message}`, this.name, { cause: e });
    }
    // The server answered, about data under our prefix that is not what the store writes.
    if (/^WRONGTYPE|user_script|attempt to (compare|perform arithmetic)/.test(message)) {
      return new StoreCorruptError(`the Redis store ${this.name} holds data ${operation} cannot read: ${message}`, this.name, { cause: e });
    }
    return new StoreUnavailableError(`the Redis store ${this.name} failed ${operation}: ${message}`, this.name, { cause: e });
  }
}
