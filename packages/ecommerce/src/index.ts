// @paysys/ecommerce: typed client of the online payments gateway (payments, payouts, card tokens,
// the card cryptogram and callbacks). What a caller needs of @paysys/core comes with it
// (@paysys/core/calls: errors, money helpers, call options); the in-memory stores are in @paysys/core. The payment form's part alone is `@paysys/ecommerce/card`.
export * from "@paysys/core/calls";
export {
  type CallbackAnswer,
  type CallbackContext,
  type CallbackEvent,
  type CallbackProcessor,
  CallbackRefusedError,
  type CheckedCallback,
  callbackSources,
  type NodeRequest,
  type NodeResponse,
  parseCallback,
  type ReceiveOptions,
} from "./callbacks.js";
export { type CardDataInput, checkCard, encryptCard, type GatewayKey, luhn, type PaymentCard, type PayoutCard } from "./card.js";
export {
  type CreatedPayment,
  type CreatePaymentParams,
  type CreatePayoutParams,
  createEcommerceClient,
  type EcommerceClient,
} from "./client.js";
export type { EcommerceMethods } from "./generated/client.js";
export type * from "./generated/schema.js";
export type { CallbackSettings, EcommerceClientFunctions, EcommerceClientOptions, EcommerceClientSettings } from "./options.js";
