// What the bench's sections share: sample statistics, a timing loop, the sandbox in its own
// process, and the interleaved pair of a candidate against its baseline.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The middle half of a sample, as "low–high". */
export const iqr = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[Math.floor(s.length / 4)]!.toFixed(3)}–${s[Math.floor((3 * s.length) / 4)]!.toFixed(3)}`;
};

/** Mean milliseconds per call over `n` calls, one after another. */
export const time = async (fn: () => Promise<unknown> | unknown, n: number) => {
  const t = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - t) / n;
};

/** A repeatable pseudo-random sequence in [0, 1) (mulberry32): the same shuffles on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The sandbox in its own process, as a service would be. */
export async function startSandbox(): Promise<{ url: string; child: ChildProcess }> {
  const cli = fileURLToPath(new URL("../../../packages/sandbox/dist/cli.js", import.meta.url));
  const child = spawn(process.execPath, [cli, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the sandbox exited (${code}) before it listened`)));
    createInterface({ input: child.stdout! }).on("line", (line) => {
      const m = line.match(/^paysys sandbox on (\S+)/);
      if (m) resolve(m[1]!);
    });
  });
  return { url, child };
}

/** Per-call times of one pair: the baseline, the candidate, and the baseline again (the noise floor). */
export interface PairTimes {
  baseline: number[];
  candidate: number[];
  floor: number[];
}

/**
 * A pair as a process runs it: its first rounds, while V8 still compiles both sides' code (the
 * candidate has far more of it), then its rounds once both are warm. Goals are read against the
 * warm rounds, as JMH measures after its warm-up iterations; the first rounds are shown apart, as
 * what a process pays once.
 */
export interface PairRun extends PairTimes {
  warmup: PairTimes;
}

/**
 * Each round times one call of the baseline, of the candidate and of the baseline again (the
 * floor), in an order shuffled anew each round. A fixed order (even a rotating one) always ran the
 * baseline right after its twin, the floor, still warm; that alone made the floor read 1.05–1.10.
 * Shuffled, each function follows the others alike, and drift on a busy machine (the sandbox runs
 * beside us on two cores) falls on all three alike.
 */
export async function interleave(baseline: () => Promise<unknown>, candidate: () => Promise<unknown>, rounds: number): Promise<PairTimes> {
  const times: PairTimes = { baseline: [], candidate: [], floor: [] };
  const fns: [keyof PairTimes, () => Promise<unknown>][] = [
    ["baseline", baseline],
    ["candidate", candidate],
    ["floor", baseline],
  ];
  const random = seeded(20261124);
  for (let round = 0; round < rounds; round++) {
    for (let i = fns.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [fns[i], fns[j]] = [fns[j]!, fns[i]!];
    }
    for (const [name, fn] of fns) {
      const t = performance.now();
      await fn();
      times[name].push(performance.now() - t);
    }
  }
  return times;
}

/**
 * One side of a pair against its baseline: the ratio of total times (everything, GC pauses
 * included: goals are read against it), the ratio of median call times (robust to a pause landing
 * in one call), and the spread of the total-time ratio over ten slices of the rounds.
 */
export function against(times: PairTimes, side: "candidate" | "floor") {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const own = times[side];
  const base = times.baseline;
  const slice = base.length / 10;
  const slices = Array.from({ length: 10 }, (_, k) => sum(own.slice(k * slice, (k + 1) * slice)) / sum(base.slice(k * slice, (k + 1) * slice)));
  return { total: sum(own) / sum(base), median: median(own) / median(base), spread: iqr(slices) };
}

/**
 * A raw call with what the client gives every attempt and a careful caller would add: a timeout
 * that can abort it, and redirects not followed blindly (credentials stay on one origin).
 */
export async function carefully<T>(send: (init: RequestInit) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    return await send({ signal: controller.signal, redirect: "manual" });
  } finally {
    clearTimeout(timer);
  }
}
