// What the reference pages use from here: the history of an interface's spec, as a "Changes" section.
// The commands (spec:diff, api:report, api:check, the bump check) are the other entry points.
export { type ChangesEntry, renderHistory, specHistory } from "./changelog.js";
