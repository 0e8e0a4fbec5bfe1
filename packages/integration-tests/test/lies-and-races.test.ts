// Lies and races a hostile probe found (2026-11-26), each one ending in money believed moved that
// was not, or sent twice under one key:
// - A receipt took effect and its answer brought no next `Uid` (a proxy stripped it, or the answer
//   gave back the one presented), or a shift was opened and its answer was lost. The register's link
//   is then unknown: the next receipt must read it afresh, or it presents a spent one and, should its
//   own answer be lost too, the chain having moved reads as "it took effect".
// - `journal.recover()` while a call of this program is still on its way: the status query cannot know
//   it yet, so the intent must stay pending; settled "not applied", another client sent it again. Two
//   clients of one program may share its holder name: the calls under way are the process's, not a client's.
// - A call that timed out while the service was still working on it: "not there yet" is not "not
//   applied" until the request can no longer land; taken as final, the caller sent the payment again.
// - A 404 page on the status query that is not the gateway's own answer (a proxy, a wrong address):
//   it says nothing of the payment, so the outcome stays unknown rather than "not applied".
// - A process killed while its request was at work in the service, started again at once under its
//   holder name: "not there yet" is not "not applied" for the request its last life sent either.
// - A gateway that gives up on the service and cuts its caller off (a reset, a 503 or 524 of its own)
//   while the service goes on: the same, whoever stopped waiting. (A second probe, 2026-11-27: also
//   when its error page looks like the service's (Spring's JSON `error`), is a 408 or 499, is a
//   maintenance page sent as 200, or is a redirect: nginx's `error_page 504 <url>`.)

import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCashoutClient } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { FileStore } from "@paysys/core/node";
import { createEcommerceClient } from "@paysys/ecommerce";
import { AnswerLostError, createFiscalClient, type FiscalClient, NotAppliedError, OutcomeUnknownError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";
import { killHard, pause, startWorker, type Worker } from "./workers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterEach(() => sb.faults.clear());
afterAll(() => sb.close());

const receipt = (idKkm: number, Name: string) => ({ idKkm, IdDomain: 1, Positions: [{ Name, IdSection: 1, Price: "10", Qty: 1 }], Total: "10", Cash: "10" });
const tills: FiscalClient[] = [];
/** A till whose cut-off requests are taken to land within 200 ms (`landingMs`), so a test need not wait 10 s for "not applied". */
const till = () => {
  const client = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), landingMs: 200 });
  tills.push(client);
  return client;
};
afterAll(() => Promise.all(tills.map((t) => t.close())));
const documents = (idKkm: number) => sb.fiscal.documents(idKkm).length;
/** The payment creations that reached the gateway since the last test (its faults and record are cleared after each). */
const creates = () => sb.faults.seen.filter((s) => s.path.endsWith("/payment/create")).length;
/** Loses the next sale on the register before it reaches the service: only the SDK's check can tell it did nothing. */
const loseNextSale = (idKkm: number) => sb.faults.add({ path: `/fiscal/kkms/${idKkm}/sales`, fault: { kind: "reset-before-headers" } });

describe("an applied receipt whose answer brings no next Uid", () => {
  for (const [register, value, what] of [
    [101, "none", "without the Uid header"],
    [102, "presented", "with the presented Uid given back"],
  ] as const) {
    it(`(${what}): the next receipt reads the Uid afresh, and its lost request is known not applied`, async () => {
      const fiscal = till();
      await fiscal.shifts.open({ IdKkm: register });
      sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, after: true, fault: { kind: "rewrite-header", name: "Uid", value } });
      await fiscal.operations.sale(receipt(register, "first"), { idempotencyKey: `${value}-1` });
      expect(documents(register)).toBe(1);

      loseNextSale(register);
      const lost = (await fiscal.operations.sale(receipt(register, "second"), { idempotencyKey: `${value}-2` }).catch((e: unknown) => e)) as OutcomeUnknownError;
      expect(lost).toBeInstanceOf(OutcomeUnknownError); // cut off after it left: not known at once
      expect(await lost.wasApplied!()).toBe(false); // not AnswerLostError: nothing was registered
      expect(documents(register)).toBe(1);
      expect((await fiscal.journal.get({ operation: "operations.sale", key: `${value}-2` }))?.state).toBe("not-applied");

      // Sent again under its key, it is registered once; the register goes on.
      await fiscal.operations.sale(receipt(register, "second"), { idempotencyKey: `${value}-2` });
      await fiscal.operations.sale(receipt(register, "third"));
      expect(sb.fiscal.documents(register).map((d) => d.names[0])).toEqual(["first", "second", "third"]);
    });
  }
});

