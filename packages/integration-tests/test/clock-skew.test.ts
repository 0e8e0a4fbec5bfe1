// Hosts sharing one real store whose clocks disagree (a review's probe, 2026-11-27): the first host's
// runs 30 s behind the others' and the database's. Nothing else is faulty: each request lands while
// its own caller is still waiting for it. Two ways it sent money twice:
// - PostgreSQL reported a lease's end by the database's clock, which the till compared with its own:
//   running behind, it renewed too late, the lease lapsed under a receipt still at the service, and
//   another host settled it "not applied". A Lease now ends by the process's clock (as Redis's does).
// - Another host judged an intent by its `sendBy`, stamped by the writer's clock: 30 s behind, its
//   payment looked idle while still at the service. Another host's intent now also gets its whole
//   window from when this process first saw it pending (windowEnd in landing.ts).
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { describe, expect, it } from "vitest";
import { fiscalCredentials, merchant } from "./credentials.js";
import { openStore } from "./fixtures/fleet-store.mjs";
import { useSandboxAndServers } from "./fleet/kinds.js";
import { startWorker } from "./workers.js";

const worker = new URL("./fixtures/clock-skew.mjs", import.meta.url);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const env = useSandboxAndServers();

async function run(cfg: Record<string, unknown>) {
  const w = startWorker(worker, [JSON.stringify(cfg)]);
  const lines: Record<string, unknown>[] = [];
  w.lines.on("line", (l) => lines.push(JSON.parse(l)));
  await w.ready;
  return { w, lines, result: () => lines.find((l) => "result" in l) };
}
const until = async (what: () => unknown, ms: number) => {
  for (const end = Date.now() + ms; !what(); ) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await pause(20);
  }
};

describe("fiscal: a till whose clock runs behind the database's", () => {
  for (const kind of ["postgres", "redis"] as const) {
    it(`${kind}: a receipt still at the service is left alone by another host's recover(), and registered once`, async () => {
      const skewMs = 30_000;
      const idKkm = kind === "redis" ? 104 : 102;
      const key = `clock-skew-${kind}`;
      const store = env.servers.config(kind);
      {
        const { store: s0, close } = await openStore(store);
        const setup = createFiscalClient({ baseUrl: env.sb.fiscalUrl, credentials: fiscalCredentials, store: s0, holder: "setup" });
        await setup.shifts.open({ IdKkm: idKkm });
        await setup.close();
        await close();
      }
      // The sale is held 4.5 s at the service, then registered: till A waits for it (timeout 8 s).
      env.sb.faults.add({ path: `/fiscal/kkms/${idKkm}/sales`, fault: { kind: "delay", ms: 4_500 } });
      const a = await run({
        mode: "sale",
        skewMs,
        store,
        url: env.sb.fiscalUrl,
        credentials: fiscalCredentials,
        key,
        idKkm,
        timeoutMs: 8_000,
        landingMs: 1_000,
        leaseTtlMs: 4_000,
        holder: "till-A",
        host: "host-a",
      });
      await until(() => env.sb.faults.seen.some((s) => s.path === `/fiscal/kkms/${idKkm}/sales`), 10_000);
      // Host B (clock right): the restart recipe, journal.recover(), while A's sale is at the service.
      const { store: storeB, close: closeB } = await openStore(store);
      const b = createFiscalClient({ baseUrl: env.sb.fiscalUrl, credentials: fiscalCredentials, store: storeB, holder: "backoffice-B", landingMs: 1_000 });
      expect((await b.journal.recover()).map((r) => r.state)).not.toContain("not-applied");
      await b.close();
      await closeB();
      await until(a.result, 15_000);
      // Host C (clock right) sends the receipt again under its key, as a back office does.
      const { store: storeC, close: closeC } = await openStore(store);
      const c = createFiscalClient({
        baseUrl: env.sb.fiscalUrl,
        credentials: fiscalCredentials,
        store: storeC,
        holder: "backoffice-C",
        landingMs: 1_000,
        lease: { waitMs: 30_000 },
      });
      await c.operations
        .sale({ idKkm, IdDomain: 1, Positions: [{ Name: key, IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" }, { idempotencyKey: key })
        .catch(() => {}); // its recorded answer, or a typed error: never a second receipt
      await c.close();
      await closeC();
      expect(a.result()).toMatchObject({ result: "registered" });
      expect(env.sb.fiscal.documents(idKkm).filter((d) => d.names.includes(key)).length).toBe(1);
    }, 90_000);
  }
});

describe("e-commerce (no lease), Redis: a shop whose clock runs behind another's", () => {
  it("a payment still at the service is not taken for idle by another host, nor sent again", async () => {
    const skewMs = 30_000;
    const key = "clock-skew-payment";
    const store = env.servers.config("redis");
    const createsBefore = env.sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length;
    env.sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 3_000 } });
    const a = await run({
      mode: "payment",
      skewMs,
      store,
      url: env.sb.ecommerceUrl,
      credentials: merchant,
      key,
      timeoutMs: 8_000,
      landingMs: 1_000,
      holder: "shop-A",
      host: "host-a",
    });
    await until(() => env.sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length > createsBefore, 10_000);
    const { store: storeB, close: closeB } = await openStore(store);
    const b = createEcommerceClient({ baseUrl: env.sb.ecommerceUrl, ...merchant, store: storeB, holder: "shop-B", landingMs: 1_000 });
    await expect(b.payments.create({ amount: 1000, orderId: key, demo: true })).rejects.toThrow(/under way in shop-A/);
    await until(a.result, 15_000);
    await closeB();
    expect(a.result()).toMatchObject({ result: "created" });
    expect(env.sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length - createsBefore).toBe(1);
  }, 60_000);
});
