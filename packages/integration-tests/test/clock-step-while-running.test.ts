// The holder's wall clock against the boot's monotonic one is stamped with each intent, beside its
// sendBy, not once per process: a wall clock stepped back while the process ran (an hour ahead,
// corrected by NTP or a person) between its first payment and a later one made a restarted process
// read the later intent's window an hour too early, and settle a payment still at the gateway as
// not applied.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { merchant } from "./credentials.js";

const STEP = 3_600_000;
const child = `
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createInterface } from "node:readline";
const [root, storePath, credsJson, key1, key2, step] = process.argv.slice(1);
const shop = createEcommerceClient({ baseUrl: root + "/ecommerce", ...JSON.parse(credsJson), store: new FileStore(storePath), holder: "shop-s" });
await shop.payments.create({ amount: 1000, orderId: key1, demo: true });
process.stdout.write(JSON.stringify({ pid: process.pid }) + "\\n");
const lines = createInterface({ input: process.stdin });
await new Promise((r) => lines.once("line", r));
const real = Date.now.bind(Date);
Date.now = () => real() - Number(step); // the wall clock, an hour ahead, is set back
await shop.payments.create({ amount: 1000, orderId: key2, demo: true });
`;

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), "clock-step-"));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

it("a payment still at the gateway stays pending after a restart when the wall clock was stepped back during the dead process's life", { timeout: 30_000 }, async () => {
  const storePath = join(dir, "store.json");
  const key1 = `step-first-${Date.now()}`;
  const key2 = `step-second-${Date.now()}`;
  const p = spawn(process.execPath, ["--input-type=module", "-e", child, sb.url, storePath, JSON.stringify(merchant), key1, key2, String(STEP)], {
    cwd: join(import.meta.dirname, ".."),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  p.stderr!.on("data", (d) => (stderr += d));
  const exited = new Promise((r) => p.once("exit", (code, signal) => r({ code, signal })));
  const ready = await Promise.race([
    new Promise((r) => createInterface({ input: p.stdout! }).once("line", r)),
    exited.then((e) => {
      throw new Error(`child ended: ${JSON.stringify(e)} ${stderr}`);
    }),
  ]);
  expect(ready).toBeDefined();
  const seen = sb.faults.count("/ecommerce/payment/create");
  sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 3_000 } });
  p.stdin!.write("go\n");
  for (const end = Date.now() + 10_000; sb.faults.count("/ecommerce/payment/create") === seen; ) {
    if (Date.now() > end) throw new Error(`the payment never reached the gateway ${stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  p.kill("SIGKILL");
  await exited;

  // Same machine, same boot: its wall clock is the stepped one now.
  const realNow = Date.now.bind(Date);
  const stepped = vi.spyOn(Date, "now").mockImplementation(() => realNow() - STEP);
  const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new FileStore(storePath), holder: "shop-s" });
  const recovered = await shop.journal.recover();
  stepped.mockRestore();
  await new Promise((r) => setTimeout(r, 3_500));
  expect(sb.ecommerce.transactionOf(merchant.merchantId, key2)).toBeDefined();
  expect(recovered.filter((r: { key: string }) => r.key.includes(key2))).toContainEqual(expect.objectContaining({ state: "pending" }));
});
