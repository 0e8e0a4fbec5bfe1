// What changed for callers: spec diffs, API reports, the bump they require, and the history shown in the docs.
export { apiReport, compareReports, entryPointsOf, type ReportChange } from "./api-report.js";
export { type Bump, requiredBump } from "./bump.js";
export { type ChangesEntry, renderHistory, specHistory } from "./changelog.js";
export { type Change, diffSpec, type Level, levelOf } from "./spec-diff.js";
export { reportDiffs, specDiffs } from "./versions.js";
