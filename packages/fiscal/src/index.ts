// @paysys/fiscal: typed client of the online cash register API (Fiscal24).
// Everything public of @paysys/core (errors, money helpers, stores, call options) comes with it.
export * from "@paysys/core";
export type { AutonomousRules } from "./checks.js";
export type { FiscalClient } from "./client.js";
export { createFiscalClient } from "./create.js";
export { ShiftAlreadyOpenError } from "./errors.js";
export type { FiscalMethods } from "./generated/client.js";
export type * from "./generated/schema.js";
export type { FiscalClientOptions, FiscalClientSettings, FiscalCredentials } from "./options.js";
export { lineTotal, type RoundingMode, type RoundingOptions, receiptChange, receiptTotal } from "./receipt.js";
