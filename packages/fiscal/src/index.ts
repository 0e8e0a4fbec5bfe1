// @paysys/fiscal: typed client of the online cash register API (Fiscal24).
// What a caller needs of @paysys/core comes with it (@paysys/core/calls: errors, money helpers, call
// options, the store contracts); MemoryStore is in @paysys/core, off the page's first load.
export * from "@paysys/core/calls";
export type { AutonomousRules } from "./checks.js";
export type { FiscalClient } from "./client.js";
export { createFiscalClient } from "./create.js";
export { ShiftAlreadyOpenError } from "./errors.js";
export type { FiscalMethods } from "./generated/client.js";
export type * from "./generated/schema.js";
export type { FiscalClientOptions, FiscalClientSettings, FiscalCredentials } from "./options.js";
export { lineTotal, type RoundingMode, type RoundingOptions, receiptChange, receiptTotal } from "./receipt.js";
