// @paysys/cashout/node: a file store for the credential's token, so processes on one machine that
// share a credential share its one token (a new token kills the old one).
export { FileStore, type FileStoreOptions } from "@paysys/core/node";
