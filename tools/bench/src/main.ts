// `pnpm bench`: what the SDK costs, as ratios against baselines measured in the same run, so
// the numbers compare on any machine. It prints; it never fails (goals are shown beside results).
//   1. client CPU overhead per call, with a stub fetch (no network), against bare openapi-fetch
//      with the same stub (what validation, retries and tokens cost on top of it)
//   2. portal client vs raw fetch, same request, sandbox in another process (validation off / on;
//      the client's default HTTP in Node is node:http, so the same client over Node's fetch too)
//   3. response validation vs JSON.parse of the same text: a schema with real typed fields (the
//      fiscal registers list) and the portal's payments report (whose rows are undocumented)
//   4. fiscal receipts: per second on one register and on ten (the chain serialises per register),
//      and the client against raw fetch walking the same Uid chain by hand, against raw fetch with
//      a timeout signal, against a hand-written minimal client with the same duties, and the
//      client over Node's fetch
//   5. e-commerce: card cryptograms per second against node:crypto publicEncrypt with the same key,
//      callback parse-and-validate against JSON.parse of the same bodies, and payments.create
//      against raw fetch sending the same request
import { type ChildProcess, spawn } from "node:child_process";
import { constants, createPublicKey, publicEncrypt } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { addDecimal, compareDecimal, multiplyDecimal, tengeCodec, toDecimal } from "@paysys/core/internal";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { operations as fiscalOperations } from "@paysys/fiscal/spec";
import { createPortalClient } from "@paysys/portal";
import { v2Operations } from "@paysys/portal/spec";
import { createDataSet, defaultFiscalUser, defaultMerchant, defaultPortalUser, TestCards } from "@paysys/sandbox";
import createClient from "openapi-fetch";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** The middle half of a sample, as "low–high". */
const iqr = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `${s[Math.floor(s.length / 4)]!.toFixed(3)}–${s[Math.floor((3 * s.length) / 4)]!.toFixed(3)}`;
};
const time = async (fn: () => Promise<unknown> | unknown, n: number) => {
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
const rows: string[][] = [];
const report = (what: string, value: string, goal = "") => rows.push([what, value, goal]);

/**
 * Client against baseline over the network, per call: each round times one call of the baseline,
 * of every candidate and of the baseline again (the noise floor), in an order shuffled anew each
 * round. A fixed order (even a rotating one) always ran the baseline right after its twin, the
 * floor, with its code and its HTTP stack still warm, and every candidate after a different one:
 * that alone made the floor read 1.05–1.10. Shuffled, every function follows every other alike, and
 * drift on a busy machine (the sandbox runs beside us on two cores) falls on all alike. Per
 * candidate: the ratio of total times (everything, GC pauses included: the goal is read against
 * it), the ratio of median call times (robust to a pause landing in one call), and the spread of
 * the total-time ratio over ten slices of the rounds.
 */
async function interleaved(baseline: () => Promise<unknown>, candidates: Record<string, () => Promise<unknown>>, rounds: number) {
  const fns: [string, () => Promise<unknown>][] = [["baseline", baseline], ...Object.entries(candidates), ["floor", baseline]];
  const times = new Map(fns.map(([name]) => [name, [] as number[]]));
  const random = seeded(20261124);
  for (let round = 0; round < rounds; round++) {
    for (let i = fns.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [fns[i], fns[j]] = [fns[j]!, fns[i]!];
    }
    for (const [name, fn] of fns) {
      const t = performance.now();
      await fn();
      times.get(name)!.push(performance.now() - t);
    }
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const base = times.get("baseline")!;
  const slice = rounds / 10;
  const result = (name: string) => {
    const own = times.get(name)!;
    const slices = Array.from({ length: 10 }, (_, k) => sum(own.slice(k * slice, (k + 1) * slice)) / sum(base.slice(k * slice, (k + 1) * slice)));
    return { total: sum(own) / sum(base), median: median(own) / median(base), spread: iqr(slices) };
  };
  return { baselineMs: median(base), result };
}
/**
 * A raw call with what the client gives every attempt and a careful caller would add: a timeout
 * that can abort it, and redirects not followed blindly (credentials stay on one origin).
 */
async function carefully<T>(send: (init: RequestInit) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    return await send({ signal: controller.signal, redirect: "manual" });
  } finally {
    clearTimeout(timer);
  }
}
/**
 * The floor for the fiscal client's duties on one receipt: a hand-written client that does what the
 * SDK does for it and nothing more (amounts through the same tenge codec, the request validator,
 * the totals in exact decimals, one queue and one stored Uid per register, a timeout signal, the
 * answer read whole and strictly decoded), on register 202. What the SDK costs above it is its
 * generality: envelopes, codecs and schemes read from the spec, retries, logging, error detail.
 */
async function handWrittenReceipt(fiscalUrl: string, headers: Record<string, string>) {
  const opened = await fetch(`${fiscalUrl}/shifts`, { method: "POST", headers, body: JSON.stringify({ IdKkm: 202 }) });
  const uids = new Map([[202, opened.headers.get("uid")!]]);
  await opened.json();
  const queues = new Map<number, Promise<unknown>>();
  const validate = fiscalOperations["operations.sale"].validateInput!;
  const ctx = { operation: "operations.sale", timeZone: "Asia/Almaty" };
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const sale = (idKkm: number, input: { IdDomain: number; Positions: { Name: string; IdSection: number; Price: string; Qty: number }[]; Total: string; Cash: string }) => {
    const Positions = input.Positions.map((p) => ({ ...p, Price: tengeCodec.encode(p.Price, ctx) as number }));
    const body = { ...input, Positions, Total: tengeCodec.encode(input.Total, ctx) as number, Cash: tengeCodec.encode(input.Cash, ctx) as number };
    if (!validate({ idKkm, ...body })) throw new Error("invalid receipt");
    const total = Positions.reduce((sum, p) => addDecimal(sum, multiplyDecimal(toDecimal(p.Price), toDecimal(p.Qty))), toDecimal(0));
    if (compareDecimal(total, toDecimal(body.Total)) !== 0) throw new Error("wrong total");
    const send = () =>
      carefully(async (init) => {
        const r = await fetch(`${fiscalUrl}/kkms/${idKkm}/sales`, { method: "POST", headers: { ...headers, uid: uids.get(idKkm)! }, body: JSON.stringify(body), ...init });
        uids.set(idKkm, r.headers.get("uid") ?? uids.get(idKkm)!);
        const json = JSON.parse(utf8.decode(await r.arrayBuffer())) as { Status: number; Data: unknown };
        if (json.Status !== 200) throw new Error(`minimal receipt refused: ${JSON.stringify(json)}`);
        return json.Data;
      });
    const result = (queues.get(idKkm) ?? Promise.resolve()).then(send);
    queues.set(
      idKkm,
      result.catch(() => {}),
    );
    return result;
  };
  const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];
  return () => sale(202, { IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
}
const shown = (r: { total: number; median: number; spread: string }) => `${r.total.toFixed(3)} (medians ${r.median.toFixed(3)}, IQR ${r.spread})`;

// 1. Overhead per call with a stub fetch.
{
  const body = JSON.stringify({ code: 0, message: "OK", result: { idUser: 1, lgn: "x" } });
  const stub = async () => new Response(body, { headers: { "content-type": "application/json" } });
  // Tokens are not the subject here: user.profile needs one, so the client signs in once.
  const signed = createPortalClient({ baseUrl: "http://stub.invalid", fetch: stub, extractTokens: () => ({ accessToken: "t" }) });
  await signed.signIn({ lgn: "a", psw: "b", captcha: "c", captchaSession: "s" });
  const n = 20_000;
  await time(() => signed.user.profile({ idUser: 1 }), 2_000); // warm-up
  // Bare openapi-fetch: the same request through the same stub, with the token header and JSON body.
  const bare = createClient<Record<string, never>>({ baseUrl: "http://stub.invalid", fetch: () => stub() });
  const bareCall = () => bare.request("post", "/v2/user/profile" as never, { body: { params: { idUser: 1 } }, headers: { Authorization: "Bearer t" } } as never);
  await time(bareCall, 2_000);
  const stubOnly: number[] = [];
  const client: number[] = [];
  const openapiFetch: number[] = [];
  for (let round = 0; round < 5; round++) {
    stubOnly.push(await time(async () => (await stub()).json(), n));
    client.push(await time(() => signed.user.profile({ idUser: 1 }), n));
    openapiFetch.push(await time(bareCall, n));
  }
  const ours = median(client) - median(stubOnly);
  const theirs = median(openapiFetch) - median(stubOnly);
  report(
    "client CPU overhead per call (stub fetch)",
    `${(ours * 1000).toFixed(1)} µs (client ${(median(client) * 1000).toFixed(1)} µs, stub alone ${(median(stubOnly) * 1000).toFixed(1)} µs)`,
  );
  report("bare openapi-fetch overhead per call (same stub)", `${(theirs * 1000).toFixed(1)} µs`);
  report("our overhead / openapi-fetch's own", (ours / theirs).toFixed(2), "≤ 2");
}

// The sandbox runs in its own process for sections 2 and 4, as a service would.
const cli = fileURLToPath(new URL("../../../packages/sandbox/dist/cli.js", import.meta.url));
const child: ChildProcess = spawn(process.execPath, [cli, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise<string>((resolve) => {
  createInterface({ input: child.stdout! }).on("line", (line) => {
    const m = line.match(/^paysys sandbox on (\S+)/);
    if (m) resolve(m[1]!);
  });
});

// 2. Client vs raw fetch against the sandbox in its own process.
{
  const portalUrl = `${url}/portal`;
  const solveCaptcha = async ({ captchaSession }: { captchaSession: string }) =>
    (await (await fetch(`${url}/__sandbox/portal/captcha?session=${captchaSession}`)).json()).text as string;
  const make = (validateResponses: boolean, fetch?: typeof globalThis.fetch) =>
    createPortalClient({ baseUrl: portalUrl, credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw }, solveCaptcha, validateResponses, fetch });
  const plain = make(false);
  const validating = make(true);
  // The same client over Node's own fetch, as the raw baseline: what the SDK's layers cost on one HTTP stack.
  const overFetch = make(false, (url, init) => globalThis.fetch(url, init));
  const params = { dateFrom: "20240501000000", dateTo: "20240501235959", subOn: true };
  for (const c of [plain, validating, overFetch]) await c.reports.payments(params);
  // The raw baseline sends the same bytes with the same token and parses the answer. Like every
  // baseline here it serialises its body on each call, as a caller whose data changes must.
  let token = "";
  const authorize = (t: string) => {
    token = t;
    return { Authorization: `Bearer ${t}` };
  };
  const tokenSpy = createPortalClient({ baseUrl: portalUrl, credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw }, solveCaptcha, authorize });
  await tokenSpy.user.me();
  const rawCall = async (init: RequestInit = {}) => {
    const body = JSON.stringify({ params });
    const r = await fetch(`${portalUrl}/v2/report/payments`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body, ...init });
    const json = (await r.json()) as { code: number; data: unknown[] };
    if (json.code !== 0) throw new Error("raw call failed");
    return json.data;
  };
  const carefulCall = () => carefully(rawCall);
  const candidates = {
    careful: carefulCall,
    off: () => plain.reports.payments(params),
    on: () => validating.reports.payments(params),
    overFetch: () => overFetch.reports.payments(params),
  };
  for (const f of [rawCall, ...Object.values(candidates)]) await time(f, 100);
  const run = await interleaved(rawCall, candidates, 2000);
  report("raw fetch, payments report (40 rows), per call", `${(run.baselineMs * 1000).toFixed(0)} µs`);
  report("portal client / raw fetch, validation off", shown(run.result("off")), "≤ 1.10");
  report("portal client / raw fetch, validation on", shown(run.result("on")), "≤ 1.25");
  report("raw fetch with a timeout signal and manual redirects / raw fetch", shown(run.result("careful")));
  report("portal client / that careful raw fetch, validation off", (run.result("off").total / run.result("careful").total).toFixed(3));
  report("portal client over Node's fetch (not node:http) / raw fetch, validation off", shown(run.result("overFetch")));
  report("raw fetch / raw fetch (noise floor)", shown(run.result("floor")));
}

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

  // Raw fetch walking the chain by hand on register 201: sign in, open a shift, carry the Uid.
  const auth = (await (
    await fetch(`${fiscalUrl}/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ Login: defaultFiscalUser.PhoneLogin, Password: defaultFiscalUser.Password }),
    })
  ).json()) as { Data: { Token: string } };
  const headers = { "content-type": "application/json", authorization: `Bearer ${auth.Data.Token}` };
  const opened = await fetch(`${fiscalUrl}/shifts`, { method: "POST", headers, body: JSON.stringify({ IdKkm: 201 }) });
  let uid = opened.headers.get("uid")!;
  await opened.json();
  // The wire form: what the client's tenge codec makes of the same receipt.
  const wire = { IdDomain: 1, Positions: [{ Name: "Coffee", IdSection: 1, Price: 625.25, Qty: 2 }], Total: 1250.5, Cash: 1250.5 };
  const rawReceipt = async (init: RequestInit = {}) => {
    const r = await fetch(`${fiscalUrl}/kkms/201/sales`, { method: "POST", headers: { ...headers, uid }, body: JSON.stringify(wire), ...init });
    const json = (await r.json()) as { Status: number };
    if (json.Status !== 200) throw new Error(`raw receipt refused: ${JSON.stringify(json)}`);
    uid = r.headers.get("uid")!;
  };
  const carefulReceipt = () => carefully(rawReceipt);
  const floorReceipt = await handWrittenReceipt(fiscalUrl, headers);
  // The same client over Node's own fetch, on register 102 (its chain store reads the current Uid first).
  const fiscalOverFetch = createFiscalClient({
    baseUrl: fiscalUrl,
    credentials: { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password },
    fetch: (u, init) => globalThis.fetch(u, init),
  });
  const receiptOverFetch = () => fiscalOverFetch.operations.sale({ idKkm: 102, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
  const receipts = { careful: carefulReceipt, minimal: floorReceipt, client: () => receipt(101), overFetch: receiptOverFetch };
  for (const f of [rawReceipt, ...Object.values(receipts)]) await time(f, 100);
  const chain = await interleaved(rawReceipt, receipts, 1000);
  report("fiscal client / raw fetch, one receipt through the chain", shown(chain.result("client")), "≤ 1.10");
  report("careful raw fetch (timeout signal, manual redirects) / raw fetch, same receipt", shown(chain.result("careful")));
  report("fiscal client / that careful raw fetch", (chain.result("client").total / chain.result("careful").total).toFixed(3));
  report("hand-written minimal client with the client's duties / raw fetch", shown(chain.result("minimal")));
  report("fiscal client / that minimal client", (chain.result("client").total / chain.result("minimal").total).toFixed(3));
  report("fiscal client over Node's fetch (not node:http) / raw fetch", shown(chain.result("overFetch")));
  report("raw fetch / raw fetch (noise floor), receipts", shown(chain.result("floor")));

  // 5. E-commerce.
  const ecommerceUrl = `${url}/ecommerce`;
  const shop = createEcommerceClient({ merchantId: defaultMerchant.login, password: defaultMerchant.password, baseUrl: ecommerceUrl, callbacks: { allowedAddresses: "any" } });
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
  report("encryptCard / publicEncrypt, one at a time", (median(sequential) / median(theirs)).toFixed(2));
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

  const authorization = `Basic ${Buffer.from(`${defaultMerchant.login}:${defaultMerchant.password}`).toString("base64")}`;
  let order = 0;
  const rawCreate = async () => {
    const r = await fetch(`${ecommerceUrl}/payment/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization },
      body: JSON.stringify({ merchantId: defaultMerchant.login, orderId: `raw-${order++}`, amount: 150000, demo: true }),
    });
    const json = (await r.json()) as { id?: string };
    if (!json.id) throw new Error(`raw create refused: ${JSON.stringify(json)}`);
  };
  const clientCreate = () => shop.payments.create({ orderId: `sdk-${order++}`, amount: 150000, demo: true });
  for (const f of [rawCreate, clientCreate]) await time(f, 100);
  const create = await interleaved(rawCreate, { client: clientCreate }, 1000);
  report("e-commerce payments.create / raw fetch", shown(create.result("client")), "≤ 1.10");
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
  await ratio("fiscal registers list, 20k registers with typed fields", registers, fiscalOperations["kkms.list"].validateResponse!);

  const data = createDataSet({ paymentsPerDay: 1000 });
  const payments = [];
  for (let d = 1; payments.length < 100_000; d++) payments.push(...data.paymentsOn(`202401${String(1 + (d % 28)).padStart(2, "0")}`));
  const report100k = JSON.stringify({ code: 0, message: "OK", data: payments.slice(0, 100_000) });
  await ratio("portal payments, 100k rows (fields undocumented)", report100k, v2Operations["reports.payments"].validateResponse!);
}

const width = Math.max(...rows.map((r) => r[0]!.length));
console.log(`\npaysys SDK bench (node ${process.version}, ${new Date().toISOString()})\n`);
for (const [what, value, goal] of rows) console.log(`${what!.padEnd(width)}  ${value!.padEnd(20)} ${goal ? `goal ${goal}` : ""}`);
