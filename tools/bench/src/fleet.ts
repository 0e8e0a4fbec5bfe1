// Section 6 of `pnpm bench`: receipts per second when the service is a network away. The sandbox
// runs in its own process and answers every request after LATENCY_MS (its `latencyMs`), so what is
// measured is how well the SDK overlaps round trips, as ratios within one run:
//   - ten registers / one register in one process: the chain serialises per register only (goal ≥ 9.5);
//   - 1,000 registers in one process against the ideal 1,000 / latency, with the CPU each side spent,
//     which names the bottleneck, and the client's CPU per receipt over that of bare node:http POSTs
//     at the same concurrency (the floor any Node client pays); and against the same chains walked
//     by hand with bare node:http, real receipts (what a client that checks nothing reaches here);
//   - N processes × 100 registers (five receipts each) / one process, all on one shared store (a
//     FileStore, Redis, PostgreSQL; real servers from tools/test-servers), with the CPU the clients,
//     the sandbox and the whole machine spent: where it stops growing, and why.
// The same file is the worker of the last one: `tsx fleet.ts worker '<JSON>'`.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { clientAgentOptions } from "@paysys/core/internal";
import { createFiscalClient, type FiscalClient, NotAppliedError, RequestValidationError, ShiftAlreadyOpenError } from "@paysys/fiscal";
// The fleet test's store opener: the same config opens the same store in the bench's workers.
import { openStore } from "@paysys/integration-tests/fleet-store";
import { defaultFiscalUser } from "@paysys/sandbox";
import { migrate } from "@paysys/store-postgres";
import { type RunningServer, startPostgres, startRedis } from "@paysys/test-servers";
import pg from "pg";

const LATENCY_MS = 50;
const REGISTERS = 1000;
/** Registers of each process in the multi-process part, receipts on each register, and how many processes at most. */
const PER_PROCESS = 100;
const ROUNDS = 5;
const PROCESSES = [1, 2, 4];
/** The young generation's semi-space the sizing advice names (Node 20 sets 16 MB). */
const SEMI_SPACE_MB = 64;
const credentials = { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password };
const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];
/** The registers the sandbox is started with: company 1's, 101 to 100 + REGISTERS. */
const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => 101 + from + i);

/**
 * Receipts sent again after a NotAppliedError. Over many keep-alive connections the sandbox closes
 * the idle ones (after 5 s) as a request may be starting on one: "socket hang up", the SDK checks
 * the chain, answers NotAppliedError, and the till sends the receipt again under its key.
 */
let resent = 0;
let late = 0;
let receiptNumber = 0;

