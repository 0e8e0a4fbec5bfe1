// The README's first command ends in the demo (tools/demo/main.mjs): every client against the
// sandbox, as a newcomer first sees them. It runs here as `npm start` runs it, so a change of
// behaviour the demo did not follow fails the tests, not a newcomer's first minute.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

it("the demo `npm start` runs goes through every client and exits 0", { timeout: 120_000 }, async () => {
  const demo = fileURLToPath(new URL("../../../tools/demo/", import.meta.url));
  const child = spawn(process.execPath, ["main.mjs"], { cwd: demo, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (chunk) => (out += chunk));
  child.stderr.on("data", (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  expect({ code, out }).toMatchObject({ code: 0 });
  for (const part of ["== partner portal v2", "== partner portal v1", "== online cash register", "== online payments", "== cash-out"]) expect(out).toContain(part);
  expect(out).toContain("sent again by the caller: 2 of 2 stored on the renewed token");
});
