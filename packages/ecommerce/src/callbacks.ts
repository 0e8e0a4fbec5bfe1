// Callbacks: the gateway tells the merchant a transaction's result by POSTing JSON to its
// `callbackUrl`, and sends it again until it is answered `{"accepted": true}`. There is no
// signature (no source shows one), so a callback is trusted by where it comes from (an allow-list
// of addresses) and, if you ask, by confirming it with the status query. Each event is processed
// once: deliveries are remembered in a store, and an event is acknowledged only after your own
// function succeeded for it.
import { type LogEvent, WebhookError } from "@paysys/core";
import { DEFAULT_INBOUND_MAX_BYTES, type Inbound, parseInbound } from "@paysys/core/internal";
import { webhooks } from "./generated/operations.js";
import type { CallbacksPaymentEvent } from "./generated/schema.js";

/** A callback the gateway sent: checked against the spec, from an allowed address. */
export type CallbackEvent = CallbacksPaymentEvent;

/**
 * Where deliveries are remembered so that each event is processed once, across restarts and
 * processes if the store is shared. Over a database: `claim` is an insert that fails on a
 * duplicate key (and takes over a row whose lease ran out), `complete` marks the row done, `release`
 * deletes it.
 */
export interface CallbackStore {
  /**
   * Claims an event for processing. `"new"`: yours to process now; `"processing"`: another delivery
   * holds it (answer "not accepted", the gateway sends it again); `"done"`: processed before.
   */
  claim(key: string, leaseMs: number): Promise<"new" | "processing" | "done">;
  /** The event was processed. */
  complete(key: string): Promise<void>;
  /** Processing failed: the next delivery may try again. */
  release(key: string): Promise<void>;
}

/**
 * Remembers deliveries in this process, every processed event for the life of the process (a late
 * duplicate must still be recognised; the gateway does not say how long it retries). A long-running
 * server should use a store over its database.
 */
export class MemoryCallbackStore implements CallbackStore {
  readonly #entries = new Map<string, { done: boolean; until: number }>();
  async claim(key: string, leaseMs: number): Promise<"new" | "processing" | "done"> {
    const entry = this.#entries.get(key);
    if (entry?.done) return "done";
    if (entry && entry.until > Date.now()) return "processing";
    this.#entries.set(key, { done: false, until: Date.now() + leaseMs });
    return "new";
  }
  async complete(key: string): Promise<void> {
    this.#entries.set(key, { done: true, until: Number.POSITIVE_INFINITY });
  }
  async release(key: string): Promise<void> {
    this.#entries.delete(key);
  }
}

/** A callback that is not taken: from an address not allowed, not what the spec says, or not confirmed by the status query. */
export class CallbackRefusedError extends WebhookError {
  override name = "CallbackRefusedError";
  readonly reason: "address" | "body" | "unconfirmed";
  /** For `body`, the cause is the WebhookError with the issues the spec's validator found. */
  constructor(reason: CallbackRefusedError["reason"], message: string, operation: string, cause?: unknown) {
    super(message, [], { operation, cause });
    this.reason = reason;
  }
}

/** What a receiver answers: an HTTP status and the acknowledgement the gateway reads. */
export interface CallbackAnswer {
  status: number;
  body: { accepted: boolean };
}

export interface ReceiveOptions {
  /** The address the request came from (the socket's; behind a proxy you trust, the one it reports). */
  remoteAddress?: string;
}

export interface CallbackReceiverOptions {
  allowedAddresses: readonly string[] | "any";
  maxBodyBytes: number;
  leaseMs: number;
  store: CallbackStore;
  /** Asks the gateway whether it says the same; undefined: not asked. */
  confirm?: (event: CallbackEvent) => Promise<boolean>;
  /** The client's logger: told when the store could not record an event as processed. */
  logger?: (event: LogEvent) => void;
}

/** Largest callback body read by default, in bytes (core's default for every inbound message). */
export const DEFAULT_MAX_BODY = DEFAULT_INBOUND_MAX_BYTES;

/** The addresses callbacks come from by default (spec: the callback's `x-source-ip`). */
export const callbackSources: readonly string[] = webhooks["callbacks.payment"].sources ?? [];

/**
 * Checks one callback without a client: from an allowed address (default `callbackSources`), a
 * body the spec accepts. Throws a `CallbackRefusedError` otherwise. Nothing is processed or
 * remembered: to process each event once, use a client's `callbacks.handle` or its handlers.
 */
export function parseCallback(
  raw: string | Uint8Array | ArrayBuffer,
  options: ReceiveOptions & { allowedAddresses?: readonly string[] | "any"; maxBodyBytes?: number } = {},
): Promise<CallbackEvent> {
  const receiver = createCallbackReceiver(webhooks["callbacks.payment"], {
    allowedAddresses: options.allowedAddresses ?? callbackSources,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    leaseMs: 0,
    store: new MemoryCallbackStore(),
  });
  return receiver.parse(raw, options);
}

/** IPv4 addresses may come mapped into IPv6 (`::ffff:35.157.105.64`). */
const plainAddress = (a: string) => a.replace(/^::ffff:/i, "").trim();

