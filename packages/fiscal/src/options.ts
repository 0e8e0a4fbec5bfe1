// Options of `createFiscalClient`. The plain-data part is an interface on purpose: the code
// generator turns it into a JSON Schema (typescript-json-schema) and a precompiled validator, so
// options passed from plain JavaScript are checked as strictly as TypeScript checks them.
import type { ClientFunctions, ClientSettings, JournalFunctions, JournalSettings, RetryOptions } from "@paysys/core/calls";
import { clientFunctionKeys, journalFunctionKeys } from "@paysys/core/shell";

/** Fiscal client settings that are plain data. */
export interface FiscalClientSettings extends ClientSettings, JournalSettings {
  /** Base address of the cash register API. No source shows it: your integration manager gives it. */
  baseUrl: string;
  /** The user's phone number and password (`POST /auth`). */
  credentials: FiscalCredentials;
  /** Retries of idempotent operations (lists, reads). Receipt operations are never retried. */
  retry?: RetryOptions;
  /** Check requests against the spec (and receipts' totals) before sending. Default true. */
  validateRequests?: boolean;
  /** Time zone in which `Date` values are written. Default `"Asia/Almaty"`. */
  timeZone?: string;
  /**
   * Paths of operations that no source shows (purchase, refunds, cash in and out, the X report), by
   * operation id, e.g. `{ "operations.purchase": "/kkms/{idKkm}/purchase" }`. The defaults are the SDK's.
   */
  paths?: { [operationId: string]: string };
  /** Which version of the official autonomous-mode rules to check receipts against. Default `"newer"`. */
  autonomousRules?: "newer" | "older";
}

export interface FiscalCredentials {
  /** The user's phone number, e.g. `77771112233`. */
  login: string;
  password: string;
}

/**
 * Fiscal client options that are functions or objects. `store` keeps each register's lease, its
 * current `Uid` and the journal of receipts and shifts: `FileStore` (from `@paysys/fiscal/node`)
 * lets a till program that restarts learn what became of the receipts it was sending; every program
 * that drives a register must use the same store.
 */
export interface FiscalClientFunctions extends ClientFunctions, JournalFunctions {}

export type FiscalClientOptions = FiscalClientSettings & FiscalClientFunctions;

export const functionOptionKeys = { ...clientFunctionKeys, ...journalFunctionKeys } as const;
