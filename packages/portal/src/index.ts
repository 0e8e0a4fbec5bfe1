// @paysys/portal: typed client of the partner portal API, v2 and v1.
export * from "@paysys/core";
export { createPortalClient, defaultExtractTokens, type PortalClientBase, type PortalV1Client, type PortalV2Client } from "./client.js";
export type * as V1 from "./generated/v1/client.js";
export type { PortalV1Methods } from "./generated/v1/client.js";
export type * as V2 from "./generated/v2/client.js";
export type { PortalV2Methods } from "./generated/v2/client.js";
export type { CaptchaChallenge, PortalClientOptions, PortalClientSettings, PortalCredentials } from "./options.js";
