// The crash harness: a till, a shop and a provider (test/fixtures/crash-worker.mjs) registering
// receipts, creating payments and submitting withdrawals against the sandbox, killed with -9 at
// random moments at least 20 times each and started again with their README's restart recipe.
// Judged by the sandbox's own records against what each process believed: nothing registered
// twice, nothing believed registered that was not, nothing registered that was believed not, every
// intent resolved in the end, and no restart waiting more than 2 s before it works.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCashoutClient } from "@paysys/cashout";
import { FileStore } from "@paysys/core/node";
import { createFiscalClient } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";
import { beliefsOf, clean, judge, killHard, pause, randomMs, startWorker, tally } from "./workers.js";

const KILLS = 20;
// Operations per worker: enough that none finishes before its 20th kill. The shop is the fastest
// (600 were once too few for it, after a faster fetch path); the others take longer per operation.
const COUNTS = { fiscal: 600, ecommerce: 2000, cashout: 600 } as const;
// How long a worker lives after its restart before it is killed, at random within these ms. The
// shop's lives are shorter: on a fast disk its 2,000 operations once fitted in 20 lives of the
// others' length, and more operations make its last life (which finishes them all) slow.
const LIFE_MS: Record<Kind, [number, number]> = { fiscal: [10, 130], ecommerce: [5, 60], cashout: [10, 130] };
const REGISTER = 109;

