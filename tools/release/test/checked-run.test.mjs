// A check tool that fails after it started something ends at once, with code 1, and closes what it
// started. Before the runner did this, the release check hung when Chromium was missing.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

describe("checked runs", () => {
  it("a step failing after a sandbox started: exit code 1 within seconds, the sandbox closed", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, "fixtures/fails-after-sandbox.mjs")], {
      env: { ...process.env, CHROMIUM_PATH: "/nonexistent/chromium" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const started = Date.now();
    const code = await new Promise((resolve) => child.on("exit", resolve));
    expect(code).toBe(1);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(out).toContain("fixture check FAILED");
    const url = out.match(/sandbox (http:\/\/\S+)/)?.[1];
    expect(url).toBeDefined();
    // The sandbox went with the process: nothing listens there any more.
    await expect(fetch(`${url}/portal/v2/user/me`)).rejects.toThrow();
  });
});
