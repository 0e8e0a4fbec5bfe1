// The conformance kit's shared parts (testing.ts): how a check fails, names no other check uses,
// and the entries the checks write.
import { LeaseLostError } from "../errors.js";
import type { Holder, JournalEntry, Settlement, Store } from "../stores.js";

export class ContractError extends Error {
  override name = "StoreContractError";
}

export function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new ContractError(what);
}

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
/** A name no other check (or earlier run on the same database) uses. */
export const unique = (what: string) => `conformance/${what}/${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
export const holder = (id: string): Holder => ({ id });

export async function refusesStaleFence(write: () => unknown, what: string): Promise<void> {
  try {
    await write();
  } catch (e) {
    check(e instanceof LeaseLostError, `${what}: a stale fence must be refused with LeaseLostError, got ${(e as Error)?.name}: ${(e as Error)?.message}`);
    return;
  }
  throw new ContractError(`${what}: a write with a stale fence was accepted`);
}

export function intent(key: string, scope?: string): JournalEntry {
  const now = Date.now();
  return {
    key,
    operation: "t.op",
    ...(scope ? { scope } : {}),
    hash: "h".repeat(64),
    holder: holder("conformance"),
    startedAt: now,
    sendBy: now + 60_000,
    presented: "link-1",
    state: "pending",
  };
}

export const settled = (state: Settlement["state"], answer?: unknown): Settlement => ({ state, ...(answer === undefined ? {} : { answer }), settledAt: Date.now() });

export type Checks = Record<string, () => Promise<void>>;
/** Two handles on one storage (or one handle twice, when the factory has no `again`). */
export type TwoHandles = () => Promise<[Store, Store]>;