/** One receipt, registered once: sent again under its key as long as the SDK says it was not. */
async function receipt(fiscal: FiscalClient, idKkm: number): Promise<void> {
  const key = `bench-${process.pid}-${receiptNumber++}`;
  for (;;) {
    try {
      await fiscal.operations.sale({ idKkm, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" }, { idempotencyKey: key });
      return;
    } catch (e) {
      // Nothing was sent either way: NotAppliedError (checked), or a request that could not start
      // within its journaled window (the event loop busy with a FileStore's synchronous writes).
      if (e instanceof NotAppliedError) resent++;
      else if (e instanceof RequestValidationError && /journaled window/.test(e.message)) late++;
      else throw e;
    }
  }
}

/** `n` receipts spread over `registers`, all at once; answers receipts per second. */
async function rate(fiscal: FiscalClient, registers: number[], n: number): Promise<number> {
  const t = performance.now();
  await Promise.all(Array.from({ length: n }, (_, i) => receipt(fiscal, registers[i % registers.length]!)));
  return n / ((performance.now() - t) / 1000);
}

/**
 * The floor of a receipt's client CPU at the same concurrency: bare node:http POSTs of a receipt's
 * body to the same addresses, over an agent set as the client's own (clientAgentOptions), `rounds`
 * one after another on each register and every register at once, as the client's chain sends them.
 * (All at once, as this once did, ran three times the client's requests in flight over new
 * connections: a floor twice as high, which made the SDK look closer to it than it is.) No token
 * goes with them, so the sandbox refuses each (after the same latency): what any client's HTTP
 * costs, without checks, journal, chain or token. Answers the CPU seconds the process spent.
 */
async function bareCpu(url: string, rounds: number): Promise<number> {
  const agent = new Agent(clientAgentOptions);
  const body = JSON.stringify({ IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
  const post = (target: URL) =>
    new Promise<void>((resolve, reject) => {
      const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
      const req = request(target, { method: "POST", agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString() || "null")));
      });
      req.on("error", reject);
      req.end(body);
    });
  const targets = ids(0, REGISTERS).map((id) => new URL(`${url}/kkms/${id}/sales`));
  await Promise.all(targets.map(post)); // its connections opened, as the client's were
  const before = process.cpuUsage();
  await Promise.all(
    targets.map(async (target) => {
      for (let round = 0; round < rounds; round++) await post(target);
    }),
  );
  const used = process.cpuUsage(before);
  agent.destroy();
  return (used.user + used.system) / 1e6;
}

/**
 * The same 1,000 registers walked by hand with bare node:http, as the client's agent sends (the
 * client's agent options): sign in, read each register's Uid, then `rounds` real receipts one after
 * another on each register and every register at once, each carrying its register's Uid, its answer
 * parsed and its next Uid taken. What a hand-written till server without checks, journal, leases or
 * retries costs and reaches, against the same sandbox: the SDK's receipts per second over these
 * says how much of the limit is the SDK's (the sandbox, at its CPU shown beside, is the rest).
 */
async function handWalkedChains(url: string, sandboxPid: number, rounds: number): Promise<{ rate: number; cpu: number; sandbox: number | undefined }> {
  const agent = new Agent(clientAgentOptions);
  const call = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; uid: string | undefined; json: { Data?: { Token?: string; Uid?: string } } | null }>((resolve, reject) => {
      const sent = body === undefined ? headers : { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
      const req = request(new URL(`${url}${path}`), { method, agent, headers: sent }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, uid: res.headers.uid as string | undefined, json: JSON.parse(Buffer.concat(chunks).toString() || "null") }));
      });
      req.on("error", reject);
      req.end(body);
    });
  const token = (await call("POST", "/auth", {}, JSON.stringify({ Login: credentials.login, Password: credentials.password }))).json?.Data?.Token;
  const authorization = `Bearer ${token}`;
  const registers = ids(0, REGISTERS);
  const uids = new Map<number, string>();
  await Promise.all(registers.map(async (id) => uids.set(id, (await call("GET", `/uid/${id}`, { authorization })).json?.Data?.Uid ?? "")));
  const wire = { IdDomain: 1, Positions: [{ Name: "Coffee", IdSection: 1, Price: 625.25, Qty: 2 }], Total: 1250.5, Cash: 1250.5 };
  const sale = async (id: number) => {
    const answer = await call("POST", `/kkms/${id}/sales`, { authorization, uid: uids.get(id)! }, JSON.stringify(wire));
    if (answer.status !== 200 || !answer.uid) throw new Error(`a hand-walked receipt was refused: HTTP ${answer.status}`);
    uids.set(id, answer.uid);
  };
  await Promise.all(registers.map(sale)); // its connections opened, as the client's were
  const before = process.cpuUsage();
  const theirs = cpuSeconds(sandboxPid);
  const t = performance.now();
  await Promise.all(
    registers.map(async (id) => {
      for (let round = 0; round < rounds; round++) await sale(id);
    }),
  );
  const wall = (performance.now() - t) / 1000;
  const used = process.cpuUsage(before);
  agent.destroy();
  const sandbox = theirs === undefined ? undefined : (100 * (cpuSeconds(sandboxPid)! - theirs)) / wall;
  return { rate: (rounds * REGISTERS) / wall, cpu: (used.user + used.system) / 1e6, sandbox };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); undefined elsewhere. */
function cpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (100 a second on Linux)
  } catch {
    return undefined;
  }
}

/** CPU seconds the whole machine has been busy (every core, every process), and seconds elapsed per core, from /proc/stat. */
function machineSeconds(): { busy: number; total: number } | undefined {
  try {
    const ticks = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/).slice(1).map(Number);
    const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = ticks[3]! + ticks[4]!; // idle, iowait
    return { busy: (total - idle) / 100, total: total / 100 };
  } catch {
    return undefined;
  }
}

