// What the runtime takes from a client's options, once construction.ts has checked them.
import type { ClientFunctions, ClientSettings, JournalFunctions, JournalSettings } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { MemoryStore } from "../memory-store.js";
import { processHolder } from "./holder.js";
import type { InvokerOptions } from "./invoker.js";
import { addressShown } from "./redact.js";

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
 * The name a service's records go under in a shared store: its interface and its address, spelt one
 * way (`HTTP://Host:80/x/` and `http://host/x` are one service: two spellings were two journals and
 * two leases on one register, and a receipt registered twice). A user and password in the address
 * (a gateway's basic auth) are left out: the name is a store's key and goes into error messages, and
 * with them one register had two names, one per spelling, which did not exclude each other.
 */
export function serviceName(interfaceName: string, baseUrl: string): string {
  return `${interfaceName} ${addressShown(baseUrl).replace(/\/+$/, "")}`;
}

/**
 * An account's name under its service, with the characters that separate the parts of a record's
 * name escaped (`/` before a journal key, a space before a callback's order) and the escape's own
 * (`%`): no account's records are within another's (a login `L/operations.sale` read login `L`'s
 * receipts as its own). Only those: an account without them (a phone number, an e-mail) keeps the
 * records an earlier version wrote.
 */
export const accountName = (interfaceName: string, baseUrl: string, account: string): string =>
  `${serviceName(interfaceName, baseUrl)} ${account.replace(/[%/ ]/g, (c) => encodeURIComponent(c))}`;

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
  const service = serviceName(where.interface, where.baseUrl);
  return {
    store: o.store ?? processStore,
    namespace: accountName(where.interface, where.baseUrl, where.account),
    chainNamespace: service,
    holder: processHolder(o.holder),
    lease: o.lease,
    timeoutMs: o.timeoutMs ?? 30_000,
    landingMs: o.landingMs,
  };
}

/** This machine's own host: `localhost` (and its subdomains), 127.0.0.0/8, `[::1]`. */
function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** Whether an address is one `fetch` can take (`http://u:p@[::1` passes the pattern but no request can be made of it). */
function parses(address: string): boolean {
  try {
    new URL(address);
    return true;
  } catch {
    return false;
  }
}

/**
 * The service's address and the client's time zone, checked when the client's code loads (its first
 * call): a typed ConfigurationError then, not a ConnectionError after every retry, nor (with a `#`
 * or `?` in the address) a request to the base without the operation's path. Not in the shell: a
 * page's first load stays small (tools/initial-load.mjs).
 */
export function checkServiceOptions(baseUrl: string, timeZone: string | undefined, allowInsecureHttp = false): void {
  const relative = baseUrl.startsWith("/");
  // Shown without a user and password, and without its query (an API key may be either).
  const shown = () => addressShown(baseUrl).replace(/[?#][\s\S]*$/, "?…");
  if (!/^(https?:\/\/[^/?#\s]+|\/(?!\/))[^?#\s]*$/i.test(baseUrl) || (relative ? !globalThis.location : !parses(baseUrl))) {
    throw new ConfigurationError(
      `baseUrl: must be the service's http(s) address, without a query or fragment (a path of the page's own origin in a browser); got ${JSON.stringify(shown())}`,
    );
  }
  // A path of the page's own origin is the page's choice; an address of its own is the client's.
  const address = relative ? undefined : new URL(baseUrl);
  if (address && !allowInsecureHttp && address.protocol === "http:" && !isLoopback(address.hostname)) {
    throw new ConfigurationError(
      `baseUrl: ${JSON.stringify(shown())} is plain http to another host: the password, tokens and card data would cross the network unencrypted. Use https, or set allowInsecureHttp: true where something else encrypts the way`,
    );
  }
  if (timeZone === undefined) return;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
  } catch {
    throw new ConfigurationError(`timeZone: ${JSON.stringify(timeZone)} is not a time zone this runtime knows (IANA names, such as "Asia/Almaty")`);
  }
}
