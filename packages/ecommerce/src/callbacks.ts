// Callbacks: the gateway tells the merchant a transaction's result by POSTing JSON to its
// `callbackUrl`, and sends it again until it is answered `{"accepted": true}`. There is no
// signature (no source shows one), so a callback is trusted only after it has proved itself: a body
// not too large, from an allowed address, with every field the spec requires, for this merchant,
// and (by default) borne out by the status query. Each event is processed once: deliveries are
// remembered in a store, and an event is acknowledged only after your own function succeeded for
// it. The store also keeps each order's last known status, so a callback that cannot follow it
// (paid after refunded) reaches your function flagged, and the status the gateway reported when it
// confirmed the callback comes with it, so one the order has moved past (a "paid" delivered while
// its refund is still being processed) is flagged too.
import { MemoryCallbackStore } from "@paysys/core";
import { type CallbackStore, type LogEvent, RequestValidationError, WebhookError } from "@paysys/core/calls";
import { DEFAULT_INBOUND_MAX_BYTES, harmless, type Inbound, parseInbound, randomUuid, scrub, TIMER_LIMIT_MS } from "@paysys/core/internal";
import { webhooks } from "./generated/operations.js";
import type { CallbacksPaymentEvent } from "./generated/schema.js";
import { canFollow, isKnownStatus } from "./order-status.js";

/** A callback the gateway sent: checked against the spec, from an allowed address. */
export type CallbackEvent = CallbacksPaymentEvent;

/** What your function learns beside the event: where the order stood before it. */
export interface CallbackContext {
  /** The order's last known status before this callback, as the store recorded it (undefined: none yet). */
  previousStatus: number | undefined;
  /**
   * True when this status cannot follow `previousStatus` (e.g. 1 "paid" after 3 "refunded"): a late
   * delivery of an older event, or a forged one. The order's recorded status is not moved back.
   * The transitions are the SDK's own reading (spec `CallbackStatus`); unknown statuses are never flagged.
   */
  impossibleTransition: boolean;
  /**
   * The order's status as the gateway's status query reported it when it confirmed this callback
   * (undefined when confirmation is off: `callbacks.confirm: false`).
   */
  gatewayStatus: number | undefined;
  /**
   * True when the gateway already reports a later status than this callback's (it says 1 "paid", the
   * gateway 3 "refunded"): the event happened, but the order has moved on, so do not act on it as the
   * order's current state (do not ship). Seen even when the later callback has not reached you yet, or
   * is still being processed, which `impossibleTransition` cannot see. Always false without confirmation.
   * It is the gateway's word when it confirmed the callback, just before your function was called: a
   * refund made after that reaches you as its own callback.
   */
  superseded: boolean;
  /**
   * Aborted when this delivery's claim of the event was lost while your function ran (the store
   * could not renew it: another delivery may be processing the event now). The claim is renewed
   * every third of `callbacks.leaseMs`, so this happens only when the store fails or is too slow.
   */
  signal: AbortSignal;
}

/** A callback that passed every check (`callbacks.check`), with what the status query said of its order (see CallbackContext). */
export interface CheckedCallback {
  event: CallbackEvent;
  gatewayStatus: number | undefined;
  superseded: boolean;
}

/** The gateway confirmed the callback with a later status than the callback's own (order-status.ts `confirms`). */
const isSuperseded = (event: CallbackEvent, gatewayStatus: number | undefined) => gatewayStatus !== undefined && gatewayStatus !== event.status;

/** What the status query said of a callback: the order's status there when it bears the callback out, else false. */
export type Confirmation = { gatewayStatus: number } | false;

/** Your function: processes one event. Throw to have the gateway deliver it again. */
export type CallbackProcessor = (event: CallbackEvent, context: CallbackContext) => unknown;

/** Why a callback is not taken, and the HTTP status it is answered with. */
const refusalStatus = {
  /** The body is larger than `maxBodyBytes`: checked first, before anything else is read or trusted. */
  size: 413,
  /** The sender's address is not allowed (or not given). */
  address: 403,
  /** Not JSON, or not what the spec says (a required field missing, a wrong type). */
  body: 400,
  /** The callback's `merchantId` is not the client's. */
  merchant: 403,
  /** The status query does not bear it out (no such transaction, another amount or status). */
  unconfirmed: 400,
  /** The status query could not be asked (the gateway did not answer): it comes again. */
  "confirmation-failed": 503,
} as const;