/** The sandbox in a process of its own, answering after LATENCY_MS, with REGISTERS registers. */
async function startSlowSandbox(): Promise<{ url: string; child: ChildProcess }> {
  const script = `import { startSandbox } from "@paysys/sandbox";
const sb = await startSandbox({ latencyMs: ${LATENCY_MS}, fiscal: { registers: [${REGISTERS}, 0] } });
console.log(sb.url);`;
  // From the bench's folder, so the script finds @paysys/sandbox as the bench does.
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: fileURLToPath(new URL("..", import.meta.url)), stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the sandbox exited (${code}) before it listened`)));
    createInterface({ input: child.stdout! }).once("line", resolve);
  });
  return { url, child };
}

type Report = (what: string, value: string, goal?: string) => void;

/** Runs the section, adding its rows with `report`. */
export async function fleetSection(report: Report): Promise<void> {
  const { url, child } = await startSlowSandbox();
  const fiscalUrl = `${url}/fiscal`;
  try {
    // One process, memory store (the client's default). Leases are kept between rounds, as a till keeps its register.
    const fiscal = createFiscalClient({ baseUrl: fiscalUrl, credentials, lease: { lingerMs: 60_000 } });
    const all = ids(0, REGISTERS);
    await Promise.all(all.map((IdKkm) => fiscal.shifts.open({ IdKkm })));
    await rate(fiscal, all, REGISTERS); // every register's lease taken and its Uid read once
    // At once, while the warm-up's keep-alive connections are open: the sandbox closes those idle
    // for 5 s, and a thousand new connections at once would measure the listen backlog instead.
    const ours = process.cpuUsage();
    const theirs = cpuSeconds(child.pid!);
    const t = performance.now();
    const many = await rate(fiscal, all, 3 * REGISTERS);
    const wall = (performance.now() - t) / 1000;
    const clientCpu = (process.cpuUsage(ours).user + process.cpuUsage(ours).system) / 1e6;
    const sandboxCpu = theirs === undefined ? undefined : cpuSeconds(child.pid!)! - theirs;
    const one: number[] = [];
    const ten: number[] = [];
    for (let round = 0; round < 3; round++) {
      one.push(await rate(fiscal, ids(0, 1), 20));
      ten.push(await rate(fiscal, ids(0, 10), 200));
    }
    const best = (xs: number[]) => Math.max(...xs);
    report(`fiscal receipts/s, sandbox answering after ${LATENCY_MS} ms, one register`, best(one).toFixed(1), `ideal ${1000 / LATENCY_MS}`);
    report("  ten registers / one register, one process", (best(ten) / best(one)).toFixed(2), "≥ 9.5");
    report(`  ${REGISTERS} registers in one process, receipts/s`, many.toFixed(0), `ideal ${(REGISTERS * 1000) / LATENCY_MS}`);
    report(
      `  ${REGISTERS} registers: CPU busy, client process / sandbox process`,
      `${((100 * clientCpu) / wall).toFixed(0)}% / ${sandboxCpu === undefined ? "?" : ((100 * sandboxCpu) / wall).toFixed(0)}%`,
      "the one near 100% is the bottleneck",
    );
    const bare = await bareCpu(fiscalUrl, 3);
    report(`  client CPU per receipt at ${REGISTERS} registers`, `${((clientCpu / (3 * REGISTERS)) * 1e6).toFixed(0)} µs`);
    report(`  bare node:http CPU per POST, same concurrency (the floor)`, `${((bare / (3 * REGISTERS)) * 1e6).toFixed(0)} µs`);
    report("  client CPU ÷ that floor", (clientCpu / bare).toFixed(2), "the SDK's own part is what exceeds 1");
    report("  receipts sent again (NotAppliedError: a keep-alive connection closed under them)", String(resent));
    await fiscal.close(); // its leases given back: the chains walked by hand, then the processes below, take the same registers
    const hand = await handWalkedChains(fiscalUrl, child.pid!, 3);
    report(
      `  the same ${REGISTERS} registers walked by hand (bare node:http, real receipts): receipts/s, CPU per receipt, sandbox CPU`,
      `${hand.rate.toFixed(0)}, ${((hand.cpu / (3 * REGISTERS)) * 1e6).toFixed(0)} µs, ${hand.sandbox === undefined ? "?" : `${hand.sandbox.toFixed(0)}%`}`,
    );
    report(`  the client's receipts/s ÷ the hand-walked chains'`, (many / hand.rate).toFixed(2), "near 1: the SDK not the bottleneck");
    // The same 1,000 registers in a process of their own, with V8's young generation as Node sets it
    // and four times as large: how much of the client's CPU its garbage collector takes (fleets.md, "Sizing").
    for (const flags of [[], [`--max-semi-space-size=${SEMI_SPACE_MB}`]]) {
      const run = await processes(fiscalUrl, child.pid!, { kind: "memory" }, 1, { perProcess: REGISTERS, rounds: 3, flags });
      const perReceipt = (run.cpu.clients / 100 / run.rate) * 1e6;
      report(
        `  ${REGISTERS} registers, a process of their own${flags.length ? `, node ${flags[0]}` : ""}: receipts/s, client CPU per receipt`,
        `${run.rate.toFixed(0)}, ${perReceipt.toFixed(0)} µs`,
      );
    }

    // N processes × PER_PROCESS registers each, all on one shared store of each kind.
    for (const kind of storeKinds) {
      const store = await kind.start();
      try {
        const runs = new Map<number, Awaited<ReturnType<typeof processes>>>();
        for (const n of PROCESSES) runs.set(n, await processes(fiscalUrl, child.pid!, store.config(n), n));
        const single = runs.get(1)!.rate;
        report(`${kind.name}, 1 process × ${PER_PROCESS} registers, receipts/s`, single.toFixed(0), `ideal ${(PER_PROCESS * 1000) / LATENCY_MS}`);
        for (const n of PROCESSES.slice(1))
          report(`  ${n} processes × ${PER_PROCESS} registers / 1 process, one ${kind.name}`, (runs.get(n)!.rate / single).toFixed(2), `ideal ${n}`);
        for (const n of PROCESSES) {
          const { cpu } = runs.get(n)!;
          const sandbox = cpu.sandbox === undefined ? "?" : `${cpu.sandbox.toFixed(0)}%`;
          const machine = cpu.machine === undefined ? "?" : `${cpu.machine.toFixed(0)}%`;
          report(
            `  ${n} × ${PER_PROCESS}: CPU busy, clients (one core = 100%) / sandbox / the machine (all ${availableParallelism()} cores)`,
            `${cpu.clients.toFixed(0)}% / ${sandbox} / ${machine}`,
            "where it stops: the one near its limit",
          );
        }
        const total = (f: (run: { resent: number; late: number }) => number) => [...runs.values()].reduce((sum, run) => sum + f(run), 0);
        report("  receipts sent again: not applied / could not start within the journaled window", `${total((r) => r.resent)} / ${total((r) => r.late)}`);
      } finally {
        await store.stop();
      }
    }
  } finally {
    child.kill();
  }
}

/** A shared store for the multi-process part: `config(n)` is what the workers of the n-process run open (a fresh store each run). */
interface StoreKind {
  name: string;
  start(): Promise<{ config(n: number): object; stop(): Promise<void> }>;
}

const served = (name: string, kind: string, start: () => Promise<RunningServer>, prepare?: (url: string) => Promise<void>, options: object = {}): StoreKind => ({
  name,
  async start() {
    const server = await start();
    await prepare?.(server.url);
    // One server for the three runs: each run's workers find the registers' leases given back by the last run's.
    return { config: () => ({ kind, url: server.url, ...options }), stop: () => server.stop() };
  },
});

const storeKinds: StoreKind[] = [
  {
    name: "FileStore",
    async start() {
      const folder = mkdtempSync(join(tmpdir(), "paysys-bench-fleet-"));
      return { config: (n) => ({ kind: "file", path: join(folder, `store-${n}.json`) }), stop: async () => rmSync(folder, { recursive: true, force: true }) };
    },
  },
  served("Redis", "redis", startRedis),
  served(
    "PostgreSQL",
    "postgres",
    startPostgres,
    async (url) => {
      const pool = new pg.Pool({ connectionString: url });
      await migrate(pool).finally(() => pool.end());
    },
    { max: 16 }, // a pool sized for a process's 100 registers at once (the store's README: "Sizing")
  ),
];

/** What a multi-process run kept busy, in % of one core (the machine: of all its cores). */
interface CpuBusy {
  clients: number;
  sandbox?: number;
  machine?: number;
}

/**
 * `n` worker processes, each on its own PER_PROCESS registers, all on one shared store: receipts/s
 * of them all, and the CPU the workers, the sandbox (process `sandboxPid`) and the machine spent.
 */
async function processes(
  fiscalUrl: string,
  sandboxPid: number,
  store: object,
  n: number,
  shape: { perProcess: number; rounds: number; flags: string[] } = { perProcess: PER_PROCESS, rounds: ROUNDS, flags: [] },
): Promise<{ rate: number; resent: number; late: number; cpu: CpuBusy }> {
  const script = fileURLToPath(import.meta.url);
  const receipts = shape.perProcess * shape.rounds;
  const workers = Array.from({ length: n }, (_, k) => {
    const config = { fiscalUrl, store, registers: ids(k * shape.perProcess, shape.perProcess), receipts };
    const child = spawn(process.execPath, [...shape.flags, ...process.execArgv, script, "worker", JSON.stringify(config)], { stdio: ["pipe", "pipe", "inherit"] });
    const lines = createInterface({ input: child.stdout! });
    const exited = new Promise<never>((_, reject) => child.once("exit", (code) => reject(new Error(`a bench worker ended (${code}) before it was done`))));
    exited.catch(() => {});
    const next = () => Promise.race([new Promise<string>((resolve) => lines.once("line", resolve)), exited]);
    return { child, next, ready: next() };
  });
  await Promise.all(workers.map((w) => w.ready)); // shifts open, leases taken: only the receipts are timed
  const sandbox = cpuSeconds(sandboxPid);
  const machine = machineSeconds();
  const t = performance.now();
  const done = workers.map((w) => w.next());
  for (const w of workers) w.child.stdin!.end("go\n");
  const answers = await Promise.all(done);
  const wall = (performance.now() - t) / 1000;
  const machineAfter = machineSeconds();
  const cpu = {
    sandbox: sandbox === undefined ? undefined : (100 * (cpuSeconds(sandboxPid)! - sandbox)) / wall,
    machine: machine && machineAfter ? (100 * (machineAfter.busy - machine.busy)) / (machineAfter.total - machine.total) : undefined,
  };
  // Each worker gives its leases back as it closes: the next run's workers take the same registers.
  await Promise.all(workers.map((w) => (w.child.exitCode === null ? new Promise((resolve) => w.child.once("exit", resolve)) : undefined)));
  // Each worker says how many of its receipts had to be sent again, and the CPU it spent on them.
  const said = answers.map((a) => JSON.parse(a) as { resent: number; late: number; cpuSeconds: number });
  const sum = (f: (x: (typeof said)[number]) => number) => said.reduce((total, x) => total + f(x), 0);
  return { rate: (n * receipts) / wall, resent: sum((x) => x.resent), late: sum((x) => x.late), cpu: { ...cpu, clients: (100 * sum((x) => x.cpuSeconds)) / wall } };
}

/** The worker: takes its registers (one receipt each), says so, and on `go` registers its receipts all at once. */
async function worker(config: { fiscalUrl: string; store: { kind?: string }; registers: number[]; receipts: number }): Promise<void> {
  // `memory`: the client's own default store, as the one-process part runs.
  const { store, close } = config.store.kind === "memory" ? { store: undefined, close: async () => {} } : await openStore(config.store);
  const fiscal = createFiscalClient({ baseUrl: config.fiscalUrl, credentials, ...(store ? { store } : {}), lease: { lingerMs: 60_000 } });
  const open = (IdKkm: number) => fiscal.shifts.open({ IdKkm }).catch((e) => (e instanceof ShiftAlreadyOpenError ? undefined : Promise.reject(e)));
  await Promise.all(config.registers.map(open)); // the one-process part opened them already
  await rate(fiscal, config.registers, config.registers.length);
  process.stdout.write("ready\n");
  await new Promise((resolve) => process.stdin.once("data", resolve));
  resent = 0;
  late = 0;
  const cpu = process.cpuUsage();
  await rate(fiscal, config.registers, config.receipts);
  const spent = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ resent, late, cpuSeconds: (spent.user + spent.system) / 1e6 })}\n`);
  await fiscal.close();
  await close();
  process.exit(0);
}

if (process.argv[2] === "worker") await worker(JSON.parse(process.argv[3]!));
