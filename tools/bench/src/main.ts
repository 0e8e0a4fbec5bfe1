// `pnpm bench`: what the SDK costs, as ratios against baselines measured in the same run, so
// the numbers compare on any machine. It prints; it never fails (goals are shown beside results).
//   1. client CPU overhead per call, with a stub fetch (no network), against bare openapi-fetch
//      with the same stub (what validation, retries and tokens cost on top of it), and against an
//      orval client (fetch mode) generated from the same spec (src/generated; orval/generate.mjs)
//   2. portal client vs raw fetch, same request, sandbox in another process (validation off / on;
//      the client's default HTTP in Node is node:http, so the same client over Node's fetch too).
//      Every client-vs-raw-fetch comparison (2, 4, 5) is a pair in a process of its own (pairs.ts),
//      measured once both sides are compiled; its first 300 rounds are shown apart (V8 still compiling).
//      2b: the same pair on Bun and on Deno, the client over the runtime's own fetch
//   3. response validation vs JSON.parse of the same text: a schema with real typed fields (the
//      fiscal registers list) and the portal's payments report (whose rows are undocumented)
//   4. fiscal receipts: per second on one register and on ten (the chain serialises per register),
//      with the journal in memory and in a file, and what the journal costs a call,
//      and the client against raw fetch walking the same Uid chain by hand, against raw fetch with
//      a timeout signal, against a hand-written minimal client with the same duties, and the
//      client over Node's fetch, and what the Redis store adds to a receipt's store work (store-redis.ts)
//   5. e-commerce: card cryptograms per second against node:crypto publicEncrypt with the same key,
//      callback parse-and-validate against JSON.parse of the same bodies, and payments.create
//      against raw fetch sending the same request
//   6. fleet (fleet.ts): receipts per second with the sandbox answering after 50 ms, ten registers
//      against one, 1,000 registers in one process, and N processes on one FileStore against one
//   7. store cost per receipt: a receipt's store work over PostgreSQL and Redis against the memory
//      store, and against each engine's floor (the same operations written bare) (store-cost.ts)
//   8. cheap to load (load.ts): what a page loads before its first fiscal or portal call, and a cold
//      import of @paysys/fiscal against one of openapi-fetch
import { spawn } from "node:child_process";
import { constants, createPublicKey, publicEncrypt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { MemoryStore } from "@paysys/core";
import { hashOf, hiddenInText, loadValidators } from "@paysys/core/internal";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { operations as fiscalOperations } from "@paysys/fiscal/spec";
import { createPortalClient } from "@paysys/portal";
import { v2Operations } from "@paysys/portal/spec";
import { createDataSet, defaultFiscalUser, defaultMerchant, TestCards } from "@paysys/sandbox";
import createClient from "openapi-fetch";
import { ensureRuntime, runtimes } from "../../npm-tools.mjs";
import { fleetSection } from "./fleet.js";
import { userProfile as orvalUserProfile } from "./generated/orval-portal-user.js";
import { loadSection } from "./load.js";
import { against, median, type PairRun, startSandbox, time } from "./measure.js";
import { postgresCost, redisCost, redisReceiptCost, type StoreCost } from "./store-cost.js";

const rows: string[][] = [];
const report = (what: string, value: string, goal = "") => rows.push([what, value, goal]);

/**
 * Runs one pair in a process of its own (pairs.ts says why): Node's, or another runtime's command
 * (its arguments before the script) against a sandbox already running.
 */
async function pair(name: string, candidate: string, rounds: number, on?: { command: string; args: string[]; sandboxUrl: string }): Promise<PairRun> {
  const script = fileURLToPath(new URL("./pairs.ts", import.meta.url));
  const [command, args] = on
    ? [on.command, [...on.args, script, name, candidate, String(rounds), on.sandboxUrl]]
    : [process.execPath, [...process.execArgv, script, name, candidate, String(rounds)]];
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NO_COLOR: "1" } });
  let out = "";
  child.stdout!.on("data", (chunk) => (out += chunk));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`the ${name} ${candidate} pair failed (exit ${code})`);
  return JSON.parse(out) as PairRun;
}
/** Each candidate's pair, one after another. */
async function pairs(name: string, candidates: string[], rounds: number) {
  const runs = new Map<string, PairRun>();
  for (const candidate of candidates) runs.set(candidate, await pair(name, candidate, rounds));
  const floors = [...runs.values()].map((times) => against(times, "floor").total);
  return {
    baselineMs: median([...runs.values()].flatMap((times) => times.baseline)),
    result: (candidate: string) => against(runs.get(candidate)!, "candidate"),
    /** The same pair over a process's first rounds, while V8 still compiles (pairs.ts). */
    warmup: (candidate: string) => against(runs.get(candidate)!.warmup, "candidate").total.toFixed(3),
    floor: `${Math.min(...floors).toFixed(3)}–${Math.max(...floors).toFixed(3)} (totals, one per pair)`,
  };
}
/**
 * Runs a section whose servers (PostgreSQL, Redis, a fleet of processes) may fail on a busy machine:
 * a failure is a row of the table, and the rows measured before it are still printed.
 */
