// A process that wrote its intent and is slow to send it (a slow sign-in: here a hook that waits,
// inside the 10 s an intent gives its request to start), while another process (another holder, or
// the same holder name) runs recover(), sends the same key, and a person settles it "not applied".
// Nothing may settle it before it is sent, and the key is done once (a review's probe, 2026-11-27).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCashoutClient } from "@paysys/cashout";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, merchant } from "./credentials.js";
import { startWorker } from "./workers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());
const nameOf = (e: unknown) => (e instanceof Error ? e.name : "no error");
const nextLine = (w: ReturnType<typeof startWorker>) => new Promise<Record<string, unknown>>((r) => w.lines.once("line", (l) => r(JSON.parse(l))));

describe("a request slow to start under its intent, while another process acts on its key", () => {
  for (const kind of ["ecommerce", "cashout"] as const) {
    for (const sameHolder of [false, true]) {
      it(`${kind}, ${sameHolder ? "the same holder name" : "another holder"}: recover/send/settle during the slow start leave it alone; done once`, {
        timeout: 30_000,
      }, async () => {
        const dir = mkdtempSync(join(tmpdir(), "slow-start-"));
        try {
          const storePath = join(dir, "store.json");
          const key = `slow-start-${kind}-${sameHolder}`;
          const creds = kind === "ecommerce" ? merchant : cashoutCredentials;
          const storedBefore = sb.cashout.stats.stored;
          const w = startWorker(new URL("./fixtures/slow-start.mjs", import.meta.url), [kind, sb.url, storePath, JSON.stringify(creds), "till-A", key, "4000"]);
          await w.ready;
          expect(await nextLine(w)).toEqual({ waiting: true }); // intent written, not sent
          const holder = sameHolder ? "till-A" : "till-B";
          const store = new FileStore(storePath);
          const other =
            kind === "ecommerce"
              ? createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store, holder, landingMs: 200 })
              : createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store, holder, landingMs: 200 });
          const op = kind === "ecommerce" ? "payments.create" : "requests.create";
          const recovered = await other.journal.recover();
          const settled = await other.journal.settle({ operation: op, key }, false).then(
            () => "accepted",
            (e: unknown) => `refused ${nameOf(e)}`,
          );
          const sent =
            kind === "ecommerce"
              ? await (other as ReturnType<typeof createEcommerceClient>).payments.create({ amount: 1000, orderId: key, demo: true }).then(() => "sent", nameOf)
              : await (other as ReturnType<typeof createCashoutClient>).requests
                  .create({ amount: 4242, account: "77771112233" }, { idempotencyKey: key })
                  .then(() => "sent", nameOf);
          const result = await nextLine(w);
          const done = kind === "ecommerce" ? sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length : sb.cashout.stats.stored - storedBefore;
          expect(recovered).toEqual([{ operation: op, key, state: "pending" }]);
          expect(result.result).toMatch(/^done/);
          expect(settled).toMatch(/^refused/);
          expect(sent).not.toBe("sent");
          expect(done).toBe(1);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});