describe("a shift opened whose answer was lost", () => {
  it("the next receipt presents the new shift's Uid: honest, it is registered; lost, it is known not applied", async () => {
    const register = 103;
    const fiscal = till();
    const shift = await fiscal.shifts.open({ IdKkm: register });
    await fiscal.operations.sale(receipt(register, "old shift"));
    await fiscal.shifts.closeWithZReport({ idShift: shift.Id, IdKkm: register });

    sb.faults.add({ path: "/fiscal/shifts", after: true, fault: { kind: "reset-before-headers" } });
    await expect(fiscal.shifts.open({ IdKkm: register })).rejects.toBeInstanceOf(AnswerLostError); // it did open
    expect(sb.fiscal.register(register)?.shift).toBeTruthy();

    loseNextSale(register);
    const lost = (await fiscal.operations.sale(receipt(register, "new shift"), { idempotencyKey: "after-open" }).catch((e: unknown) => e)) as OutcomeUnknownError;
    expect(await lost.wasApplied!()).toBe(false);
    await fiscal.operations.sale(receipt(register, "new shift"), { idempotencyKey: "after-open" });
    const inNewShift = sb.fiscal.documents(register).filter((d) => d.shift === sb.fiscal.register(register)!.shift!.Id);
    expect(inNewShift.map((d) => d.names[0])).toEqual(["new shift"]);
  });
});

describe("journal.recover() while a payment of this process is on its way", () => {
  for (const [what, holder, recoverer] of [
    ["by the client that sends it", undefined, "sender"],
    ["by another client of the program, with the program's one holder name", "shop-1", "other"],
  ] as const) {
    it(`(${what}) leaves the intent pending; the call then answers, and no client sends the order again`, async () => {
      const store = new MemoryStore();
      const shop = () => createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store, ...(holder ? { holder } : {}) });
      const [sender, other] = [shop(), shop()];
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 600 } });
      const params = { amount: 1_000, orderId: `on-its-way-${recoverer}` };
      const first = sender.payments.create(params);
      await new Promise((resolve) => setTimeout(resolve, 150)); // the request is held at the gateway
      const recovered = await (recoverer === "sender" ? sender : other).journal.recover();
      expect(recovered).toEqual([{ operation: "payments.create", key: params.orderId, state: "pending" }]);
      await expect(other.payments.create(params)).rejects.toMatchObject({ name: "IdempotencyKeyInUseError" });
      await expect(first).resolves.toMatchObject({ orderId: params.orderId });
      expect((await sender.journal.get({ operation: "payments.create", key: params.orderId }))?.state).toBe("applied");
      expect(creates()).toBe(1);
    });
  }
});

