// What the runtime takes from a client's options, once construction.ts has checked them.
import type { ClientFunctions, ClientSettings, JournalFunctions, JournalSettings } from "../call.js";
import { MemoryStore } from "../memory-store.js";
import { processHolder } from "./holder.js";
import type { InvokerOptions } from "./invoker.js";

/** The options every client hands to its transport unchanged. */
export function sharedTransportOptions(o: ClientSettings & ClientFunctions) {
  return {
    fetch: o.fetch,
    agent: o.agent,
    timeoutMs: o.timeoutMs,
    retry: o.retry,
    validateResponses: o.validateResponses,
    maxResponseBytes: o.maxResponseBytes,
    logger: o.logger,
    hooks: o.hooks,
    headers: o.headers,
  };
}

/** The store of every client in this process that is given none: one journal, so no client of the process sends one key twice. */
export const processStore = new MemoryStore();

/**
 * The invoker's journal options from a client's options. Its names in the store say whose keys
 * and registers these are, never a secret: journal keys are the account's (interface, address,
 * login), so two merchants' order ids never meet; registers the service's (interface, address),
 * since a register is one whoever signs in to it.
 */
export function journalOptions(
  o: JournalSettings & JournalFunctions & ClientSettings,
  where: { interface: string; baseUrl: string; account: string },
): NonNullable<InvokerOptions["journal"]> {
  const service = `${where.interface} ${where.baseUrl.replace(/\/+$/, "")}`;
  return {
    store: o.store ?? processStore,
    namespace: `${service} ${where.account}`,
    chainNamespace: service,
    holder: processHolder(o.holder),
    lease: o.lease,
    timeoutMs: o.timeoutMs ?? 30_000,
    landingMs: o.landingMs,
  };
}