/**
 * A callback that is not taken: too large, from an address not allowed, not what the spec says,
 * for another merchant, or not borne out by the status query. Nothing in it reached your function.
 */
export class CallbackRefusedError extends WebhookError {
  override name = "CallbackRefusedError";
  readonly reason: keyof typeof refusalStatus;
  /** For `body`, the cause is the WebhookError with the issues the spec's validator found; for `confirmation-failed`, the status query's error. */
  constructor(reason: CallbackRefusedError["reason"], message: string, operation: string, cause?: unknown) {
    super(message, [], { operation, cause });
    this.reason = reason;
  }
  /** The HTTP status a receiver answers this refusal with. */
  get answerStatus(): number {
    return refusalStatus[this.reason];
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
  /**
   * What the store's records of this receiver go under: the gateway and the merchant (core's
   * accountName). Merchants sharing one store have orders and transactions of the same ids: without
   * it, one merchant's processed event acknowledged the other's unprocessed, and one's order status
   * flagged the other's callbacks.
   */
  namespace: string;
  allowedAddresses: readonly string[] | "any";
  maxBodyBytes: number;
  leaseMs: number;
  store: CallbackStore;
  /** The merchant the callbacks must be for (the client's `merchantId`); undefined: not checked. */
  merchantId?: string;
  /**
   * Asks the gateway whether it says the same: the status it reports when it bears the callback out,
   * `false` when it does not; undefined: not asked.
   */
  confirm?: (event: CallbackEvent) => Promise<Confirmation>;
  /** The client's logger: told when the store could not record an event as processed. */
  logger?: (event: LogEvent) => void;
}

/** Largest callback body read by default, in bytes (core's default for every inbound message). */
export const DEFAULT_MAX_BODY = DEFAULT_INBOUND_MAX_BYTES;

/** The addresses callbacks come from by default (spec: the callback's `x-source-ip`). */
export const callbackSources: readonly string[] = webhooks["callbacks.payment"].sources ?? [];

/**
 * Checks one callback without a client: not larger than `maxBodyBytes`, from an allowed address
 * (default `callbackSources`), a body the spec accepts, and, when you pass `merchantId`, for that
 * merchant. Throws a `CallbackRefusedError` otherwise. It cannot ask the status query (that needs
 * the merchant's credentials) and nothing is processed or remembered: to confirm callbacks and
 * process each event once, use a client's `callbacks.handle` or its handlers.
 */
export function parseCallback(
  raw: string | Uint8Array | ArrayBuffer,
  options: ReceiveOptions & { allowedAddresses?: readonly string[] | "any"; maxBodyBytes?: number; merchantId?: string } = {},
): Promise<CallbackEvent> {
  const { allowedAddresses, maxBodyBytes } = (options ?? {}) as { allowedAddresses?: unknown; maxBodyBytes?: unknown };
  const addressesOk = allowedAddresses === undefined || allowedAddresses === "any" || (Array.isArray(allowedAddresses) && allowedAddresses.every((a) => typeof a === "string"));
  if (options === null || typeof options !== "object" || !addressesOk || (maxBodyBytes !== undefined && !(Number.isSafeInteger(maxBodyBytes) && (maxBodyBytes as number) > 0))) {
    const issue = { path: "(options)", message: 'must be an object such as { remoteAddress, allowedAddresses: [...] | "any", maxBodyBytes: a positive integer }' };
    return Promise.reject(new RequestValidationError("parseCallback", [issue]));
  }
  const receiver = createCallbackReceiver(webhooks["callbacks.payment"], {
    namespace: "",
    allowedAddresses: options.allowedAddresses ?? callbackSources,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY,
    leaseMs: 0,
    store: new MemoryCallbackStore(),
    merchantId: options.merchantId,
  });
  return receiver.parse(raw, options);
}

/** IPv4 addresses may come mapped into IPv6 (`::ffff:35.157.105.64`). */
const plainAddress = (a: string) => a.replace(/^::ffff:/i, "").trim();

/** The size of a raw body in bytes (a string is measured as the UTF-8 it arrived as). */
/** Whether a body is over `max` bytes. A string's UTF-8 size is 1 to 3 times its length: most are decided without encoding them. */
function overLimit(raw: string | Uint8Array | ArrayBuffer, max: number): boolean {
  if (typeof raw !== "string") return raw.byteLength > max;
  if (raw.length > max) return true;
  return raw.length * 3 > max && new TextEncoder().encode(raw).byteLength > max;
}

/** The answer to a refusal, or the error itself when it is not one (the receiver's caller sees it). */
function refusalAnswer(e: unknown): CallbackAnswer {
  if (e instanceof CallbackRefusedError) return { status: e.answerStatus, body: { accepted: false } };
  throw e;
}

/** A body that was not read to its end because it passed the limit. */
const TOO_LARGE = Symbol("too large");
type RawBody = string | Uint8Array | ArrayBuffer | typeof TOO_LARGE;

export function createCallbackReceiver(spec: Inbound<CallbackEvent>, options: CallbackReceiverOptions) {
  const allowed = options.allowedAddresses === "any" ? "any" : options.allowedAddresses.map(plainAddress);
  /** An order's name in the store, under the receiver's namespace (the gateway and the merchant). */
  const orderName = (event: CallbackEvent) => `${options.namespace} ${event.orderId}`;
  /**
   * The key of an event, under the same namespace: an order and a status (an order may call back
   * again with another: blocked, then paid, then refunded). Made of what the status query bears out
   * in every answer, so one event has one key however a delivery is dressed: a field the query does
   * not check (`errCode`), or a transaction id an answer may not name, would let one real callback
   * be replayed as new events, each processed again. Two attempts of one order that end alike (two
   * declines) are one event.
   */
  const eventKey = (event: CallbackEvent) => `${options.namespace} order ${event.orderId}:${event.status}`;
  // The callback's own values are quoted as the sender wrote them: a card number in one is cut out (scrub).
  const refuse = (reason: CallbackRefusedError["reason"], message: string, cause?: unknown) =>
    new CallbackRefusedError(reason, `${spec.id}: ${scrub(message, [])}`, spec.id, cause);
  // The event is acknowledged whatever the logger does: an answer other than 200 would bring it again.
  const log = options.logger && harmless(options.logger);

  // Size first: a body too large is refused as such whoever sent it, and nothing of it is parsed.
  function checkSize(raw: RawBody): asserts raw is string | Uint8Array | ArrayBuffer {
    if (raw === TOO_LARGE || overLimit(raw, options.maxBodyBytes)) throw refuse("size", `the body is larger than ${options.maxBodyBytes} bytes`);
  }

  function checkAddress(remoteAddress: string | undefined): void {
    if (allowed === "any") return;
    if (!remoteAddress) throw refuse("address", 'the sender\'s address is needed to check it against the allow-list; pass remoteAddress (or allow "any" and keep confirm on)');
    if (!allowed.includes(plainAddress(remoteAddress))) throw refuse("address", `a callback from ${plainAddress(remoteAddress)}, which is not an allowed address`);
  }

  function checkBody(raw: string | Uint8Array | ArrayBuffer): CallbackEvent {
    try {
      return parseInbound(spec, raw, options.maxBodyBytes);
    } catch (e) {
      throw new CallbackRefusedError("body", (e as Error).message, spec.id, e);
    }
  }

  // The merchant id is not a secret (it is the login the gateway shows on its pages), so it is named.
  function checkMerchant(event: CallbackEvent): void {
    if (options.merchantId !== undefined && event.merchantId !== options.merchantId) {
      throw refuse("merchant", `the callback of transaction ${event.id} is for merchant ${JSON.stringify(event.merchantId)}, not this client's`);
    }
  }

  /** The gateway's status of a confirmed callback's order (undefined: not asked). */
  async function checkConfirmed(event: CallbackEvent): Promise<number | undefined> {
    if (!options.confirm) return undefined;
    let confirmed: Confirmation;
    try {
      confirmed = await options.confirm(event);
    } catch (e) {
      throw refuse("confirmation-failed", `the status query of transaction ${event.id} failed, so the callback cannot be confirmed now: ${(e as Error).message}`, e);
    }
    if (!confirmed) throw refuse("unconfirmed", `the status query does not confirm the callback of transaction ${event.id} (order ${event.orderId}, status ${event.status})`);
    return confirmed.gatewayStatus;
  }

  /** Checks a callback in the order that trusts nothing early; throws a CallbackRefusedError otherwise. Nothing is processed. */
  async function parse(raw: string | Uint8Array | ArrayBuffer, receive: ReceiveOptions = {}): Promise<CallbackEvent> {
    return (await checked(raw, receive)).event;
  }

  /** `parse`, with what the status query said of the order: for processing a callback yourself. */
  async function check(raw: string | Uint8Array | ArrayBuffer, receive: ReceiveOptions = {}): Promise<CheckedCallback> {
    const { event, gatewayStatus } = await checked(raw, receive);
    return { event, gatewayStatus, superseded: isSuperseded(event, gatewayStatus) };
  }

  /** A callback that passed every check, and the gateway's status of its order when it was confirmed. */
  async function checked(raw: RawBody, receive: ReceiveOptions | undefined): Promise<{ event: CallbackEvent; gatewayStatus: number | undefined }> {
    // What the caller passes is checked before anything of the delivery is: a typed error, never a TypeError.
    if (receive !== undefined && (receive === null || typeof receive !== "object")) {
      throw new RequestValidationError("callbacks", [{ path: "(options)", message: "must be an object such as { remoteAddress }" }]);
    }
    receive ??= {};
    if (raw !== TOO_LARGE && typeof raw !== "string" && !(raw instanceof Uint8Array) && !(raw instanceof ArrayBuffer)) {
      throw new RequestValidationError("callbacks", [{ path: "(body)", message: "must be the raw body: a string, a Uint8Array or an ArrayBuffer" }]);
    }
    checkSize(raw);
    checkAddress(receive.remoteAddress);
    const event = checkBody(raw);
    checkMerchant(event);
    return { event, gatewayStatus: await checkConfirmed(event) };
  }

  /** Moves the order's recorded status on, never back: a compare-and-set, read again when another delivery moved it meanwhile. */
  async function advanceOrder(event: CallbackEvent, seen: number | undefined): Promise<void> {
    if (!isKnownStatus(event.status)) return;
    let current = seen;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (current === event.status || !canFollow(current, event.status)) return;
      if (await options.store.recordOrderStatus(orderName(event), event.status, current)) return;
      current = await options.store.orderStatus(orderName(event));
    }
  }

