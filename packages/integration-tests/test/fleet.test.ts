// The fleet tests: several processes on one shared store, for every store kind in fleet/kinds.ts.
// The sandbox runs in this process and is the judge; the workers are child processes killed with -9
// and started again with their README's restart recipe.
//
// - fiscal: TILLS processes share the sandbox's registers (each register worked by two of them, so
//   they contend for its lease), both send each of its receipts under the receipt's key, are killed KILLS times in
//   all (and, for a kind with a server, the store's server goes down and comes back in the middle);
//   each keeps a register's lease 50 ms after its last receipt, so receipts' outcomes ride on the
//   register's next receipt and a kill leaves the last one pending in the store.
//   Judged by the sandbox's documents against what each process believed: nothing registered twice,
//   nothing believed registered that was not, nothing registered that was believed not, no stale
//   `Uid` ever presented (the sandbox counts each one it refuses), no intent left unresolved.
// - cash-out: PROVIDERS processes share one credential's token through the store: one sign-in per
//   token lifetime, however many of them ask at once.
// - e-commerce: each callback delivered at once to PROVIDERS shop processes that share the store as
//   their CallbackStore is handled once (only for kinds whose store keeps callbacks).
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";
import { isCallbackStore, openStore } from "./fixtures/fleet-store.mjs";
import { kinds, type RunningStore } from "./fleet/kinds.js";
import { ask, beliefsOf, clean, type Exit, judge, killHard, pause, randomMs, startWorker, tally, type Worker } from "./workers.js";

// Sizes: the whole file stays under 90 s for one kind on two busy cores, most runs. A run varies
// (4–65 s seen for the fiscal scenario): a register whose till was killed with a receipt on its way
// waits up to 10 s for it, and on a server store up to a minute for the killed till's lease to lapse
// when its next life does not take that register again.
/** Till processes; each register is worked by all but one of them. */
const TILLS = 3;
/** The sandbox's twelve registers (company 1: 101–110, company 2: 201–202). */
const REGISTERS = [101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 201, 202];
/** Receipts each till registers on each of its registers. */
const PER_REGISTER = 25;
/** Kills across the fleet, at random moments, of random tills. */
const KILLS = 10;
/** Each receipt spends this long at the service before it is registered, so kills land while receipts are under way. */
const SALE_DELAY_MS = 8;
/** Provider processes sharing one cash-out credential (and, with a store that keeps callbacks, shop processes). */
const PROVIDERS = 4;
/** Token lifetimes the providers go through (the sandbox's clock jumps one hour between two). */
const LIFETIMES = 3;
/** Withdrawals each provider submits at once per lifetime: the same keys in every provider (one queue, delivered to all). */
const WITHDRAWALS = 20;
/** Paid orders whose callback goes to every shop process at once. */
const ORDERS = 5;

