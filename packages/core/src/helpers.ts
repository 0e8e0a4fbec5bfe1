// @paysys/core/helpers: what a client's own exports use at once, without loading the runtime (the
// portal's dates and its reading of the token answer). No semver promise (like
// @paysys/core/internal, whose parts these are). Apart from @paysys/core/shell because a bundler
// splits code by file: every client's first load carries whatever the shell entry exports.

export { type TokenSet, tokensFromAnswer } from "./internal/token-answer.js";
export { instantOf, pad, type WallClock, wallClock } from "./internal/zone.js";
export { shownValue } from "./shown.js";
