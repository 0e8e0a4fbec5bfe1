// `createCashoutClient`: a shell (core's lazyClient) that checks the options now and loads the client
// (client.ts, with the runtime) at its first call, so importing the package costs little.
import { ConfigurationError } from "@paysys/core/calls";
import { asyncDispose, lazyClient } from "@paysys/core/shell";
import type { CashoutClient } from "./client.js";
import { routes } from "./generated/routes.js";
import { settings } from "./generated/settings.js";
import { type CashoutClientOptions, functionOptionKeys } from "./options.js";

/**
 * Creates a client of the cash-out API.
 *
 * @example
 * const cashout = createCashoutClient({ baseUrl, credentials: { authType, login: "provider01", password } });
 * const stored = await cashout.requests.create({ amount: 50000, account: "77771112233" });
 */
export function createCashoutClient(options: CashoutClientOptions): CashoutClient {
  return lazyClient({
    client: "createCashoutClient",
    options,
    settings,
    functionKeys: functionOptionKeys,
    routes,
    check: ({ maxAmount }) => {
      // A JSON pointer is empty or starts with a slash: the runtime reads the amount there.
      if (maxAmount && maxAmount.at !== "" && !maxAmount.at.startsWith("/"))
        throw new ConfigurationError(`createCashoutClient: maxAmount.at must be a JSON pointer such as "/amount", got ${JSON.stringify(maxAmount.at)}`);
      // NaN or Infinity would pass every comparison: a limit that checks nothing.
      if (maxAmount && !Number.isFinite(maxAmount.value))
        throw new ConfigurationError(`createCashoutClient: maxAmount.value must be a finite number, got ${String(maxAmount.value)}`);
    },
    // No `auth.authorize`: the client authorizes by itself (client.ts says why).
    omitted: ["auth.authorize"],
    methods: ["close", asyncDispose],
    journal: true,
    load: async (checked) => (await import("./client.js")).buildCashoutClient(checked),
  });
}