describe("two tills of one process on one register", () => {
  for (const [what, stores] of [
    ["on one store, with the program's one holder name", "shared"],
    ["each on a store of its own", "own"],
  ] as const) {
    it(`(${what}) take turns on the register: both receipts registered, neither disputed`, async () => {
      const register = stores === "shared" ? 104 : 105;
      const shared = new MemoryStore();
      const make = () => createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: stores === "shared" ? shared : new MemoryStore(), holder: "till-7" });
      const [a, b] = [make(), make()];
      tills.push(a, b);
      await a.shifts.open({ IdKkm: register });
      sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 300 } });
      const [one, two] = await Promise.allSettled([a.operations.sale(receipt(register, "a")), b.operations.sale(receipt(register, "b"))]);
      expect([one.status, two.status]).toEqual(["fulfilled", "fulfilled"]);
      await a.operations.sale(receipt(register, "a again"));
      expect(
        sb.fiscal
          .documents(register)
          .map((d) => d.names[0])
          .sort(),
      ).toEqual(["a", "a again", "b"]);
    });
  }
});

describe("two fresh tills of one process whose first calls start together", () => {
  it("take turns on the register too", async () => {
    const register = 107;
    const opener = till();
    await opener.shifts.open({ IdKkm: register });
    await opener.close();
    const [a, b] = [till(), till()]; // each on a store of its own
    const [one, two] = await Promise.allSettled([a.operations.sale(receipt(register, "a")), b.operations.sale(receipt(register, "b"))]);
    expect([one.status, two.status]).toEqual(["fulfilled", "fulfilled"]);
    expect(
      sb.fiscal
        .documents(register)
        .map((d) => d.names[0])
        .sort(),
    ).toEqual(["a", "b"]);
  });
});

describe("a call that timed out while the service was still working on it", () => {
  // The sandbox holds the request 800 ms, then does what it asks (as a slow service does once the
  // client has given up); the client waits 300 ms.
  it("a payment: outcome unknown, not 'not applied'; the same key is never sent again; asked later, it was applied", async () => {
    const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), timeoutMs: 300 });
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 800 } });
    const params = { amount: 1_000, orderId: "slow-gateway" };
    const error = await shop.payments.create(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(error).not.toBeInstanceOf(NotAppliedError);
    // Sent again at once under its key: the SDK asks, hears "not there yet", and still sends nothing.
    await expect(shop.payments.create(params)).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect(creates()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 800)); // it has landed now
    expect(await (error as OutcomeUnknownError).wasApplied!()).toBe(true);
    await expect(shop.payments.create(params)).rejects.toBeInstanceOf(AnswerLostError);
    expect(creates()).toBe(1);
  });

  it("a receipt: outcome unknown; nothing new is sent on the register meanwhile; asked later, it was registered", async () => {
    const register = 106;
    const fiscal = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), timeoutMs: 300 });
    tills.push(fiscal);
    await fiscal.shifts.open({ IdKkm: register });
    sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 800 } });
    const error = await fiscal.operations.sale(receipt(register, "slow"), { idempotencyKey: "slow-1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    await expect(fiscal.operations.sale(receipt(register, "next"))).rejects.toMatchObject({ name: "UnresolvedOutcomeError" });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await (error as OutcomeUnknownError).wasApplied!()).toBe(true);
    expect(documents(register)).toBe(1);
    await fiscal.operations.sale(receipt(register, "next"));
    expect(sb.fiscal.documents(register).map((d) => d.names[0])).toEqual(["slow", "next"]);
  });
});