  /** The store failed: the answer says what became of the event, and the logger is told. */
  function storeFailed(what: string, e: unknown): void {
    log?.({
      type: "error",
      operation: "callbacks.handle",
      error: { name: "CallbackStoreError", message: `event ${what}: the store failed: ${e instanceof Error ? e.message : String(e)}` },
    });
  }

  /**
   * Renews a delivery's claim every third of the lease while it processes, so a live delivery's claim
   * never runs out under it (only a dead one's is taken over). A renewal that fails is retried at the
   * next tick; one that finds the claim gone aborts `signal` and is logged: another delivery may be
   * processing the event. So does a claim that no renewal kept: its lease, counted from before the
   * claim or the last renewal that answered, is about to end (the store stalled or unreachable from
   * this process, not from the others: another delivery may take it over from then on).
   */
  function keepClaimed(key: string, token: string, claimedAt: number): { signal: AbortSignal; stop(): void } {
    const lost = new AbortController();
    let renewing = false; // a slow store's renewal is not joined by the next tick's
    let stopped = false; // a renewal answered after the function ended says nothing any more
    const lose = (message: string) => {
      stop();
      log?.({ type: "error", operation: "callbacks.handle", error: { name: "CallbackClaimLost", message: `event ${key}: ${message}; another delivery may process it too` } });
      lost.abort();
    };
    // Ends the claim a little before its lease would, in this process's clock (which started it no later than the store's).
    let lapse: ReturnType<typeof setTimeout> | undefined;
    const heldUntil = (from: number) => {
      clearTimeout(lapse);
      const left = from + options.leaseMs - Math.min(1_000, options.leaseMs / 10) - Date.now();
      lapse = setTimeout(() => lose("this delivery's claim could not be renewed before its lease ran out"), Math.min(TIMER_LIMIT_MS, Math.max(0, left)));
      (lapse as { unref?(): void }).unref?.();
    };
    const renew = async () => {
      if (renewing) return;
      renewing = true;
      const sentAt = Date.now();
      try {
        if (await options.store.renew(key, options.leaseMs, token)) {
          if (!stopped) heldUntil(sentAt);
          return;
        }
        if (!stopped) lose("this delivery's claim ran out while it was processed");
      } catch (e) {
        const message = `event ${key}: its claim could not be renewed (tried again in a moment): ${e instanceof Error ? e.message : String(e)}`;
        log?.({ type: "error", operation: "callbacks.handle", error: { name: "CallbackStoreError", message } });
      } finally {
        renewing = false;
      }
    };
    // A third of the lease, within what a timer can wait (a longer one fires at once, again and again).
    const renewal = setInterval(renew, Math.min(TIMER_LIMIT_MS, Math.max(1, Math.floor(options.leaseMs / 3))));
    (renewal as { unref?(): void }).unref?.();
    heldUntil(claimedAt);
    const stop = () => {
      stopped = true;
      clearInterval(renewal);
      clearTimeout(lapse);
    };
    return { signal: lost.signal, stop };
  }

