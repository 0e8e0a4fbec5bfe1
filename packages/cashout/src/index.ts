// @paysys/cashout: typed client of the cash-out API. Everything public of @paysys/core (errors,
// stores, call options) comes with it.
export * from "@paysys/core";
export type { CashoutClient } from "./client.js";
export { createCashoutClient } from "./create.js";
export type { CashoutMethods } from "./generated/client.js";
export type * from "./generated/schema.js";
export type {
  CashoutClientFunctions,
  CashoutClientOptions,
  CashoutClientSettings,
  CashoutCredentials,
  MaximumAmount,
  OtherCredentials,
  PasswordCredentials,
} from "./options.js";
