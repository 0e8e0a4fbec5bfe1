// The generated operation table and validators, for tools that need the spec at run time (the
// sandbox checks every request and answer with them).
export { caseInsensitiveBodyKeys, chain, operations, sensitiveKeys, webhooks } from "./generated/operations.js";
export type { paths } from "./generated/schema.js";
export * as wireValidators from "./generated/wire-validators.js";
