// @paysys/portal/spec: the generated operation tables and validators, for tools that need the
// spec at run time (the sandbox checks every request and answer with them).
export { operations as v1Operations, sensitiveKeys as v1SensitiveKeys } from "./generated/v1/operations.js";
export type { paths as V1Paths } from "./generated/v1/schema.js";
export * as v1WireValidators from "./generated/v1/wire-validators.js";
export { operations as v2Operations, sensitiveKeys as v2SensitiveKeys } from "./generated/v2/operations.js";
export type { paths as V2Paths } from "./generated/v2/schema.js";
export * as v2WireValidators from "./generated/v2/wire-validators.js";