describe("a call that timed out, asked about or followed at once", () => {
  it("wasApplied() asked before the request landed waits for its window, then answers what the service did", { timeout: 30_000 }, async () => {
    const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), timeoutMs: 300 });
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 800 } });
    const error = (await shop.payments.create({ amount: 1_000, orderId: "asked-early" }).catch((e: unknown) => e)) as OutcomeUnknownError;
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect(await error.wasApplied!()).toBe(true); // "not there" at once; there after the window
    expect(creates()).toBe(1);
  });

  for (const [register, what] of [
    [108, "after the slow till's check said 'not yet'"],
    [109, "after the slow till's check failed too"],
    [110, "after the slow till closed, then recovered"],
  ] as const) {
    it(`another till waits for the register until the receipt can no longer land (${what}), and finds the chain it moved`, { timeout: 30_000 }, async () => {
      const slow = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), timeoutMs: 300 });
      const other = createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), lease: { waitMs: 20_000 } });
      tills.push(slow, other);
      await slow.shifts.open({ IdKkm: register });
      sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 2_500 } }); // lands after the lease's linger
      if (register === 109) sb.faults.add({ path: `/fiscal/uid/${register}`, times: 3, fault: { kind: "status", status: 500, body: "{}" } });
      const error = (await slow.operations.sale(receipt(register, "slow")).catch((e: unknown) => e)) as OutcomeUnknownError;
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      if (register === 110) {
        await slow.close();
        await slow.journal.recover();
      }
      await other.operations.sale(receipt(register, "other"));
      expect(sb.fiscal.documents(register).map((d) => d.names[0])).toEqual(["slow", "other"]);
    });
  }
});

describe("a 404 on the status query that is not the gateway's", () => {
  for (const [fault, what] of [
    [{ kind: "html", status: 404 }, "a proxy's HTML page"],
    [{ kind: "status", status: 404, body: "Not Found", contentType: "text/plain" }, "plain text"],
  ] as const) {
    it(`(${what}) leaves a lost payment's outcome unknown, never "not applied"; asked again, it is applied`, async () => {
      const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore() });
      const orderId = `lost-then-404-${what.length}`;
      sb.faults.add({ path: "/ecommerce/payment/create", after: true, fault: { kind: "reset-before-headers" } });
      sb.faults.add({ path: "/ecommerce/payment/status", fault });
      const error = await shop.payments.create({ amount: 1_000, orderId }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(error).not.toBeInstanceOf(NotAppliedError);
      expect((await shop.journal.get({ operation: "payments.create", key: orderId }))?.state).toBe("pending");
      // The status query answers honestly now: the payment was created, and it is never created again.
      expect(await (error as OutcomeUnknownError).wasApplied!()).toBe(true);
      await expect(shop.payments.create({ amount: 1_000, orderId })).rejects.toBeInstanceOf(AnswerLostError);
      expect(creates()).toBe(1);
    });
  }

  it("the gateway's own 404 still means not applied: a payment lost before it arrived may be sent again", async () => {
    const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new MemoryStore(), landingMs: 200 });
    sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "reset-before-headers" } });
    const error = (await shop.payments.create({ amount: 1_000, orderId: "never-arrived" }).catch((e: unknown) => e)) as OutcomeUnknownError;
    expect(error).toBeInstanceOf(OutcomeUnknownError); // cut off after it left: "not found" is final once it can no longer land
    expect(await error.wasApplied!()).toBe(false);
    await expect(shop.payments.create({ amount: 1_000, orderId: "never-arrived" })).resolves.toMatchObject({ orderId: "never-arrived" });
  });
});

/** Whether this test may choose the next pid (root, writing ns_last_pid): a pid given back to the next life, as after a wrap. */
const canChoosePid = (() => {
  try {
    accessSync("/proc/sys/kernel/ns_last_pid", constants.W_OK);
    return true;
  } catch {
    return false;
  }
})();

/** Starts `one-payment.mjs` as the process `pid` (the kernel gives out the pid after ns_last_pid; others may race it). */
async function startAsPid(pid: number, args: string[]): Promise<Worker> {
  for (let tries = 0; tries < 50; tries++) {
    writeFileSync("/proc/sys/kernel/ns_last_pid", String(pid - 1));
    const worker = startWorker(new URL("./fixtures/one-payment.mjs", import.meta.url), args);
    if (worker.child.pid === pid) return worker;
    await killHard(worker);
  }
  throw new Error(`no process could be started as pid ${pid}`);
}

