// @paysys/core/shell: what a client's entry point loads before its first call. No semver promise
// (like @paysys/core/internal, whose parts these are). The factory returns a shell (lazyClient)
// that checks the options at construction and imports the runtime, from @paysys/core/internal,
// at the first call; the helpers here are the small ones a client's own exports use (decimal
// amounts, wall-clock dates), so `import "@paysys/fiscal"` does not load the runtime either.
export * from "./decimal.js";
export { checkClientOptions, clientFunctionKeys, journalFunctionKeys, type OptionKind, type Route } from "./internal/construction.js";
export { asyncDispose } from "./internal/dispose.js";
export { lazyClient, type ShellParts } from "./internal/lazy.js";
export { type TokenSet, tokensFromAnswer } from "./internal/token-answer.js";
export { instantOf, pad, type WallClock, wallClock } from "./internal/zone.js";
export { shownValue } from "./shown.js";
