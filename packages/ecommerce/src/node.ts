// @paysys/ecommerce/node: a file store for the journal of payments, so a web process that restarts
// learns what became of the payments it was sending, and processes on one machine share it.
export { FileStore, type FileStoreOptions } from "@paysys/core/node";
