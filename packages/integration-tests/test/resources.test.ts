// In its own file so it runs in a fresh process: Node warns once per signal, and other tests
// in the same process must not have used up that warning.
import { createPortalClient } from "@paysys/portal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalCredentials } from "./credentials.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

describe("resources", () => {
  it("calls without a signal leave no listeners behind, even 200 at once", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    await using p = createPortalClient({
      baseUrl: sb.portalUrl,
      credentials: portalCredentials,
      solveCaptcha: async ({ captchaSession }) => sb.portal.captchaText(captchaSession) ?? "",
    });
    await Promise.all(Array.from({ length: 200 }, () => p.user.me()));
    await new Promise((r) => setTimeout(r, 10));
    process.off("warning", onWarning);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });
});