let sb: Sandbox;
const folders: string[] = [];
beforeAll(async () => {
  sb = await startSandbox();
  // Each money request spends a little time at the service, so kills land while requests are under way.
  sb.faults.add({ path: /\/(sales|payment\/create|cash-out-request)$/, times: Number.POSITIVE_INFINITY, fault: { kind: "delay", ms: 8 } });
});
afterAll(async () => {
  await sb.close();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

type Kind = "fiscal" | "ecommerce" | "cashout";
const credentials: Record<Kind, unknown> = { fiscal: fiscalCredentials, ecommerce: merchant, cashout: cashoutCredentials };
const keys = (kind: Kind) => Array.from({ length: COUNTS[kind] }, (_, i) => `${kind.slice(0, 1)}-${i}`);

/** One worker process; ready once `journal.recover()` answered, with how long its restart took. */
const start = (kind: Kind, storePath: string, beliefsPath: string) =>
  startWorker(new URL("./fixtures/crash-worker.mjs", import.meta.url), [
    kind,
    sb.url,
    storePath,
    beliefsPath,
    String(COUNTS[kind]),
    JSON.stringify(credentials[kind]),
    String(REGISTER),
  ]);

/** Kills the worker at random moments `KILLS` times, then lets a last start finish. Answers the restart times. */
async function crashAndFinish(kind: Kind, storePath: string, beliefsPath: string): Promise<{ kills: number; restartMs: number[] }> {
  const restartMs: number[] = [];
  let kills = 0;
  while (kills < KILLS) {
    const w = start(kind, storePath, beliefsPath);
    restartMs.push(Number((await w.ready).recoveredMs));
    await pause(randomMs(...LIFE_MS[kind]));
    if (w.child.exitCode !== null) {
      const { code, stderr } = await w.exited;
      if (code === 0) throw new Error(`the ${kind} worker finished its ${COUNTS[kind]} operations before ${KILLS} kills: raise COUNTS or shorten its lives`);
      throw new Error(`the ${kind} worker failed (exit ${code}) before it was killed: ${stderr}`);
    }
    if (await killHard(w)) kills++;
    else throw new Error(`the ${kind} worker ended on its own: ${(await w.exited).stderr}`);
  }
  const last = start(kind, storePath, beliefsPath);
  restartMs.push(Number((await last.ready).recoveredMs));
  const end = await last.exited;
  expect(end, end.stderr).toMatchObject({ code: 0 });
  return { kills, restartMs };
}

function paths(kind: Kind) {
  const dir = mkdtempSync(join(tmpdir(), `paysys-crash-${kind}-`));
  folders.push(dir);
  return { storePath: join(dir, "store.json"), beliefsPath: join(dir, "beliefs.jsonl") };
}

describe("killed -9 at random moments and restarted with the README's recipe", () => {
  it("a till: every receipt registered exactly once, and it knows which", { timeout: 180_000 }, async () => {
    {
      await using opener = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, lease: { lingerMs: 0 } });
      await opener.shifts.open({ IdKkm: REGISTER });
    }
    const { storePath, beliefsPath } = paths("fiscal");
    const { kills, restartMs } = await crashAndFinish("fiscal", storePath, beliefsPath);
    const registered = tally(sb.fiscal.documents(REGISTER).flatMap((d) => d.names));
    const judged = judge(keys("fiscal"), registered, beliefsOf(beliefsPath));
    expect({ kills, ...judged, slowestRestartMs: Math.max(...restartMs) }).toEqual({ ...clean, kills: KILLS, slowestRestartMs: expect.any(Number) });
    expect(Math.max(...restartMs)).toBeLessThan(2000);
    expect(await new FileStore(storePath).pendingIntents("")).toEqual([]);
  });

  it("a shop: every order created exactly once, and it knows which", { timeout: 180_000 }, async () => {
    const { storePath, beliefsPath } = paths("ecommerce");
    const reused = sb.ecommerce.stats.reusedOrderIds;
    const { kills, restartMs } = await crashAndFinish("ecommerce", storePath, beliefsPath);
    const created = new Map(keys("ecommerce").flatMap((k) => (sb.ecommerce.transactionOf(merchant.merchantId, k) ? [[k, 1] as const] : [])));
    const judged = judge(keys("ecommerce"), created, beliefsOf(beliefsPath));
    // A second creation of an orderId would have been refused by the sandbox and counted.
    expect({ kills, ...judged, duplicatesSent: sb.ecommerce.stats.reusedOrderIds - reused }).toEqual({ ...clean, kills: KILLS, duplicatesSent: 0 });
    expect(Math.max(...restartMs)).toBeLessThan(2000);
    expect(await new FileStore(storePath).pendingIntents("")).toEqual([]);
  });

  it("a provider: no withdrawal stored twice; what nothing can tell stays unknown until a person settles it", { timeout: 180_000 }, async () => {
    const { storePath, beliefsPath } = paths("cashout");
    const storedRefs = () => tally(sb.cashout.storedBodies().map((b) => String((b as { reference?: unknown }).reference)));
    const { kills, restartMs } = await crashAndFinish("cashout", storePath, beliefsPath);
    expect(kills).toBe(KILLS);
    expect(Math.max(...restartMs)).toBeLessThan(2000);
    // Cash-out cannot be asked: the requests under way at a kill stay unknown, and are never sent again.
    const provider = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new FileStore(storePath) });
    const pending = await provider.journal.pending();
    const unknown = pending.map((r) => r.key);
    const beliefs = beliefsOf(beliefsPath);
    const beforePeople = judge(keys("cashout"), storedRefs(), beliefs, new Set(unknown));
    expect(beforePeople).toEqual(clean);
    // The provider's people look each one up and record what they find; the worker then finishes.
    // "Not stored" is refused while the killed worker's request may still land (10 s from when this
    // process found it gone): what the service shows is not final before then, so they look again.
    for (const record of pending) {
      for (let refused = 0; ; refused++) {
        const error = await provider.journal.settle(record, storedRefs().has(record.key)).catch((e: unknown) => e);
        if (error === undefined) break;
        expect(String(error)).toMatch(/may still reach the service until/);
        expect(refused).toBeLessThan(12);
        await pause(1_000);
      }
    }
    const last = start("cashout", storePath, beliefsPath);
    expect(await last.exited).toMatchObject({ code: 0 });
    expect(judge(keys("cashout"), storedRefs(), beliefsOf(beliefsPath))).toEqual(clean);
    expect(await provider.journal.pending()).toEqual([]);
  });
});