  /**
   * Receives one delivery: checks it, processes a new event with `process`, and says what to answer.
   * The answer is `accepted: true` only once `process` succeeded for the event (now or before).
   */
  async function handle(raw: string | Uint8Array | ArrayBuffer, receive: ReceiveOptions, process: CallbackProcessor): Promise<CallbackAnswer> {
    return received(raw, receive, process);
  }

  async function received(raw: RawBody, receive: ReceiveOptions, process: CallbackProcessor): Promise<CallbackAnswer> {
    checkProcessor(process);
    let event: CallbackEvent;
    let gatewayStatus: number | undefined;
    try {
      ({ event, gatewayStatus } = await checked(raw, receive));
    } catch (e) {
      return refusalAnswer(e);
    }
    const key = eventKey(event);
    const token = randomUuid();
    const claimedAt = Date.now();
    let claim: Awaited<ReturnType<CallbackStore["claim"]>>;
    try {
      claim = await options.store.claim(key, options.leaseMs, token);
    } catch (e) {
      // Not processed, not acknowledged: the gateway sends it again, when the store may answer.
      storeFailed(`${key} (not claimed, not processed)`, e);
      return { status: 503, body: { accepted: false } };
    }
    if (claim === "done") return { status: 200, body: { accepted: true } };
    if (claim === "processing") return { status: 409, body: { accepted: false } };
    let previousStatus: number | undefined;
    const held = keepClaimed(key, token, claimedAt);
    try {
      previousStatus = await options.store.orderStatus(orderName(event));
      const superseded = isSuperseded(event, gatewayStatus);
      await process(event, { previousStatus, impossibleTransition: !canFollow(previousStatus, event.status), gatewayStatus, superseded, signal: held.signal });
    } catch {
      held.stop();
      // This delivery's claim only: once it ran out, another delivery may hold the event. A release
      // the store fails leaves the claim to run out by its lease.
      await options.store.release(key, token).catch((e: unknown) => storeFailed(`${key} (its claim not released)`, e));
      return { status: 500, body: { accepted: false } };
    }
    held.stop();
    // Processed: acknowledged whatever the store says now. A refusal would make the gateway send it
    // again, and once the claim's lease ran out it would be processed twice.
    try {
      await options.store.complete(key);
    } catch (e) {
      storeFailed(`${key} (processed, not recorded as done)`, e);
    }
    try {
      await advanceOrder(event, previousStatus);
    } catch (e) {
      storeFailed(`${key} (processed; order ${event.orderId}'s status not recorded)`, e);
    }
    return { status: 200, body: { accepted: true } };
  }

