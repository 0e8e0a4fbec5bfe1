// @paysys/fiscal/node: a file store for the registers' `Uid`s, so a till program that restarts continues its chains.
export { FileStore, type FileStoreOptions } from "@paysys/core/node";
