// @paysys/sandbox: a local server that plays the payment system's interfaces for tests and demos.
export { createDataSet, type DataSet } from "./data.js";
export { type ModuleContext, type SandboxAnswer, SandboxClock, type SandboxModule, type SandboxRequest } from "./module.js";
export { defaultPortalUser, PortalSandbox, type PortalSandboxOptions, SandboxCodes, type SandboxUser } from "./portal.js";
export { type Sandbox, type SandboxOptions, startSandbox } from "./server.js";