  /**
   * A handler's answer to one request, never a rejection (a server mounted as the README shows would
   * end on one): a body declared too large or from an address not allowed is refused before a byte of
   * it is read (a sender not allowed cannot hold the request open by trickling it); a body the sender
   * cut off is a 400; a failure of the receiver's own a 500.
   */
  async function answered(
    method: string | undefined,
    length: string | null,
    receive: ReceiveOptions,
    read: () => Promise<RawBody>,
    process: CallbackProcessor,
  ): Promise<CallbackAnswer> {
    // The gateway POSTs its callbacks: another method is no callback, whatever its body.
    if (method !== undefined && method.toUpperCase() !== "POST") return { status: 405, body: { accepted: false } };
    try {
      if (declaredTooLarge(length, options.maxBodyBytes)) return await received(TOO_LARGE, receive, process);
      checkAddress(receive.remoteAddress);
      let raw: RawBody;
      try {
        raw = await read();
      } catch {
        return { status: 400, body: { accepted: false } };
      }
      return await received(raw, receive, process);
    } catch (e) {
      if (e instanceof CallbackRefusedError) return refusalAnswer(e);
      log?.({ type: "error", operation: "callbacks.handle", error: { name: "CallbackReceiverError", message: e instanceof Error ? e.message : String(e) } });
      return { status: 500, body: { accepted: false } };
    }
  }

