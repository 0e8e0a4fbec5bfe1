// @paysys/portal: typed client of the partner portal API, v2 and v1.
// What a caller needs of @paysys/core comes with it (@paysys/core/calls: errors, BinaryFile, call
// options, money helpers, the store contracts); MemoryStore is in @paysys/core.
export * from "@paysys/core/calls";
export type { PortalClientBase, PortalV1Client, PortalV2Client } from "./client.js";
export type { FlagInput } from "./codecs.js";
export { createPortalClient } from "./create.js";
export { type CalendarDate, DEFAULT_TIME_ZONE, formatPortalDate, isPortalDate, type Period, type PortalDateInput, parsePortalDate, period } from "./dates.js";
export type { PortalV1Methods } from "./generated/v1/client.js";
export type * as V1 from "./generated/v1/schema.js";
export type { PortalV2Methods } from "./generated/v2/client.js";
export type * as V2 from "./generated/v2/schema.js";
// The rows and answers v1 and v2 share (specs/common/portal.json), by their names.
export type { Agent, Captcha, CashCollection, DealerStatistic, Payment, Remuneration, Terminal, TerminalTurnover, Tokens, User } from "./generated/v2/schema.js";
export type { CaptchaChallenge, PortalClientOptions, PortalClientSettings, PortalCredentials } from "./options.js";
export { defaultExtractTokens } from "./tokens.js";
