// A shop killed -9 while its payment is at the gateway, started again after its wall clock was
// stepped forward (NTP after a restart, a person). The intent's window (`sendBy`) was stamped by the
// old wall clock: read on the new one it had ended, the gateway (still at work on the request) said
// "not there", and recover() settled the key as not applied just before the payment landed, inviting
// a second one. A holder records how its wall clock stood against the machine's monotonic clock
// (boot-clock.ts), and a process of the same boot reads the window on that clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { merchant } from "./credentials.js";
import { killHard, pause, startWorker } from "./workers.js";

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), "clock-jump-"));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

for (const [what, jumpMs] of [
  ["stepped two minutes forward", 120_000],
  ["not stepped", 0],
] as const) {
  it(`a payment still at the gateway when its process died stays pending after a restart, the wall clock ${what}`, { timeout: 30_000 }, async () => {
    const storePath = join(dir, `store-${jumpMs}.json`);
    const key = `clock-jump-${jumpMs}-${Date.now()}`;
    // The gateway works 3 s on the payment, then creates it (whether or not its caller is still there).
    const seen = sb.faults.count("/ecommerce/payment/create");
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 3_000 } });
    const w = startWorker(new URL("./fixtures/one-payment.mjs", import.meta.url), [sb.url, storePath, JSON.stringify(merchant), "shop-j", key]);
    await w.ready;
    for (const end = Date.now() + 10_000; sb.faults.count("/ecommerce/payment/create") === seen; ) {
      if (Date.now() > end) throw new Error("the payment never reached the gateway");
      await pause(10);
    }
    expect(await killHard(w)).toBe(true);

    // Started again, same store and holder name, its wall clock stepped.
    const realNow = Date.now.bind(Date);
    const stepped = vi.spyOn(Date, "now").mockImplementation(() => realNow() + jumpMs);
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new FileStore(storePath), holder: "shop-j" });
    const recovered = await shop.journal.recover();
    stepped.mockRestore();

    await pause(3_500); // the gateway finishes the request it was working on
    expect(sb.ecommerce.transactionOf(merchant.merchantId, key)).toBeDefined();
    // Not "not applied": that would invite a second payment of one that was made.
    expect(recovered).toContainEqual(expect.objectContaining({ key, state: "pending" }));
  });
}