/** The key of an event: the same transaction may call back again with another status (blocked, then paid, then refunded). */
const eventKey = (e: CallbackEvent) => `${e.id}:${e.status ?? ""}:${e.errCode ?? ""}`;

export function createCallbackReceiver(spec: Inbound<CallbackEvent>, options: CallbackReceiverOptions) {
  /** Checks where a callback comes from and what it says; throws a WebhookError otherwise. Nothing is processed. */
  async function parse(raw: string | Uint8Array | ArrayBuffer, receive: ReceiveOptions = {}): Promise<CallbackEvent> {
    if (options.allowedAddresses !== "any") {
      if (!receive.remoteAddress) {
        throw new CallbackRefusedError(
          "address",
          `${spec.id}: the sender's address is needed to check it against the allow-list; pass remoteAddress (or allow "any" and confirm callbacks)`,
          spec.id,
        );
      }
      if (!options.allowedAddresses.map(plainAddress).includes(plainAddress(receive.remoteAddress))) {
        throw new CallbackRefusedError("address", `${spec.id}: a callback from ${plainAddress(receive.remoteAddress)}, which is not an allowed address`, spec.id);
      }
    }
    let event: CallbackEvent;
    try {
      event = parseInbound(spec, raw, options.maxBodyBytes);
    } catch (e) {
      throw new CallbackRefusedError("body", (e as Error).message, spec.id, e);
    }
    if (options.confirm && !(await options.confirm(event))) {
      throw new CallbackRefusedError("unconfirmed", `${spec.id}: the status query does not confirm the callback of transaction ${event.id}`, spec.id);
    }
    return event;
  }

  /**
   * Receives one delivery: checks it, processes a new event with `process`, and says what to answer.
   * The answer is `accepted: true` only once `process` succeeded for the event (now or before).
   */
  async function handle(raw: string | Uint8Array | ArrayBuffer, receive: ReceiveOptions, process: (event: CallbackEvent) => unknown): Promise<CallbackAnswer> {
    let event: CallbackEvent;
    try {
      event = await parse(raw, receive);
    } catch (e) {
      if (e instanceof CallbackRefusedError) return { status: e.reason === "address" ? 403 : 400, body: { accepted: false } };
      throw e;
    }
    const key = eventKey(event);
    const claim = await options.store.claim(key, options.leaseMs);
    if (claim === "done") return { status: 200, body: { accepted: true } };
    if (claim === "processing") return { status: 409, body: { accepted: false } };
    try {
      await process(event);
    } catch {
      await options.store.release(key);
      return { status: 500, body: { accepted: false } };
    }
    try {
      await options.store.complete(key);
    } catch (e) {
      // Processed, but not recorded as done. Acknowledged all the same: a refusal would make the
      // gateway send it again, and once the claim's lease ran out it would be processed twice.
      options.logger?.({
        type: "error",
        operation: "callbacks.handle",
        error: { name: "CallbackStoreError", message: `event ${key} was processed; the store could not record it: ${e instanceof Error ? e.message : String(e)}` },
      });
    }
    return { status: 200, body: { accepted: true } };
  }

  /** A handler for web-standard servers (Next.js route handlers, Hono, Bun, Deno): `Request` in, `Response` out. */
  function fetchHandler(process: (event: CallbackEvent) => unknown, handlerOptions: { remoteAddress?: (request: Request) => string | undefined } = {}) {
    return async (request: Request, context: ReceiveOptions = {}): Promise<Response> => {
      const answer = await handle(new Uint8Array(await request.arrayBuffer()), { remoteAddress: context.remoteAddress ?? handlerOptions.remoteAddress?.(request) }, process);
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: { "content-type": "application/json" } });
    };
  }

  /**
   * A handler for Node's `http` and for Express (`app.post(path, handler)`). It reads the raw body
   * itself, or takes one a body parser already read.
   */
  function nodeHandler(process: (event: CallbackEvent) => unknown, handlerOptions: { remoteAddress?: (request: NodeRequest) => string | undefined } = {}) {
    return async (request: NodeRequest, response: NodeResponse): Promise<void> => {
      const answer = await handle(
        await rawBody(request, options.maxBodyBytes),
        { remoteAddress: handlerOptions.remoteAddress?.(request) ?? request.socket?.remoteAddress },
        process,
      );
      response.statusCode = answer.status;
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(answer.body));
    };
  }

  return { parse, handle, fetchHandler, nodeHandler };
}

/** The parts of Node's IncomingMessage the handler uses (Express's request is one). */
export interface NodeRequest extends AsyncIterable<unknown> {
  socket?: { remoteAddress?: string };
  /** A body a parser already read (Express): raw bytes, text, or parsed JSON. */
  body?: unknown;
}

/** The parts of Node's ServerResponse the handler uses. */
export interface NodeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

async function rawBody(request: NodeRequest, limit: number): Promise<Uint8Array | string> {
  const { body } = request;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body !== undefined && body !== null && typeof body === "object") return JSON.stringify(body);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request) {
    const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
    size += bytes.byteLength;
    // Past the limit the body is not read further; the parser refuses it by its size.
    if (size > limit) return new Uint8Array(limit + 1);
    chunks.push(bytes);
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}
