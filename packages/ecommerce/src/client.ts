// `createEcommerceClient`: the generated methods over the shared invoker, with HTTP Basic. What
// the spec cannot say is written here: the merchant id and `demo` filled in, an `orderId` made when
// you give none (a lost answer can only be checked by it), payouts as payments of type 1, the
// gateway's key fetched once a day for the card cryptogram, and callbacks.
import { MemoryCallbackStore } from "@paysys/core";
import { type CallOptions, type ClientJournal, type IdempotencyOptions, NotFoundError, RequestValidationError } from "@paysys/core/calls";
import { accountName, basicScheme, type Check, type Codec, checkClientOptions, defineClient, durationMs, randomUuid, SecretSet } from "@paysys/core/internal";
import type { Client } from "openapi-fetch";
import { type CallbackEvent, type Confirmation, callbackSources, createCallbackReceiver, DEFAULT_MAX_BODY } from "./callbacks.js";
import { encryptCard, importGatewayKey, type PaymentCard, type PayoutCard } from "./card.js";
import { type EcommerceMethods, spec } from "./generated/client.js";
import { cryptogram, servers, webhooks } from "./generated/operations.js";
import type { CreatePaymentResponse, PaymentsCreateParams, paths, TransactionState } from "./generated/schema.js";
import { settings as settingsValidator } from "./generated/settings.js";
import { type EcommerceClientOptions, functionOptionKeys } from "./options.js";
import { confirms } from "./order-status.js";

/** What `payments.create` takes: `merchantId` is the client's, `orderId` is made if you give none, `demo` follows the client. */
export type CreatePaymentParams = Omit<PaymentsCreateParams, "merchantId" | "orderId" | "type"> & { merchantId?: string; orderId?: string };
/** A created payment: the gateway's `id` and `url`, and the `orderId` to reconcile it by. */
export type CreatedPayment = CreatePaymentResponse & { orderId: string };
/** What `payouts.create` takes: a payment's fields, with the card to pay out to as a cryptogram or `{ pan }`. */
export type CreatePayoutParams = Omit<CreatePaymentParams, "customerData"> & {
  customerData?: Omit<NonNullable<PaymentsCreateParams["customerData"]>, "cardData"> & { cardData?: string | PayoutCard };
};

export interface EcommerceClient extends Omit<EcommerceMethods, "payments"> {
  payments: Omit<EcommerceMethods["payments"], "create"> & {
    /**
     * Creates a payment; redirect the buyer to `url`. With `customerData.cardData` (a cryptogram, or
     * a card the client encrypts) or `customerData.cardToken`, the card is given server-to-server.
     * Moves money: journaled, never sent twice under one `idempotencyKey` (pass your order's id). If
     * its answer is lost, the status query tells whether it was created: an AnswerLostError if so,
     * the error itself if not (send it again with the same key), an OutcomeUnknownError while the
     * gateway cannot be asked.
     */
    create(params: CreatePaymentParams, options?: CallOptions & IdempotencyOptions): Promise<CreatedPayment>;
    /** The transaction of an `orderId` (and, if given, gateway `id`), or undefined when the gateway has none. */
    reconcile(orderId: string, id?: string, options?: CallOptions): Promise<TransactionState | undefined>;
  };
  payouts: {
    /** Creates a payout (a payment of `type` 1). Moves money: journaled like `payments.create`. */
    create(params: CreatePayoutParams, options?: CallOptions & IdempotencyOptions): Promise<CreatedPayment>;
  };
  /** The journal of payments, payouts, approvals and cancellations: what became of each key, and `recover()` after a restart. */
  readonly journal: ClientJournal;
  /** Checks a card and encrypts it with the gateway's key (fetched once a day) into a cryptogram. Never store it. */
  encryptCard(card: PaymentCard | PayoutCard): Promise<string>;
  /** Receiving callbacks: parse one, handle one, or mount a handler. */
  callbacks: ReturnType<typeof createCallbackReceiver>;
  /** The low-level openapi-fetch client (same base URL and credentials; no automatic retries). */
  readonly raw: Client<paths>;
}

/** An absolute http or https address: what the gateway, calling from outside, can reach. */
function isAbsoluteHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== "";
  } catch {
    return false;
  }
}

/**
 * `absolute-callback-url` (spec `x-checks`): a relative or schemeless `callbackUrl` can never be
 * called back. The value is never shown: a callback address may carry credentials.
 */
const absoluteCallbackUrl: Check = (input) =>
  input.callbackUrl === undefined || (typeof input.callbackUrl === "string" && isAbsoluteHttpUrl(input.callbackUrl))
    ? []
    : [{ path: "/callbackUrl", message: "must be an absolute http or https address, such as https://shop.example/callbacks (the gateway calls it from outside)" }];

/** A card token shorter than this is no token (the gateway's are long): not taken for a secret. */
const MIN_TOKEN_LENGTH = 8;

/**
 * Creates a client of the online payments gateway.
 *
 * @example
 * const shop = createEcommerceClient({ merchantId: "shop01", password, demo: true });
 * const { url, orderId } = await shop.payments.create({ amount: tiyn("1500.00"), callbackUrl, returnUrl });
 */