async function orReport(what: string, section: () => Promise<unknown>) {
  try {
    await section();
  } catch (e) {
    console.error(e);
    report(what, `not measured: ${String(e instanceof Error ? e.message : e).split("\n")[0]}`);
  }
}
const shown = (r: { total: number; median: number; spread: string }) => `${r.total.toFixed(3)} (medians ${r.median.toFixed(3)}, IQR ${r.spread})`;

// 1. Overhead per call with a stub fetch.
{
  const body = JSON.stringify({ code: 0, message: "OK", result: { idUser: 1, lgn: "x" } });
  const stub = async () => new Response(body, { headers: { "content-type": "application/json" } });
  // Tokens are not the subject here: user.profile needs one, so the client signs in once.
  const signed = createPortalClient({ baseUrl: "https://stub.invalid", fetch: stub, extractTokens: () => ({ accessToken: "t" }) });
  await signed.signIn({ lgn: "a", psw: "b", captcha: "c", captchaSession: "s" });
  // The same client with its answers unchecked, as orval's and openapi-fetch's are: the check's own cost apart.
  const unchecked = createPortalClient({ baseUrl: "https://stub.invalid", fetch: stub, extractTokens: () => ({ accessToken: "t" }), validateResponses: false });
  await unchecked.signIn({ lgn: "a", psw: "b", captcha: "c", captchaSession: "s" });
  const n = 5_000;
  await time(() => signed.user.profile({ idUser: 1 }), 2_000); // warm-up
  // Bare openapi-fetch: the same request through the same stub, with the token header and JSON body.
  const bare = createClient<Record<string, never>>({ baseUrl: "https://stub.invalid", fetch: () => stub() });
  const bareCall = () => bare.request("post", "/v2/user/profile" as never, { body: { params: { idUser: 1 } }, headers: { Authorization: "Bearer t" } } as never);
  await time(bareCall, 2_000);
  // orval's fetch client calls the global fetch: the stub stands in for it during this section.
  const orvalCall = () => orvalUserProfile({ params: { idUser: 1 } }, { headers: { Authorization: "Bearer t" } });
  const globalFetch = globalThis.fetch;
  globalThis.fetch = stub;
  // Each round times the stub alone and every client right after it, and each overhead is taken
  // within its round (a client's time less that round's stub): the machine's drift between rounds
  // then cancels, where a difference of medians taken apart would carry it (orval's overhead is a few
  // µs against a stub of some 20).
  const overheads = { client: [] as number[], unchecked: [] as number[], openapiFetch: [] as number[], orval: [] as number[] };
  const client: number[] = [];
  const stubOnly: number[] = [];
  try {
    if ((await orvalCall()).data.result?.lgn !== "x") throw new Error("the orval client did not read the stub's answer");
    await time(orvalCall, 2_000);
    await time(() => unchecked.user.profile({ idUser: 1 }), 2_000);
    for (let round = 0; round < 15; round++) {
      const stubTime = await time(async () => (await stub()).json(), n);
      const clientTime = await time(() => signed.user.profile({ idUser: 1 }), n);
      stubOnly.push(stubTime);
      client.push(clientTime);
      overheads.client.push(clientTime - stubTime);
      overheads.unchecked.push((await time(() => unchecked.user.profile({ idUser: 1 }), n)) - stubTime);
      overheads.openapiFetch.push((await time(bareCall, n)) - stubTime);
      overheads.orval.push((await time(orvalCall, n)) - stubTime);
    }
  } finally {
    globalThis.fetch = globalFetch;
  }
  const ours = median(overheads.client);
  const theirs = median(overheads.openapiFetch);
  const orvals = median(overheads.orval);
  report(
    "client CPU overhead per call (stub fetch)",
    `${(ours * 1000).toFixed(1)} µs (client ${(median(client) * 1000).toFixed(1)} µs, stub alone ${(median(stubOnly) * 1000).toFixed(1)} µs)`,
  );
  report("bare openapi-fetch overhead per call (same stub)", `${(theirs * 1000).toFixed(1)} µs`);
  report("our overhead / openapi-fetch's own", (ours / theirs).toFixed(2), "≤ 2");
  report("orval fetch client overhead per call (same stub, same operation)", `${(orvals * 1000).toFixed(1)} µs`);
  report("our overhead / orval's", (ours / orvals).toFixed(2), "≤ 1");
  const uncheckedOverhead = median(overheads.unchecked);
  report(
    "our overhead with answers unchecked (validateResponses: false) / orval's",
    `${(uncheckedOverhead / orvals).toFixed(2)} (${(uncheckedOverhead * 1000).toFixed(1)} µs)`,
    "≤ 1",
  );
}

