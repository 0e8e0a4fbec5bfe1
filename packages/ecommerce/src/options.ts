// Options of `createEcommerceClient`. The plain-data part is an interface on purpose: the code
// generator turns it into a JSON Schema (typescript-json-schema) and a precompiled validator, so
// options passed from plain JavaScript are checked as strictly as TypeScript checks them.
import type { CallbackStore, ClientFunctions, ClientSettings, JournalFunctions, JournalSettings, RetryOptions } from "@paysys/core/calls";
import { clientFunctionKeys, journalFunctionKeys } from "@paysys/core/internal";

/** E-commerce client settings that are plain data. */
export interface EcommerceClientSettings extends ClientSettings, Omit<JournalSettings, "lease"> {
  /** The merchant's login: HTTP Basic user, and copied into every `merchantId`. */
  merchantId: string;
  password: string;
  /** The gateway. Default `https://ecommerce.pult24.kz` (third-party code; no separate test host exists). */
  baseUrl?: string;
  /** Send `demo: true` with every payment and payout that does not say otherwise: no money moves. Default false. */
  demo?: boolean;
  /** Retries of idempotent operations (status queries, token lists, the key). Payments, payouts, approvals and cancellations never are. */
  retry?: RetryOptions;
  /** How callbacks are received. */
  callbacks?: CallbackSettings;
}

export interface CallbackSettings {
  /**
   * Addresses callbacks may come from. Default `callbackSources`: the gateway's address that
   * clients check (`35.157.105.64`, spec `x-source-ip`). `"any"` turns the check off; then keep `confirm` on.
   */
  allowedAddresses?: string[] | "any";
  /**
   * Before your function sees a callback, ask the gateway's status query whether it bears it out
   * (the same transaction and amount; its status, or one the callback's can become). Default true.
   * `false` trusts a callback on the sender's address alone, and callbacks carry no signature: see
   * the package README for what that risks.
   */
  confirm?: boolean;
  /**
   * Largest callback body, in bytes. Default 262144.
   * @minimum 1
   */
  maxBodyBytes?: number;
  /**
   * How long a delivery being processed holds its event, in ms; after that another delivery may
   * process it (the first one is taken to have died). Default 60000.
   * @minimum 1
   */
  leaseMs?: number;
}

/** E-commerce client options that are functions or objects. */
export interface EcommerceClientFunctions extends ClientFunctions, JournalFunctions {
  /** Makes the `orderId` of a payment created without one. Default: a random UUID. */
  newOrderId?: () => string;
  /** Where callback deliveries are remembered, so each event is processed once. Default: in memory. */
  callbackStore?: CallbackStore;
}

export type EcommerceClientOptions = EcommerceClientSettings & EcommerceClientFunctions;

export const functionOptionKeys = { ...clientFunctionKeys, ...journalFunctionKeys, newOrderId: "function", callbackStore: "object" } as const;
