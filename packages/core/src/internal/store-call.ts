// Store calls with the SDK's error: a store problem is never mistaken for a network one.
import { PaysysError, StoreUnavailableError } from "../errors.js";

/**
 * Runs a store call; a failure that is not already the SDK's becomes a StoreUnavailableError saying
 * what the SDK was doing, so a store problem is never mistaken for a network one.
 */
export async function storeCall<T>(what: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof PaysysError) throw e;
    throw new StoreUnavailableError(`the store failed to ${what}: ${e instanceof Error ? e.message : String(e)}`, undefined, { cause: e });
  }
}
