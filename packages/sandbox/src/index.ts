// @paysys/sandbox: a local server that plays the payment system's interfaces for tests and demos.
export {
  CashoutSandbox,
  CashoutSandboxMessages,
  type CashoutSandboxOptions,
  type CashoutUser,
  defaultCashoutUser,
  SANDBOX_PASSWORD_AUTH_TYPE,
} from "./cashout.js";
export { createDataSet, type DataSet } from "./data.js";
export { defaultMerchant, type EcommerceMerchant, EcommerceSandbox, EcommerceSandboxMessages, type EcommerceSandboxOptions, TestCards } from "./ecommerce.js";
export { type Fault, type FaultRule, SandboxFaults, type SeenRequest } from "./faults.js";
export { defaultFiscalUser, FiscalSandbox, FiscalSandboxMessages, type FiscalSandboxOptions, type FiscalUser } from "./fiscal.js";
export { type ModuleContext, type SandboxAnswer, SandboxClock, type SandboxModule, type SandboxRequest } from "./module.js";
export { defaultPortalUser, PortalSandbox, type PortalSandboxOptions, SandboxCodes, type SandboxUser } from "./portal.js";
export { type Sandbox, type SandboxOptions, startSandbox } from "./server.js";