export function createEcommerceClient(options: EcommerceClientOptions): EcommerceClient {
  checkClientOptions("createEcommerceClient", options, settingsValidator, functionOptionKeys);
  const secrets = new SecretSet();
  secrets.pin(options.password);
  const baseUrl = options.baseUrl ?? servers[0]!;
  // The gateway's key: fetched as JWK when a card is first encrypted, kept no longer than the spec
  // allows, one fetch for any number of cards at once.
  const keyMaxAge = durationMs(cryptogram.key.cacheMaxAge);
  let key: { value: Promise<CryptoKey>; at: number } | undefined;
  const gatewayKey = () => {
    if (!key || Date.now() - key.at >= keyMaxAge) {
      const at = Date.now();
      const value = methods.publicKey.jwk().then((jwk) => importGatewayKey(jwk as JsonWebKey));
      value.catch(() => {
        if (key?.at === at) key = undefined;
      });
      key = { value, at };
    }
    return key.value;
  };
  const cardCodec: Codec = {
    async encode(value) {
      if (typeof value !== "object" || value === null) return value;
      try {
        return await encryptCard(value as PaymentCard | PayoutCard, await gatewayKey());
      } catch (e) {
        // The card's own issues, one line at the card's place (none of them carries the number or the CVV).
        if (!(e instanceof RequestValidationError)) throw e;
        throw new RangeError(e.issues.map((i) => `${i.path.slice(1) || "the card"} ${i.message}`).join("; "));
      }
    },
  };

  const newOrderId = options.newOrderId ?? randomUuid;
  const { methods, invoker, transport } = defineClient(spec, {
    interface: "ecommerce",
    options,
    baseUrl,
    secrets,
    schemes: { merchantBasic: basicScheme(options.merchantId, options.password) },
    codecs: { "card-cryptogram": cardCodec },
    checks: { "absolute-callback-url": absoluteCallbackUrl },
    journal: { account: options.merchantId },
  });

  async function reconcile(orderId: string, id?: string, callOptions?: CallOptions): Promise<TransactionState | undefined> {
    try {
      return await methods.payments.status({ orderid: orderId, ...(id ? { id } : {}) }, callOptions);
    } catch (e) {
      // "None" only from the gateway's own 404 (its error envelope): a proxy's HTML page, a plain-text
      // or empty 404 says nothing of the order, and read as "none" it would have a lost payment made again.
      if (e instanceof NotFoundError && e.serviceMessage !== undefined) return undefined;
      throw e;
    }
  }

  async function create(params: CreatePaymentParams & { type?: 1 }, callOptions?: CallOptions & IdempotencyOptions): Promise<CreatedPayment> {
    // What is not an object of parameters goes to the invoker as it is, which refuses it by name.
    if (params === null || typeof params !== "object" || Array.isArray(params)) return methods.payments.create(params as never, callOptions) as never;
    const orderId = params.orderId ?? newOrderId();
    // Each default is taken where the parameter is undefined, present or not: `{ demo: order.isTest }`
    // with the flag unset keeps a test client's payments test payments.
    const input = { ...params, demo: params.demo ?? options.demo ?? false, merchantId: params.merchantId ?? options.merchantId, orderId };
    const created = await methods.payments.create(input as PaymentsCreateParams, callOptions);
    return { ...created, orderId };
  }

  /**
   * A callback is borne out when the gateway, asked itself, names the same order (an answer naming
   * none, or another merchant, bears out nothing: a forged callback would pass on a proxy's
   * placeholder), the same transaction where it names one, the same amount, and its status or one
   * the callback's can become. (An answer about another order or transaction the status query
   * refuses itself.)
   */
  async function confirmedByStatusQuery(event: CallbackEvent): Promise<Confirmation> {
    // The callback's card token is a secret the status query does not send: should the gateway's
    // answer echo it, the query's errors and log events cut it out like the client's own secrets.
    // (Not a short one: any sender could make a word of every message a secret.)
    if (typeof event.cardToken === "string" && event.cardToken.length >= MIN_TOKEN_LENGTH) secrets.remember(event.cardToken);
    const state = await reconcile(event.orderId, event.id);
    if (state === undefined || state.orderId !== event.orderId || (state.merchantId !== undefined && state.merchantId !== options.merchantId)) return false;
    // A test payment told as a real one (or the reverse) is not borne out either.
    if (state.demo !== undefined && state.demo !== (event.demo ?? false)) return false;
    const { status } = state;
    if (status === undefined || !confirms(status, event.status)) return false;
    return state.amount === event.amount && (state.id === undefined || state.id === event.id) && { gatewayStatus: status };
  }

  const callbackSettings = options.callbacks ?? {};
  const callbacks = createCallbackReceiver(webhooks["callbacks.payment"], {
    namespace: accountName("ecommerce", baseUrl, options.merchantId),
    allowedAddresses: callbackSettings.allowedAddresses ?? callbackSources,
    maxBodyBytes: callbackSettings.maxBodyBytes ?? DEFAULT_MAX_BODY,
    leaseMs: callbackSettings.leaseMs ?? 60_000,
    store: options.callbackStore ?? new MemoryCallbackStore(),
    merchantId: options.merchantId,
    logger: options.logger,
    // On unless turned off: without a signature, the address is all a callback proves otherwise.
    confirm: callbackSettings.confirm === false ? undefined : confirmedByStatusQuery,
  });

  return {
    ...methods,
    payments: { ...methods.payments, create, reconcile },
    payouts: {
      create: (params, callOptions) =>
        params === null || typeof params !== "object" ? create(params, callOptions) : create({ ...(params as CreatePaymentParams), type: 1 }, callOptions),
    },
    encryptCard: (card) => encryptCard(card, gatewayKey()),
    callbacks,
    journal: invoker.journal!,
    raw: transport.raw,
  };
}