const HOUR = 3_600_000;
const folders: string[] = [];
const folder = (what: string) => {
  const f = mkdtempSync(join(tmpdir(), `paysys-fleet-${what}-`));
  folders.push(f);
  return f;
};
afterAll(() => {
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** The registers till `t` works: every one but each TILLS-th, so every register has TILLS − 1 tills. */
const registersOf = (t: number) => REGISTERS.filter((_, i) => i % TILLS !== t);

for (const kind of kinds) {
  describe(`a fleet on the ${kind.name} store`, () => {
    let sb: Sandbox;
    let running: RunningStore;
    beforeAll(async () => {
      sb = await startSandbox();
      running = await kind.start();
    });
    afterAll(async () => {
      await sb?.close();
      await running?.stop();
    });

    it(`fiscal: ${TILLS} tills on ${REGISTERS.length} shared registers, killed ${KILLS} times: every receipt registered once, and each till knows which`, {
      timeout: 180_000,
    }, async () => {
      const { store, close } = await openStore(running.config);
      try {
        {
          // The shifts are opened through the fleet's store too: every program that drives a register uses it.
          await using opener = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store, holder: "opener", lease: { lingerMs: 0 } });
          for (const IdKkm of REGISTERS) await opener.shifts.open({ IdKkm });
        }
        sb.faults.add({ path: /\/sales$/, times: Number.POSITIVE_INFINITY, fault: { kind: "delay", ms: SALE_DELAY_MS } });
        const refusedBefore = sb.fiscal.stats.refusedUids;
        const dir = folder("tills");
        const beliefsPath = (t: number) => join(dir, `till-${t}.jsonl`);
        const start = (t: number) =>
          startWorker(new URL("./fixtures/fleet-till.mjs", import.meta.url), [
            JSON.stringify({
              fiscalUrl: sb.fiscalUrl,
              credentials: fiscalCredentials,
              store: running.config,
              beliefs: beliefsPath(t),
              name: `till-${t}`,
              registers: registersOf(t),
              perRegister: PER_REGISTER,
            }),
          ]);
        const { kills, outages, ends } = await killAtRandom(start, running.outage);
        for (const end of ends) expect(end, end.stderr).toMatchObject({ code: 0 });

        const registered = tally(REGISTERS.flatMap((id) => sb.fiscal.documents(id).flatMap((d) => d.names)));
        const keysOf = (registers: number[]) => registers.flatMap((r) => Array.from({ length: PER_REGISTER }, (_, i) => `r${r}-${i}`));
        // Each till against the sandbox: what it believes of the keys it sent (and nothing else: `judge` sees only its registers' documents).
        const judged = Array.from({ length: TILLS }, (_, t) => {
          const mine = new Set(keysOf(registersOf(t)));
          return judge([...mine], new Map([...registered].filter(([k]) => mine.has(k))), beliefsOf(beliefsPath(t)));
        });
        const sum = (field: keyof typeof clean) => judged.reduce((n, j) => n + j[field], 0);
        expect({
          kills,
          outages,
          ...Object.fromEntries(Object.keys(clean).map((f) => [f, sum(f as keyof typeof clean)])),
          registered: registered.size,
          staleUids: sb.fiscal.stats.refusedUids - refusedBefore,
          unresolved: (await store.pendingIntents("")).length,
        }).toEqual({ kills: KILLS, outages: running.outage ? 1 : 0, ...clean, registered: keysOf(REGISTERS).length, staleUids: 0, unresolved: 0 });
      } finally {
        sb.faults.clear();
        await close();
      }
    });

    it(`cash-out: ${PROVIDERS} providers sharing one credential through the store: one sign-in per token lifetime, each withdrawal stored once`, { timeout: 60_000 }, async () => {
      const before = { ...sb.cashout.stats };
      const providers = Array.from({ length: PROVIDERS }, () =>
        startWorker(new URL("./fixtures/cashout-worker.mjs", import.meta.url), [
          sb.cashoutUrl,
          JSON.stringify(running.config),
          cashoutCredentials.login,
          cashoutCredentials.password,
        ]),
      );
      type Answer = { ok: number; refused: number; inUse: number; ids: Record<string, string>; error?: string };
      const signIns: number[] = [];
      const outcomes = new Map<string, Set<string>>(); // each shared key: the ids the providers were answered
      let refused = 0;
      try {
        for (let lifetime = 0; lifetime < LIFETIMES; lifetime++) {
          if (lifetime > 0) sb.clock.advance(HOUR); // the token every provider holds has expired
          const authorizations = sb.cashout.stats.authorizations;
          // First each provider's own withdrawals: after a clock jump they carry the token that just
          // expired, are refused (never re-sent: they move money), and so each provider learns it expired.
          for (const a of await Promise.all(providers.map((p) => ask<Answer>(p, `run ${WITHDRAWALS}`)))) {
            expect(a.error).toBeUndefined();
            refused += a.refused;
          }
          // Then every provider submits the same withdrawals at once (one queue, delivered to all): one
          // of them sends each, the others are told it is under way; nothing is refused any more.
          for (const a of await Promise.all(providers.map((p) => ask<Answer>(p, `run ${WITHDRAWALS} w${lifetime}`)))) {
            expect({ error: a.error, refused: a.refused }).toEqual({ error: undefined, refused: 0 });
          }
          // Asked again once all is settled, every provider is answered the stored request of each key.
          for (const a of await Promise.all(providers.map((p) => ask<Answer>(p, `run ${WITHDRAWALS} w${lifetime}`)))) {
            expect({ error: a.error, ok: a.ok }).toEqual({ error: undefined, ok: WITHDRAWALS });
            for (const [key, id] of Object.entries(a.ids)) outcomes.set(key, (outcomes.get(key) ?? new Set()).add(id));
          }
          signIns.push(sb.cashout.stats.authorizations - authorizations);
        }
      } finally {
        for (const p of providers) p.child.stdin!.end("exit\n");
      }
      // The shared withdrawals carry their key as reference; each provider's own ones carry none.
      const stored = tally(sb.cashout.storedBodies().flatMap((b) => (b as { reference?: string }).reference ?? []));
      expect({
        signIns,
        duplicates: [...stored.values()].filter((n) => n > 1).length,
        // Every provider was answered the same id for a key, and it is the request stored under that reference.
        answeredDifferently: [...outcomes.values()].filter((ids) => ids.size !== 1).length,
        wrongIds: [...outcomes].filter(([key, ids]) => [...ids].some((id) => sb.cashout.request(id)?.body.reference !== key)).length,
        // A refusal is only ever a request that carried the token the clock jump expired (or one the new token revoked).
        refusedForOtherReasons: refused - (sb.cashout.stats.expiredUses - before.expiredUses) - (sb.cashout.stats.revokedUses - before.revokedUses),
      }).toEqual({ signIns: Array(LIFETIMES).fill(1), duplicates: 0, answeredDifferently: 0, wrongIds: 0, refusedForOtherReasons: 0 });
      expect(outcomes.size).toBe(LIFETIMES * WITHDRAWALS);
    });

    it(`e-commerce: each callback delivered at once to ${PROVIDERS} shops sharing the store's CallbackStore is handled once`, { timeout: 60_000 }, async (ctx) => {
      const { store, close } = await openStore(running.config);
      await close();
      if (!isCallbackStore(store)) return ctx.skip(`a ${kind.name} store keeps no callbacks`);
      const handled = join(folder("shops"), "handled.jsonl");
      const shops = Array.from({ length: PROVIDERS }, () =>
        startWorker(new URL("./fixtures/fleet-shop.mjs", import.meta.url), [JSON.stringify({ ecommerceUrl: sb.ecommerceUrl, merchant, store: running.config, handled })]),
      );
      // A load balancer that hands every delivery to all the shops at once (the worst a retrying gateway
      // and a balancer can do), and acknowledges it when one of them did.
      const balancer = createServer(async (req, res) => {
        let body = "";
        for await (const chunk of req) body += chunk;
        const urls = await Promise.all(shops.map(async (s) => (await s.ready).url as string));
        const answers = await Promise.all(urls.map((url) => fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then((r) => r.json())));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ accepted: answers.some((a) => a.accepted === true) }));
      });
      await once(balancer.listen(0, "127.0.0.1"), "listening");
      try {
        const callbackUrl = `http://127.0.0.1:${(balancer.address() as AddressInfo).port}/callbacks`;
        const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl });
        const payments = await Promise.all(
          Array.from({ length: ORDERS }, (_, i) =>
            shop.payments.create({
              orderId: `fleet-${kind.name}-${i}`,
              amount: 150_000,
              callbackUrl,
              customerData: { cardData: { pan: TestCards.success, month: 12, year: 2031, cvv: "123" } },
            }),
          ),
        );
        const acknowledged = (id: string) => sb.ecommerce.transaction(id)?.deliveries.some((d) => d.accepted) === true;
        while (!payments.every((p) => acknowledged(p.id))) await pause(20);
        // The gateway may deliver a callback again after it was acknowledged: to all the shops at once, again.
        for (const p of payments) expect(await sb.ecommerce.redeliver(p.id)).toBe(true);
        const runs = readFileSync(handled, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { pid: number; id: string });
        expect({ runs: runs.length, events: new Set(runs.map((r) => r.id)).size }).toEqual({ runs: ORDERS, events: ORDERS });
      } finally {
        balancer.close();
        for (const s of shops) await killHard(s);
      }
    });
  });
}