// 2. Portal client vs raw fetch, each pair in a process of its own with its own sandbox.
{
  const run = await pairs("portal", ["off", "on", "careful", "overFetch"], 1500);
  report("raw fetch, payments report (40 rows), per call", `${(run.baselineMs * 1000).toFixed(0)} µs`);
  report("portal client / raw fetch, validation off", shown(run.result("off")), "≤ 1.10");
  report("portal client / raw fetch, validation on", shown(run.result("on")), "≤ 1.25");
  report("raw fetch with a timeout signal and manual redirects / raw fetch", shown(run.result("careful")));
  report("portal client / that careful raw fetch, validation off", (run.result("off").total / run.result("careful").total).toFixed(3));
  report("portal client over Node's fetch (not node:http) / raw fetch, validation off", shown(run.result("overFetch")));
  report("raw fetch / raw fetch (noise floor)", run.floor);
  report("  the same pairs over a process's first 300 calls (V8 compiling): off, on, over Node's fetch", ["off", "on", "overFetch"].map(run.warmup).join(", "));
}

// 2b. The portal client on Bun and on Deno against the runtime's own fetch, the same request as 2's
// pair with validation off (the SDK takes the runtime's fetch there: core's platform.ts). Each pair
// runs pairs.ts in the runtime against a sandbox on Node. The runtimes come from the npm registry
// into .tools/, as the release check's (tools/npm-tools.mjs): installed on the first run (about a
// minute), reused after; a runtime that cannot be installed is reported, not measured.
{
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const flags: Record<"bun" | "deno", (host: string) => string[]> = {
    bun: () => [],
    // pnpm's node_modules as installed; .js imports of the bench's .ts files as Bun and tsx read them.
    deno: (host) => [
      "run",
      "--quiet",
      "--no-prompt",
      `--allow-net=${host}`,
      "--allow-read",
      "--allow-env",
      "--allow-sys",
      "--node-modules-dir=manual",
      "--unstable-sloppy-imports",
    ],
  };
  for (const name of ["bun", "deno"] as const) {
    const label = `portal client on ${name === "bun" ? "Bun" : "Deno"} ${runtimes[name].spec.split("@")[1]} / its own fetch, validation off`;
    let command: string;
    try {
      command = await ensureRuntime(root, name);
    } catch (e) {
      report(label, `not measured: ${name} could not be installed (${String(e).split("\n")[0]})`, "≤ 1.11 (≥ 0.9 of native fetch)");
      continue;
    }
    const sandbox = await startSandbox();
    try {
      const times = await pair("portal", "off", 1500, { command, args: flags[name](new URL(sandbox.url).host), sandboxUrl: sandbox.url });
      report(label, shown(against(times, "candidate")), "≤ 1.11 (≥ 0.9 of native fetch)");
      report(`raw fetch / raw fetch on ${name} (noise floor)`, against(times, "floor").total.toFixed(3));
      report(`  the same pair over its first 300 calls on ${name} (compiling)`, against(times.warmup, "candidate").total.toFixed(3));
    } finally {
      sandbox.child.kill();
    }
  }
}

