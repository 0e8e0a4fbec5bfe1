// Portal clients of the sandbox's default user, signing in with the captcha text the sandbox tells
// (a real integration shows the image to a person). `sb` is read when a client is made: test files
// start their sandbox in `beforeAll`.
import { createPortalClient, type PortalClientOptions, type PortalV1Client, type PortalV2Client } from "@paysys/portal";
import type { Sandbox } from "@paysys/sandbox";
import { portalCredentials } from "./credentials.js";

/** `defaults` go into every client (hooks that record what is sent, say); a client's own `extra` over them. */
export function portalClients(sb: () => Sandbox, defaults: Partial<PortalClientOptions> = {}) {
  const solve = async ({ captchaSession }: { captchaSession: string }) => sb().portal.captchaText(captchaSession) ?? "";
  function client(version: "v1", extra?: Partial<PortalClientOptions>): PortalV1Client;
  function client(version: "v2", extra?: Partial<PortalClientOptions>): PortalV2Client;
  function client(version: "v1" | "v2", extra: Partial<PortalClientOptions> = {}) {
    return createPortalClient({ baseUrl: sb().portalUrl, version, credentials: portalCredentials, solveCaptcha: solve, ...defaults, ...extra } as PortalClientOptions);
  }
  return { solve, client };
}
