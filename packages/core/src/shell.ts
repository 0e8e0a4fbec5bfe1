// @paysys/core/shell: what a client's entry point loads before its first call. No semver promise
// (like @paysys/core/internal, whose parts these are). The factory returns a shell (lazyClient)
// that checks the options at construction and imports the runtime, from @paysys/core/internal,
// at the first call; the decimal helpers are what the fiscal receipt helpers use. A bundler
// splits code by file, so whatever this entry exports is in every client's first load: helpers
// only one client's exports need are in @paysys/core/helpers instead.
export * from "./decimal.js";
export { clientFunctionKeys, journalFunctionKeys, type OptionKind, type Route } from "./internal/construction.js";
export { asyncDispose } from "./internal/dispose.js";
export { lazyClient, type ShellParts } from "./internal/lazy.js";
export { type SettingsSchema, settingsValidator } from "./internal/settings-schema.js";
