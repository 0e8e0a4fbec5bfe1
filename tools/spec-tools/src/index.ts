// @paysys/spec-tools: the specs as data (specs.ts: loading, bundling, walking, sources), the Ajv
// the validators are compiled with, the gap report and the vocabulary of our extensions. This file
// only gathers them: every module imports what it needs from the module that has it, so none of
// them imports this one (no import circle).
export { type AjvOptions, createAjv } from "./ajv.js";
export { gapReport, type InterfaceReport } from "./report.js";
export { closeRequests, requestObjects, unexplainedOpenRequests } from "./requests.js";
export * from "./specs.js";
export { envelopeProblems, readUnwrap, type UnwrapSpec } from "./vocabulary.js";
