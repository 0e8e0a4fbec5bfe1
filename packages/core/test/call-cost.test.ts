// What a call adds to its `fetch`, counted rather than timed (a count cannot flake): the promises
// and timers one call of a loaded operation makes, against a bare `fetch` and `json()` of the same
// answer. Each await between the invoker and the adapter costs a turn of the microtask queue and a
// promise; they were most of the SDK's CPU per call (`pnpm bench` times it against orval's client).
import { createHook } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { bearerScheme, createInvoker, TokenManager, Transport } from "../src/internal/index.js";
import { testOperation } from "./operation.js";

const body = JSON.stringify({ ok: 1 });
const stub = async () => new Response(body, { headers: { "content-type": "application/json" } });

/** The async resources `fn` makes per run, by type, over many runs. */
async function madePerCall(fn: () => Promise<unknown>): Promise<Record<string, number>> {
  for (let i = 0; i < 50; i++) await fn();
  const made: Record<string, number> = {};
  const hook = createHook({
    init(_id, type) {
      made[type] = (made[type] ?? 0) + 1;
    },
  });
  const runs = 200;
  hook.enable();
  try {
    for (let i = 0; i < runs; i++) await fn();
  } finally {
    hook.disable();
  }
  return Object.fromEntries(Object.entries(made).map(([type, n]) => [type, n / runs]));
}

describe("what a call adds to its fetch", () => {
  it("a call with a bearer token makes at most one promise more than a bare fetch and json(), and no timer", async () => {
    const op = testOperation({ id: "things.get", security: ["bearer"] });
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "t" }) });
    const transport = new Transport({ baseUrl: "https://service.test", fetch: stub, schemes: { bearer: bearerScheme(tokens) } });
    const invoke = createInvoker({ transport, operations: { [op.id]: op } }).invoke;
    const call = () => invoke(op, { id: 1 });
    expect(await call()).toEqual({ ok: 1 });
    const ours = await madePerCall(call);
    const bare = await madePerCall(async () => (await stub()).json());
    // The client reads the body through its reader, where json() makes promises of its own; the one
    // more is the turn the request waits on purpose (a caller who aborts at once sends nothing).
    // Before the call path waited only where it must, a call made eleven more.
    expect(ours.PROMISE).toBeLessThanOrEqual(bare.PROMISE! + 1);
    // Attempts' timeouts share one timer (deadlines.ts): a timer per call was ~0.8 µs on Node, 2 µs on Deno.
    expect(ours.Timeout ?? 0).toBe(0);
  });
});
