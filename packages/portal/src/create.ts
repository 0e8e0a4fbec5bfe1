// `createPortalClient`: a shell (core's lazyClient) that checks the options now and loads the client
// (client.ts, with the runtime) at its first call, so a page loads a few kB until it calls.
import { ConfigurationError } from "@paysys/core/calls";
import { asyncDispose, lazyClient } from "@paysys/core/shell";
import type { PortalV1Client, PortalV2Client } from "./client.js";
import { settings } from "./generated/settings.js";
import { routes as v1 } from "./generated/v1/routes.js";
import { routes as v2 } from "./generated/v2/routes.js";
import { functionOptionKeys, type PortalClientOptions } from "./options.js";

/**
 * Creates a partner-portal client. `version: "v1"` gives the v1 interface with the same method
 * names (there is no `user.me` in v1).
 *
 * @example
 * const portal = createPortalClient({ baseUrl: "https://portal.example", credentials: { lgn, psw }, solveCaptcha });
 * const rows = await portal.reports.payments({ ...period.month(2024, 5), subOn: true });
 */
export function createPortalClient(options: PortalClientOptions & { version: "v1" }): PortalV1Client;
export function createPortalClient(options: PortalClientOptions & { version?: "v2" }): PortalV2Client;
export function createPortalClient(options: PortalClientOptions): PortalV1Client | PortalV2Client;
export function createPortalClient(options: PortalClientOptions): PortalV1Client | PortalV2Client {
  const version = (options as Partial<PortalClientOptions> | null)?.version ?? "v2";
  return lazyClient({
    client: "createPortalClient",
    options,
    settings,
    functionKeys: functionOptionKeys,
    routes: version === "v1" ? v1 : v2,
    check: (checked) => {
      if (checked.credentials && !checked.solveCaptcha) {
        throw new ConfigurationError("createPortalClient: credentials need solveCaptcha: every sign-in asks for a captcha, which a person (or your solver) must read");
      }
    },
    // v1 has no `user.me`: its client answers why (client.ts), for JavaScript callers.
    hidden: version === "v1" ? ["user.me"] : [],
    methods: ["requestCaptcha", "signIn", "close", asyncDispose],
    values: { version, signedIn: false },
    load: async (checked) => (await import("./client.js")).buildPortalClient(checked),
  });
}
