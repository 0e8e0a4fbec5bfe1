// @paysys/core/first-load: every module a client's entry reaches through @paysys/core/calls, /shell
// and /helpers, in one file. No semver promise (like @paysys/core/internal). Node loads a module per
// file, some 0.3 ms each, so a cold import of a client read 1.11 × one of openapi-fetch while core's
// first load came in ten files; as one it reads about 1.07. The ESM build (tsup.config.ts) bundles
// this entry alone, writes /calls, /shell and /helpers as lists of names re-exported from it, and
// builds the runtime (/internal, the stores, /node, /testing) with these modules imported from
// here, not bundled again, so each class exists once. The list is checked at build time against
// what those three entries reach (tools/first-load-layer.ts): a module added to one of them and
// missing here fails the build.
export * from "./calls.js";
export * from "./decimal.js";
export * from "./errors.js";
export * from "./file.js";
export * from "./helpers.js";
export * from "./internal/construction.js";
export * from "./internal/dispose.js";
export * from "./internal/header-check.js";
export * from "./internal/lazy.js";
export * from "./internal/node-builtins.js";
export * from "./internal/pointer-of.js";
export * from "./internal/put.js";
export * from "./internal/settings-schema.js";
export * from "./internal/snapshot.js";
export * from "./internal/telemetry-option.js";
export * from "./internal/token-answer.js";
export * from "./internal/validator.js";
export * from "./internal/zone.js";
export * from "./money.js";
export * from "./shell.js";
export * from "./shown.js";
