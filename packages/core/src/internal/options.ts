// Checking client options at construction. The plain-data part is checked by a validator the
// code generator made from the package's settings interface (typescript-json-schema + Ajv), so
// JavaScript callers get the same strictness as TypeScript ones; the rest are functions.
import type { ClientFunctions, ClientSettings, JournalFunctions, JournalSettings } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { MemoryStore } from "../stores.js";
import { processHolder } from "./holder.js";
import type { InvokerOptions } from "./invoker.js";
import { type Validator, validatorIssues } from "./operation.js";

/** Throws a ConfigurationError naming every wrong option. Returns nothing when all is well. */
export function checkClientOptions(client: string, options: unknown, settings: Validator, callbacks: Readonly<Record<string, OptionKind>>): void {
  if (options === null || typeof options !== "object") throw new ConfigurationError(`${client}: options must be an object`);
  const data: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    const kind = callbacks[key];
    if (kind === undefined) data[key] = value;
    else if (kind === "object or false") {
      if (value !== undefined && value !== false && (typeof value !== "object" || value === null)) problems.push(`/${key} must be an object or false`);
    } else if (value !== undefined && typeof value !== kind) problems.push(`/${key} must be a ${kind}`);
  }
  if (!settings(data)) problems.push(...validatorIssues(settings).map((i) => `${i.path || "(options)"} ${i.message}`));
  if (problems.length > 0) throw new ConfigurationError(`${client}: invalid options: ${problems.join("; ")}`);
}

/** What an option that is not plain data must be. */
export type OptionKind = "function" | "object" | "object or false";

/** The kinds of the options every client takes that are functions or objects (for `checkClientOptions`). */
export const clientFunctionKeys = { fetch: "function", agent: "object", logger: "function", hooks: "object", telemetry: "object or false" } as const;

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

/** The kinds of the journal's object options (for `checkClientOptions`). */
export const journalFunctionKeys = { store: "object" } as const;

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
  };
}