/**
 * Starts a worker per index, then kills a random working one (started and recovered) every
 * 50–250 ms and starts it again at once, until `KILLS` kills; halfway, the store's server (if the
 * kind has one) goes down for a moment. Then every worker's last start runs to its end. Answers the
 * kills, the outages and how each worker's last start ended.
 */
async function killAtRandom(start: (index: number) => Worker, outage: RunningStore["outage"]): Promise<{ kills: number; outages: number; ends: Exit[] }> {
  const working = new Set<Worker>();
  const launch = (t: number) => {
    const w = start(t);
    w.ready.then(() => working.add(w));
    return w;
  };
  const workers = Array.from({ length: TILLS }, (_, t) => launch(t));
  let kills = 0;
  let outages = 0;
  while (kills < KILLS) {
    await pause(randomMs(50, 250));
    const live = workers.map((w, t) => ({ w, t })).filter(({ w }) => working.has(w) && w.child.exitCode === null);
    if (live.length === 0) {
      if (workers.every((w) => w.child.exitCode !== null)) throw new Error(`every worker finished before ${KILLS} kills (${kills} so far): raise the sizes`);
      continue; // the restarted ones are still recovering
    }
    const { w, t } = live[randomMs(0, live.length)]!;
    working.delete(w);
    if (!(await killHard(w))) throw new Error(`worker ${t} ended on its own: ${(await w.exited).stderr}`);
    kills++;
    workers[t] = launch(t);
    if (outage && kills === Math.floor(KILLS / 2)) {
      await outage.halt();
      await pause(500);
      await outage.resume();
      outages++;
    }
  }
  return { kills, outages, ends: await Promise.all(workers.map((w) => w.exited)) };
}