// The sandbox of sections 4 and 5 (their pairs start their own).
const { url, child } = await startSandbox();

// 4. Fiscal receipts through the Uid chain.
try {
  const fiscalUrl = `${url}/fiscal`;
  const fiscal = createFiscalClient({ baseUrl: fiscalUrl, credentials: { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password } });
  const registers = Array.from({ length: 10 }, (_, i) => 101 + i);
  for (const id of registers) await fiscal.shifts.open({ IdKkm: id });
  const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];
  const receipt = (idKkm: number) => fiscal.operations.sale({ idKkm, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
  const rate = async (ids: number[], n: number) => {
    const t = performance.now();
    await Promise.all(Array.from({ length: n }, (_, i) => receipt(ids[i % ids.length]!)));
    return n / ((performance.now() - t) / 1000);
  };
  await rate(registers, 200);
  const one: number[] = [];
  const ten: number[] = [];
  for (let round = 0; round < 5; round++) {
    one.push(await rate([101], 300));
    ten.push(await rate(registers, 300));
  }
  report("fiscal receipts per second, one register", median(one).toFixed(0));
  report("fiscal receipts per second, ten registers", median(ten).toFixed(0));
  report("ten registers / one register (the chain serialises per register only)", (median(ten) / median(one)).toFixed(2));

  const chain = await pairs("fiscal", ["client", "minimal", "careful", "overFetch"], 2000);
  report("fiscal client / raw fetch, one receipt through the chain", shown(chain.result("client")), "≤ 1.10");
  report("careful raw fetch (timeout signal, manual redirects) / raw fetch, same receipt", shown(chain.result("careful")));
  report("fiscal client / that careful raw fetch", (chain.result("client").total / chain.result("careful").total).toFixed(3));
  report("hand-written minimal client with the client's duties / raw fetch", shown(chain.result("minimal")));
  report("fiscal client / that minimal client", (chain.result("client").total / chain.result("minimal").total).toFixed(3));
  report("fiscal client over Node's fetch (not node:http) / raw fetch", shown(chain.result("overFetch")));
  report("raw fetch / raw fetch (noise floor), receipts", chain.floor);
  report("  the same pairs over a process's first 300 receipts (V8 compiling): client, over Node's fetch", ["client", "overFetch"].map(chain.warmup).join(", "));

  // The journal: every receipt is written before it is sent and settled after. One register each,
  // receipts one after another (a till), the memory store against the file store (fsync'd intents).
  const folder = mkdtempSync(join(tmpdir(), "paysys-bench-"));
  try {
    const credentials = { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password };
    const inMemory = createFiscalClient({ baseUrl: fiscalUrl, credentials, store: new MemoryStore() });
    const onDisk = createFiscalClient({ baseUrl: fiscalUrl, credentials, store: new FileStore(join(folder, "till.json")) });
    const sequential = async (client: typeof fiscal, idKkm: number, n: number) => {
      const t = performance.now();
      for (let i = 0; i < n; i++) await client.operations.sale({ idKkm, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
      return n / ((performance.now() - t) / 1000);
    };
    await sequential(inMemory, 103, 100);
    await sequential(onDisk, 104, 100);
    const memoryRates: number[] = [];
    const fileRates: number[] = [];
    for (let round = 0; round < 5; round++) {
      memoryRates.push(await sequential(inMemory, 103, 200));
      fileRates.push(await sequential(onDisk, 104, 200));
    }
    report("receipts per second, one register, memory store", median(memoryRates).toFixed(0));
    report("receipts per second, one register, file store", median(fileRates).toFixed(0));
    report("file journal / memory store, receipts per second", (median(fileRates) / median(memoryRates)).toFixed(2), "≥ 0.5");
    // What the journal itself costs a call: the hash of the parameters, the intent written, the outcome settled.
    const journalCall = (store: MemoryStore | FileStore) => async () => {
      const key = `bench/${Math.random()}`;
      const now = Date.now();
      const hash = await hashOf("operations.sale", { idKkm: 103, IdDomain: 1, Positions, Total: 1250.5, Cash: 1250.5 }, new Set());
      await store.beginIntent({ key, operation: "operations.sale", hash, holder: { id: "bench" }, startedAt: now, sendBy: now + 60_000, state: "pending" });
      await store.settleIntent(key, { state: "applied", answer: { IdDocument: 1 }, settledAt: now });
    };
    const memoryStore = new MemoryStore();
    const fileStore = new FileStore(join(folder, "journal.json"));
    report("journal cost per call, memory store (hash, intent, outcome)", `${((await time(journalCall(memoryStore), 5000)) * 1000).toFixed(1)} µs`);
    report("journal cost per call, file store (intent fsync'd)", `${((await time(journalCall(fileStore), 1000)) * 1000).toFixed(1)} µs`);
    await inMemory.close();
    await onDisk.close();
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }

  // 5. E-commerce.
  const ecommerceUrl = `${url}/ecommerce`;
  const shop = createEcommerceClient({
    merchantId: defaultMerchant.login,
    password: defaultMerchant.password,
    baseUrl: ecommerceUrl,
    callbacks: { allowedAddresses: "any", confirm: false },
  });
  const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "123", cardholder: "IVAN IVANOV" };
  // The baseline gets the key parsed once too (publicEncrypt with PEM text would parse it every call).
  const key = createPublicKey(await shop.publicKey.pem());
  await shop.encryptCard(card); // fetches and imports the key once
  const plaintext = Buffer.from(JSON.stringify({ cardholder: "IVAN IVANOV", month: "12", pan: TestCards.success, validity: "12/31", year: "2031", cvv: "123", ip: "" }));
  const nodeEncrypt = () => publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, plaintext).toString("base64");
  const perSecond = async (f: () => unknown, n: number) => 1000 / (await time(f, n));
  // WebCrypto runs each encryption on libuv's thread pool: one at a time it waits for the hop, many
  // at once (a server under load) use the pool. publicEncrypt is synchronous on the main thread.
  const hundredAtOnce = () => Promise.all(Array.from({ length: 100 }, () => shop.encryptCard(card)));
  await perSecond(nodeEncrypt, 500);
  await perSecond(hundredAtOnce, 5);
  const theirs: number[] = [];
  const sequential: number[] = [];
  const parallel: number[] = [];
  for (let round = 0; round < 7; round++) {
    theirs.push(await perSecond(nodeEncrypt, 1000));
    sequential.push(await perSecond(() => shop.encryptCard(card), 1000));
    parallel.push(100 * (await perSecond(hundredAtOnce, 10)));
  }
  report("card cryptograms per second, node:crypto publicEncrypt (same key)", median(theirs).toFixed(0));
  report("card cryptograms per second, encryptCard one at a time", median(sequential).toFixed(0));
  report("card cryptograms per second, encryptCard 100 at a time", median(parallel).toFixed(0));
  report("encryptCard / publicEncrypt, one at a time", (median(sequential) / median(theirs)).toFixed(2), "≥ 0.8");
  report("encryptCard / publicEncrypt, 100 at a time", (median(parallel) / median(theirs)).toFixed(2));

  const bodies = Array.from({ length: 1000 }, (_, i) =>
    JSON.stringify({
      id: `t${i}`,
      orderId: `order-${i}`,
      merchantId: "shop01",
      amount: 150000 + i,
      commission: 0,
      commissionIncluded: false,
      attempt: 1,
      demo: false,
      status: 1,
      errCode: 0,
      errMessage: "",
      metadata: { cart: `c-${i}` },
    }),
  );
  const parseAll = () => {
    for (const b of bodies) JSON.parse(b);
  };
  // Without the status query (confirm: false): this measures the checks of the body alone.
  const checkAll = async () => {
    for (const b of bodies) await shop.callbacks.parse(b);
  };
  await time(parseAll, 50);
  await time(checkAll, 50);
  const parsed: number[] = [];
  const checked: number[] = [];
  for (let round = 0; round < 7; round++) {
    parsed.push(await time(parseAll, 50));
    checked.push(await time(checkAll, 50));
  }
  report("callback parse-and-validate / JSON.parse (same 1,000 bodies)", (median(checked) / median(parsed)).toFixed(2), "≤ 3");

  const create = await pairs("ecommerce", ["client"], 1000);
  report("e-commerce payments.create / raw fetch", shown(create.result("client")), "≤ 1.10");
  report("  the same pair over a process's first 300 payments (V8 compiling)", create.warmup("client"));
} finally {
  child.kill();
}

// 3. Response validation vs JSON.parse of the same text.
{
  const ratio = async (label: string, text: string, validate: (d: unknown) => boolean) => {
    const parse: number[] = [];
    const check: number[] = [];
    for (let round = 0; round < 7; round++) {
      let parsed: unknown;
      parse.push(await time(() => (parsed = JSON.parse(text)), 1));
      check.push(
        await time(() => {
          if (!validate(parsed)) throw new Error(`${label}: validation failed`);
        }, 1),
      );
    }
    report(`JSON.parse, ${label} (${(text.length / 1e6).toFixed(1)} MB)`, `${median(parse).toFixed(1)} ms`);
    report(`response validation / JSON.parse, ${label}`, (median(check) / median(parse)).toFixed(3), "≤ 0.5");
    // The other check every checked answer gets: its text read for a key given twice or a number JSON.parse rounded.
    const scan: number[] = [];
    const parsed = JSON.parse(text);
    for (let round = 0; round < 7; round++) scan.push(await time(() => hiddenInText(text, parsed), 1));
    report(`  the answer's text checked (repeated keys, inexact numbers) / JSON.parse, ${label}`, (median(scan) / median(parse)).toFixed(3));
  };

  // A registers list with every field the spec types, 20,000 registers.
  const kkm = (i: number) => ({
    Id: i,
    IdCompany: 1 + (i % 50),
    Name: `Kassa ${i}`,
    Rnm: String(10_000_000_000 + i),
    Znm: `SWK${String(i).padStart(8, "0")}`,
    IdStatusKkm: 2,
    IdShift: i * 3,
    Allowed: i % 7 !== 0,
    Lock: false,
    IdModeKkm: 1,
    IdOfd: 2,
    IdSection: 4,
    ShiftIndex: i % 365,
    IsActive: true,
    Address: { Id: i, IdTown: 1, Street: "Abaya", House: String(1 + (i % 200)), Flat: String(i % 40) },
    Company: {
      Id: 1 + (i % 50),
      IdUser: 7,
      IdOwnership: 1,
      IdAddress: 3,
      Bin: "123456789012",
      ShortName: "TOO Romashka",
      FullName: "TOO Romashka LLP",
      Fio: "Petrov P.",
      Nds: "12",
      Ownership: { Id: 1, Name: "TOO" },
    },
    Ofd: { Id: 2, Name: "OFD" },
    StatusKKM: { Id: 2, Name: "Ready" },
  });
  const registers = JSON.stringify({ Status: 200, Message: "OK", Data: { Kkms: Array.from({ length: 20_000 }, (_, i) => kkm(i + 1)) } });
  await loadValidators(fiscalOperations["kkms.list"]);
  await ratio("fiscal registers list, 20k registers with typed fields", registers, fiscalOperations["kkms.list"].validateResponse!);

  const data = createDataSet({ paymentsPerDay: 1000 });
  const payments = [];
  for (let d = 1; payments.length < 100_000; d++) payments.push(...data.paymentsOn(`202401${String(1 + (d % 28)).padStart(2, "0")}`));
  const report100k = JSON.stringify({ code: 0, message: "OK", data: payments.slice(0, 100_000) });
  await loadValidators(v2Operations["reports.payments"]);
  await ratio("portal payments, 100k rows (fields undocumented)", report100k, v2Operations["reports.payments"].validateResponse!);
}

// 6. Receipts per second when the service is a network away (fleet.ts starts its own sandbox).
await orReport("fleet (section 6)", () => fleetSection(report));

// 7. What a shared store adds to a receipt.
{
  const ms = (r: { p50: number; p99: number }) => `p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms`;
  const shown = (name: string, disk: string, fast: string, floor: string, { durable, unflushed }: { durable: StoreCost; unflushed: StoreCost }) => {
    report(`store work per receipt (the intent, the outcome with its link; under a lease), memory store`, ms(durable.memory));
    report(`store work per receipt, ${name} on loopback (${disk})`, ms(durable.store));
    report(`store cost per receipt: ${name} ÷ memory store, p50`, (durable.store.p50 / durable.memory.p50).toFixed(0));
    report(`added by ${name} per receipt (${disk})`, ms(durable.added), "p50 ≤ 1 ms");
    report(`added by ${name} per receipt, ${fast} (the store's own cost)`, ms(unflushed.added), "p50 ≤ 1 ms");
    report(`${name}'s floor per receipt (${floor}; no SDK), ${disk}`, ms(durable.floor));
    report(`${name} store work above that floor, ${disk} (the SDK's part)`, ms(durable.aboveFloor));
    report(`${name} store work above its floor, ${fast}`, ms(unflushed.aboveFloor));
  };
  await orReport("PostgreSQL store cost", async () =>
    shown("PostgreSQL", "intents wait for the disk", "commits not waiting for the disk", "one statement", await postgresCost(2000)),
  );
  // Each outcome rides on the next intent's write (settleThenBegin): one write a receipt.
  await orReport("Redis store cost", async () => shown("Redis", "appendfsync always", "appendfsync everysec", "one write", await redisCost(2000)));
  await orReport("Redis end to end", async () => {
    const { memory, redis, added } = await redisReceiptCost(1000);
    report("fiscal receipt through the client, memory store (end to end, one register)", ms(memory));
    report("the same receipt with the Redis store (appendfsync always)", ms(redis));
    report("added by Redis to a receipt, end to end (appendfsync always)", ms(added), "p50 ≤ 1 ms");
  });
}

// 8. What a client costs to load before it is used.
await loadSection(report);

const width = Math.max(...rows.map((r) => r[0]!.length));
console.log(`\npaysys SDK bench (node ${process.version}, ${new Date().toISOString()})\n`);
for (const [what, value, goal] of rows) console.log(`${what!.padEnd(width)}  ${value!.padEnd(20)} ${goal ? `goal ${goal}` : ""}`);