  /** A handler for web-standard servers (Next.js route handlers, Hono, Bun, Deno): `Request` in, `Response` out. */
  function fetchHandler(process: CallbackProcessor, handlerOptions: { remoteAddress?: (request: Request) => string | undefined } = {}) {
    checkHandlerArguments(process, handlerOptions);
    return async (request: Request, context: ReceiveOptions = {}): Promise<Response> => {
      const receive = { remoteAddress: context.remoteAddress ?? handlerOptions.remoteAddress?.(request) };
      const answer = await answered(request.method, request.headers.get("content-length"), receive, () => readWebBody(request, options.maxBodyBytes), process);
      return new Response(JSON.stringify(answer.body), { status: answer.status, headers: answerHeaders(answer) });
    };
  }

  /**
   * A handler for Node's `http` and for Express (`app.post(path, handler)`). It reads the raw body
   * itself, or takes one a body parser already read.
   */
  function nodeHandler(process: CallbackProcessor, handlerOptions: { remoteAddress?: (request: NodeRequest) => string | undefined } = {}) {
    checkHandlerArguments(process, handlerOptions);
    return async (request: NodeRequest, response: NodeResponse): Promise<void> => {
      const length = request.headers?.["content-length"];
      const receive = { remoteAddress: handlerOptions.remoteAddress?.(request) ?? request.socket?.remoteAddress };
      const answer = await answered(request.method, typeof length === "string" ? length : null, receive, () => rawBody(request, options.maxBodyBytes), process);
      response.statusCode = answer.status;
      for (const [name, value] of Object.entries(answerHeaders(answer))) response.setHeader(name, value);
      response.end(JSON.stringify(answer.body));
    };
  }

  return { parse, check, handle, fetchHandler, nodeHandler };
}

/** The function that processes events is the caller's: a typed error when it is missing, at once, not on the first delivery. */
function checkProcessor(process: unknown): void {
  if (typeof process !== "function") throw new RequestValidationError("callbacks", [{ path: "(process)", message: "must be the function that processes an event" }]);
}

function checkHandlerArguments(process: unknown, handlerOptions: unknown): void {
  checkProcessor(process);
  const remoteAddress = (handlerOptions as { remoteAddress?: unknown } | null)?.remoteAddress;
  if (handlerOptions === null || typeof handlerOptions !== "object" || (remoteAddress !== undefined && typeof remoteAddress !== "function")) {
    throw new RequestValidationError("callbacks", [{ path: "(options)", message: "must be an object such as { remoteAddress: (request) => address }" }]);
  }
}

/** The parts of Node's IncomingMessage the handler uses (Express's request is one). */
export interface NodeRequest extends AsyncIterable<unknown> {
  /** Only POST is a callback (405 otherwise). */
  method?: string;
  socket?: { remoteAddress?: string };
  headers?: { "content-length"?: string | string[] | undefined };
  /** A body a parser already read (Express): raw bytes, text, or parsed JSON. */
  body?: unknown;
}

/** The parts of Node's ServerResponse the handler uses. */
export interface NodeResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/** An answer's headers: JSON, and on a 405 the one method a callback comes by (HTTP asks for it). */
const answerHeaders = (answer: CallbackAnswer): Record<string, string> =>
  answer.status === 405 ? { "content-type": "application/json", allow: "POST" } : { "content-type": "application/json" };

/** A declared length above the limit: refused before a byte of the body is read. */
const declaredTooLarge = (contentLength: string | null, limit: number) => contentLength !== null && Number(contentLength) > limit;

/** Keeps chunks up to a limit; past it, `add` answers false and keeps nothing more. */
function collector(limit: number) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  return {
    add(chunk: unknown): boolean {
      const bytes = typeof chunk === "string" ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
      size += bytes.byteLength;
      if (size > limit) return false;
      chunks.push(bytes);
      return true;
    },
    bytes(): Uint8Array {
      const out = new Uint8Array(size);
      let offset = 0;
      for (const c of chunks) {
        out.set(c, offset);
        offset += c.byteLength;
      }
      return out;
    },
  };
}

async function rawBody(request: NodeRequest, limit: number): Promise<RawBody> {
  const { body } = request;
  if (typeof body === "string" || body instanceof Uint8Array) return body;
  if (body !== undefined && body !== null && typeof body === "object") return JSON.stringify(body);
  const kept = collector(limit);
  // Past the limit the body is not read further.
  for await (const chunk of request) if (!kept.add(chunk)) return TOO_LARGE;
  return kept.bytes();
}

async function readWebBody(request: Request, limit: number): Promise<RawBody> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const kept = collector(limit);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return kept.bytes();
    if (!kept.add(value)) {
      await reader.cancel();
      return TOO_LARGE;
    }
  }
}