describe("a shop killed while its payment is at work in the gateway, started again at once under its holder name", () => {
  it.runIf(canChoosePid)("with its pid given back too, it is another life: the payment stays pending, and is not sent again", { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "paysys-same-pid-"));
    try {
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 1_500 } });
      const args = [sb.url, join(dir, "store.json"), JSON.stringify(merchant), "till-7", "same-pid-1"];
      const first = startWorker(new URL("./fixtures/one-payment.mjs", import.meta.url), args);
      const pid = Number((await first.ready).pid);
      while (creates() === 0) await pause(5); // at work in the gateway
      expect(await killHard(first)).toBe(true);
      const next = await startAsPid(pid, args);
      await next.ready;
      const ended = await new Promise((resolve) => next.lines.once("line", (line) => resolve(JSON.parse(line))));
      expect(ended).toMatchObject({ recovered: [{ key: "same-pid-1", state: "pending" }], result: "OutcomeUnknownError" });
      await pause(1_700); // the first life's request has done its work in the gateway
      expect(creates()).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("recover() leaves the payment pending until it can no longer land; then it is found created, and never sent again", { timeout: 40_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "paysys-restart-"));
    try {
      const storePath = join(dir, "store.json");
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 1_500 } });
      // crash-worker.mjs's shop: holder "ecommerce-crash-worker", one payment under the order id "e-0".
      const args = ["ecommerce", sb.url, storePath, join(dir, "beliefs.jsonl"), "1", JSON.stringify(merchant)];
      const worker = startWorker(new URL("./fixtures/crash-worker.mjs", import.meta.url), args);
      await worker.ready;
      while (creates() === 0) await pause(5); // the request has reached the gateway, which is at work on it
      expect(await killHard(worker)).toBe(true);

      // Its next life: the same store and holder name, in another process (this one).
      const shop = createEcommerceClient({ baseUrl: sb.ecommerceUrl, ...merchant, store: new FileStore(storePath), holder: "ecommerce-crash-worker" });
      expect(await shop.journal.recover()).toEqual([{ operation: "payments.create", key: "e-0", state: "pending" }]);
      // Nor may a person mark it "not applied" meanwhile: what the gateway shows now is not final.
      const refused = await shop.journal.settle({ operation: "payments.create", key: "e-0" }, false).catch((e: unknown) => e);
      expect(String(refused)).toMatch(/may still reach the service until/);
      const error = await shop.payments.create({ amount: 1_000, orderId: "e-0", demo: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect(await (error as OutcomeUnknownError).wasApplied!()).toBe(true); // asked again once it could no longer land
      expect(creates()).toBe(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a gateway that gives up on the service and cuts its caller off while the service goes on", () => {
  /** How the gateway fails the money request it passed on, 200 ms after passing it on: none, a reset, or an answer of its own. */
  let failing: "reset" | { status: number; type: string; body: string; location?: string } | undefined;
  let gateway = "";
  const server = createServer((req, res) => {
    const service = new URL(sb.url);
    const upstream = request({ host: service.hostname, port: service.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (res.headersSent || res.destroyed) return answer.resume();
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
    const how = failing;
    if (how === undefined || !/\/(payment\/create|sales|cash-out-request)$/.test(req.url ?? "")) return;
    setTimeout(() => {
      if (res.headersSent) return;
      if (how === "reset") req.socket.destroy();
      else res.writeHead(how.status, { "content-type": how.type, ...(how.location ? { location: how.location } : {}) }).end(how.body);
    }, 200);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    gateway = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    failing = undefined;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  const text = (status: number, body: string) => ({ status, type: "text/plain", body });
  /** Spring Cloud Gateway's error body: its `error` field is where the e-commerce envelope puts the service's error. */
  const spring = (status: number, error: string) => ({
    status,
    type: "application/json",
    body: JSON.stringify({ timestamp: "2026-11-27T00:00:00Z", path: "/payment/create", status, error }),
  });
  const ways: [string, typeof failing][] = [
    ["a reset", "reset"],
    ["a 503", text(503, "upstream timed out")],
    ["a 524", text(524, "a timeout occurred")],
    ["Spring's 500 in JSON", spring(500, "Internal Server Error")],
    ["Spring's 503 in JSON", spring(503, "Service Unavailable")],
    ["a 408", text(408, "stream timeout")],
    ["a 499", text(499, "client closed request")],
    ["a maintenance page sent as 200", { status: 200, type: "text/html", body: "<html><body>Back soon</body></html>" }],
    ["nginx's error_page redirect", { status: 302, type: "text/html", body: "<html>302 Found</html>", location: "https://status.example/" }],
  ];
  for (const [what, how] of ways) {
    it(`(${what}) a payment: unknown, never sent again; asked once it can no longer land, it was created`, async () => {
      // Taken to land within 2 s: the service takes 1.5 s.
      const shop = createEcommerceClient({ baseUrl: `${gateway}/ecommerce`, ...merchant, store: new MemoryStore(), landingMs: 2_000 });
      sb.faults.add({ path: "/ecommerce/payment/create", fault: { kind: "delay", ms: 1_500 } });
      failing = how;
      const params = { amount: 1_000, orderId: `gateway-${what}`, demo: true };
      const error = (await shop.payments.create(params).catch((e: unknown) => e)) as OutcomeUnknownError;
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      failing = undefined;
      await expect(shop.payments.create(params)).rejects.toBeInstanceOf(OutcomeUnknownError); // the same key, not sent
      expect(await error.wasApplied!()).toBe(true);
      expect(creates()).toBe(1);
    });
  }

  it("(nginx's error_page redirect) a cash-out: unknown, not spent as refused; stored once", async () => {
    const cash = createCashoutClient({ baseUrl: `${gateway}/cashout`, credentials: cashoutCredentials, store: new MemoryStore(), landingMs: 2_000 });
    await cash.requests.create({ amount: 1 }); // signed in
    const before = sb.cashout.stats.stored;
    sb.faults.add({ path: "/cashout/cash-out-request", fault: { kind: "delay", ms: 1_500 } });
    failing = ways.find(([what]) => what === "nginx's error_page redirect")![1];
    await expect(cash.requests.create({ amount: 9_000, account: "77771112233" }, { idempotencyKey: "redirected-cash-out" })).rejects.toBeInstanceOf(OutcomeUnknownError);
    failing = undefined;
    expect((await cash.journal.get({ operation: "requests.create", key: "redirected-cash-out" }))?.state).toBe("pending");
    await pause(1_600);
    expect(sb.cashout.stats.stored - before).toBe(1);
  });

  for (const [what, how, register] of [
    ["a reset", "reset", 101],
    ["a 408", text(408, "stream timeout"), 102],
  ] as const) {
    it(`(${what}) a receipt: unknown, never sent again; asked once it can no longer land, it was registered`, async () => {
      const fiscal = createFiscalClient({ baseUrl: `${gateway}/fiscal`, credentials: fiscalCredentials, store: new MemoryStore(), landingMs: 2_000 });
      tills.push(fiscal);
      // Its shift, unless an earlier test left it open (the service's 424).
      await fiscal.shifts.open({ IdKkm: register }).catch((e: unknown) => expect(e).toMatchObject({ status: 424 }));
      const before = documents(register);
      sb.faults.add({ path: `/fiscal/kkms/${register}/sales`, fault: { kind: "delay", ms: 1_500 } });
      failing = how;
      const key = `cut-off-${register}`;
      const error = (await fiscal.operations.sale(receipt(register, "cut off"), { idempotencyKey: key }).catch((e: unknown) => e)) as OutcomeUnknownError;
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      failing = undefined;
      expect(await error.wasApplied!()).toBe(true);
      await expect(fiscal.operations.sale(receipt(register, "cut off"), { idempotencyKey: key })).rejects.toBeInstanceOf(AnswerLostError);
      expect(documents(register) - before).toBe(1);
    });
  }
});
