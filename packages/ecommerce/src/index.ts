// @paysys/ecommerce: typed client of the online payments gateway (payments, payouts, card tokens,
// the card cryptogram and callbacks). Everything public of @paysys/core (errors, money helpers,
// call options) comes with it. The payment form's part alone is `@paysys/ecommerce/card`.
export * from "@paysys/core";
export {
  type CallbackAnswer,
  type CallbackContext,
  type CallbackEvent,
  type CallbackProcessor,
  CallbackRefusedError,
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
