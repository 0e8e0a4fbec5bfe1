// @paysys/ecommerce: the generated methods and types of the interface. The client factory joins them
// in its own issue; until then the package is private.
export type { EcommerceMethods } from "./generated/client.js";
export type * from "./generated/schema.js";
