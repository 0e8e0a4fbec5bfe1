// Attempts' timeouts on one shared timer (deadlines.ts): each deadline fires once, at its time and
// not before, whatever order they were added in; a stopped one never fires; and a process stays
// alive while an attempt waits for its answer, and not after its last call (the shared timer stays
// armed for the next attempt, so it must stop holding the process once nothing waits).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { startDeadline, stopDeadline } from "../src/internal/deadlines.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("deadlines on one timer", () => {
  it("fires each at its own time, a shorter one added later first; a stopped one never", async () => {
    const fired: [string, number][] = [];
    const start = performance.now();
    const note = (name: string) => () => fired.push([name, performance.now() - start]);
    startDeadline(120, note("long"));
    startDeadline(30, note("short"));
    const stopped = startDeadline(60, note("stopped"));
    stopDeadline(stopped);
    startDeadline(80, note("middle"));
    await sleep(200);
    // In order of their times, not of their starts (fired together at the first one's time, they would come in the order they were started).
    expect(fired.map(([name]) => name)).toEqual(["short", "middle", "long"]);
    // Not before its time (libuv counts whole milliseconds: a timer may fire up to one early, and more by another clock).
    for (const [name, at] of fired) expect(at, name).toBeGreaterThanOrEqual({ short: 28, middle: 78, long: 118 }[name]!);
  });

  it("a deadline started by one that fires is kept; one stopped by it does not fire, though both were due", async () => {
    const fired: string[] = [];
    let later: ReturnType<typeof startDeadline> | undefined;
    startDeadline(10, () => {
      fired.push("first");
      startDeadline(10, () => fired.push("started by the first"));
      stopDeadline(later!);
    });
    later = startDeadline(15, () => fired.push("stopped by the first"));
    // The timer comes late (a busy process): both are due when it fires, and the first stops the other.
    for (const start = performance.now(); performance.now() - start < 30; );
    await sleep(80);
    expect(fired).toEqual(["first", "started by the first"]);
  });

  it("a deadline started once fake timers are gone fires, though the timer was last armed on a fake one", async () => {
    vi.useFakeTimers();
    try {
      stopDeadline(startDeadline(500, () => {}));
    } finally {
      vi.useRealTimers();
    }
    let fired = false;
    startDeadline(60_000, () => {}); // later than the fake one: before, only this would have kept the timer
    startDeadline(20, () => {
      fired = true;
    });
    await sleep(150);
    expect(fired).toBe(true);
  });

  it("fires a thousand deadlines once each", async () => {
    let fired = 0;
    for (let i = 0; i < 1000; i++) startDeadline(5 + (i % 20), () => fired++);
    await sleep(100);
    expect(fired).toBe(1000);
  });
});

describe("a process and the shared timer", () => {
  const core = new URL("../dist/internal/index.js", import.meta.url).pathname;
  const run = (script: string) => promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { timeout: 20_000 });
  const transport = (timeoutMs: number, fetch: string) =>
    `import { createInvoker, Transport } from ${JSON.stringify(core)};
const op = { id: "t.op", method: "post", path: "/op", security: [], idempotent: false, movesMoney: false, body: true, envelope: { params: "" }, unwrap: { at: [""] } };
const transport = new Transport({ baseUrl: "http://service.test", timeoutMs: ${timeoutMs}, fetch: ${fetch} });
const call = () => createInvoker({ transport, operations: { [op.id]: op } }).invoke(op, {});`;

  it("stays alive while an attempt waits for an answer, until its timeout", async () => {
    // The fetch never answers and holds nothing open: only the attempt's deadline keeps the process.
    const { stdout } = await run(`${transport(300, "(url, init) => new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)))")}
const started = Date.now();
await call().catch((e) => console.log(e.name, Date.now() - started >= 290));`);
    expect(stdout.trim()).toBe("TimeoutError true");
  });

  it("exits once its last call is over, though that call's deadline is minutes away", async () => {
    const started = Date.now();
    const { stdout } = await run(`${transport(600_000, "async () => Response.json({ ok: 1 })")}
console.log(JSON.stringify(await call()));`);
    expect(stdout.trim()).toBe('{"ok":1}');
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
