// `createFiscalClient`: a shell (core's lazyClient) that checks the options now and loads the client
// (client.ts, with the runtime) at its first call, so a page loads a few kB until it calls.
import { asyncDispose, lazyClient } from "@paysys/core/shell";
import type { FiscalClient } from "./client.js";
import { routes } from "./generated/routes.js";
import { settings } from "./generated/settings.js";
import { type FiscalClientOptions, functionOptionKeys } from "./options.js";

/**
 * Creates a client of the online cash register API. Calls on one register run one at a time and
 * present its current `Uid`; different registers run in parallel.
 *
 * @example
 * const fiscal = createFiscalClient({ baseUrl, credentials: { login: "77771112233", password } });
 * const shift = await fiscal.shifts.open({ IdKkm: 42 });
 * await fiscal.operations.sale({ idKkm: 42, IdDomain: 1, Cash: "500", Total: "500", Positions: [{ Name: "Tea", IdSection: 1, Price: "250", Qty: 2 }] });
 * await fiscal.shifts.closeWithZReport({ idShift: shift.Id!, IdKkm: 42 });
 */
export function createFiscalClient(options: FiscalClientOptions): FiscalClient {
  return lazyClient({
    client: "createFiscalClient",
    options,
    settings,
    functionKeys: functionOptionKeys,
    routes,
    methods: ["knownUid", "close", asyncDispose],
    journal: true,
    load: async (checked) => (await import("./client.js")).buildFiscalClient(checked),
  });
}
