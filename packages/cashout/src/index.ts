// @paysys/cashout: typed client of the cash-out API. What a caller needs of @paysys/core comes with
// it (@paysys/core/calls: errors, call options, the store contracts); MemoryStore is in @paysys/core.
export * from "@paysys/core/calls";
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
