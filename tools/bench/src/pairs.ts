// A client against raw fetch over the network, one pair per process: `tsx pairs.ts <interface>
// <candidate> <rounds>` starts its own sandbox, builds the raw baseline and that one candidate,
// interleaves them (measure.ts) and prints the per-call times as JSON. `pnpm bench` runs one such
// process per pair.
//
// Why a process per pair (as JMH forks per benchmark): the clients share core's transport, and V8
// tunes shared code to what it has seen. Run after the portal section, with a stub fetch's and
// Node's fetch's answers through the same transport, the fiscal client read 1.04–1.07 of raw fetch;
// the same build in a process of its own read 0.86–0.93. A till runs one client over one HTTP; so
// does each pair here. A fresh sandbox per pair also spares each pair the state (and the garbage
// collections) of the ones before it.
import { addDecimal, compareDecimal, loadValidators, multiplyDecimal, tengeCodec, toDecimal } from "@paysys/core/internal";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient } from "@paysys/fiscal";
import { operations as fiscalOperations } from "@paysys/fiscal/spec";
import { createPortalClient } from "@paysys/portal";
import { defaultFiscalUser, defaultMerchant, defaultPortalUser } from "@paysys/sandbox";
import { carefully, interleave, type PairRun, startSandbox, time } from "./measure.js";

/** Rounds measured from a process's first call, and calls of each side after them before the measured rounds. */
const WARMUP_ROUNDS = 300;
const WARM_CALLS = 3_000;

type Call = () => Promise<unknown>;
/** An interface's raw baseline, and each candidate as a factory: only the one measured is built. */
interface PairSetup {
  baseline: Call;
  candidates: Record<string, () => Promise<Call>>;
}

const setups: Record<string, (url: string) => Promise<PairSetup>> = {
  /** The portal's payments report (40 rows). */
  async portal(url) {
    const portalUrl = `${url}/portal`;
    const solveCaptcha = async ({ captchaSession }: { captchaSession: string }) =>
      (await (await fetch(`${url}/__sandbox/portal/captcha?session=${captchaSession}`)).json()).text as string;
    const credentials = { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw };
    const params = { dateFrom: "20240501000000", dateTo: "20240501235959", subOn: true };
    // The raw baseline sends the same bytes with the same token and parses the answer. Like every
    // baseline here it serialises its body on each call, as a caller whose data changes must. The
    // token comes from a client over the candidate's HTTP: the SDK's code meets no other HTTP here.
    let token = "";
    const signIn = async (fetch?: typeof globalThis.fetch) => {
      const authorize = (t: string) => {
        token = t;
        return { Authorization: `Bearer ${t}` };
      };
      await createPortalClient({ baseUrl: portalUrl, credentials, solveCaptcha, authorize, fetch }).user.me();
    };
    const raw = async (init: RequestInit = {}) => {
      const body = JSON.stringify({ params });
      const r = await fetch(`${portalUrl}/v2/report/payments`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body,
        ...init,
      });
      const json = (await r.json()) as { code: number; data: unknown[] };
      if (json.code !== 0) throw new Error("raw call failed");
      return json.data;
    };
    const client = async (validateResponses: boolean, fetch?: typeof globalThis.fetch) => {
      await signIn(fetch);
      const c = createPortalClient({ baseUrl: portalUrl, credentials, solveCaptcha, validateResponses, fetch });
      await c.reports.payments(params);
      return () => c.reports.payments(params);
    };
    return {
      baseline: raw,
      candidates: {
        careful: async () => {
          await signIn();
          return () => carefully(raw);
        },
        off: () => client(false),
        on: () => client(true),
        // The same client over Node's own fetch, as the raw baseline: what the SDK's layers cost on one HTTP stack.
        overFetch: () => client(false, (u, init) => globalThis.fetch(u, init)),
      },
    };
  },

  /** One receipt through the Uid chain. */
  async fiscal(url) {
    const fiscalUrl = `${url}/fiscal`;
    const credentials = { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password };
    const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];
    // Raw fetch walking the chain by hand on register 201: sign in, open a shift, carry the Uid.
    const auth = (await (
      await fetch(`${fiscalUrl}/auth`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ Login: credentials.login, Password: credentials.password }),
      })
    ).json()) as { Data: { Token: string } };
    const headers = { "content-type": "application/json", authorization: `Bearer ${auth.Data.Token}` };
    const opened = await fetch(`${fiscalUrl}/shifts`, { method: "POST", headers, body: JSON.stringify({ IdKkm: 201 }) });
    let uid = opened.headers.get("uid")!;
    await opened.json();
    // The wire form: what the client's tenge codec makes of the same receipt.
    const wire = { IdDomain: 1, Positions: [{ Name: "Coffee", IdSection: 1, Price: 625.25, Qty: 2 }], Total: 1250.5, Cash: 1250.5 };
    const raw = async (init: RequestInit = {}) => {
      const r = await fetch(`${fiscalUrl}/kkms/201/sales`, { method: "POST", headers: { ...headers, uid }, body: JSON.stringify(wire), ...init });
      const json = (await r.json()) as { Status: number };
      if (json.Status !== 200) throw new Error(`raw receipt refused: ${JSON.stringify(json)}`);
      uid = r.headers.get("uid")!;
    };
    const client = async (fetch?: typeof globalThis.fetch) => {
      const c = createFiscalClient({ baseUrl: fiscalUrl, credentials, fetch });
      await c.shifts.open({ IdKkm: 101 });
      return () => c.operations.sale({ idKkm: 101, IdDomain: 1, Positions, Total: "1250.5", Cash: "1250.5" });
    };
    return {
      baseline: raw,
      candidates: {
        careful: async () => () => carefully(raw),
        minimal: () => handWrittenReceipt(fiscalUrl, headers),
        client: () => client(),
        overFetch: () => client((u, init) => globalThis.fetch(u, init)),
      },
    };
  },

  /** E-commerce payments.create. */
  async ecommerce(url) {
    const ecommerceUrl = `${url}/ecommerce`;
    const authorization = `Basic ${Buffer.from(`${defaultMerchant.login}:${defaultMerchant.password}`).toString("base64")}`;
    let order = 0;
    const raw = async () => {
      const r = await fetch(`${ecommerceUrl}/payment/create`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization },
        body: JSON.stringify({ merchantId: defaultMerchant.login, orderId: `raw-${order++}`, amount: 150000, demo: true }),
      });
      const json = (await r.json()) as { id?: string };
      if (!json.id) throw new Error(`raw create refused: ${JSON.stringify(json)}`);
    };
    return {
      baseline: raw,
      candidates: {
        async client() {
          const shop = createEcommerceClient({
            merchantId: defaultMerchant.login,
            password: defaultMerchant.password,
            baseUrl: ecommerceUrl,
            callbacks: { allowedAddresses: "any" },
          });
          return () => shop.payments.create({ orderId: `sdk-${order++}`, amount: 150000, demo: true });
        },
      },
    };
  },
};

/**
 * The floor for the fiscal client's duties on one receipt: a hand-written client that does what the
 * SDK does for it and nothing more (amounts through the same tenge codec, the request validator,
 * the totals in exact decimals, one queue and one stored Uid per register, a timeout signal, the
 * answer read whole and strictly decoded), on register 202. What the SDK costs above it is its
 * generality: envelopes, codecs and schemes read from the spec, retries, logging, error detail.
 */
async function handWrittenReceipt(fiscalUrl: string, headers: Record<string, string>): Promise<Call> {
  const opened = await fetch(`${fiscalUrl}/shifts`, { method: "POST", headers, body: JSON.stringify({ IdKkm: 202 }) });
  const uids = new Map([[202, opened.headers.get("uid")!]]);
  await opened.json();
  const queues = new Map<number, Promise<unknown>>();
  await loadValidators(fiscalOperations["operations.sale"]);
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

// A sandbox's address as a fourth argument: the pair runs against it (Bun and Deno run pairs against a
// sandbox on Node, the one the Node pairs meet) instead of one of its own.
const [name, candidateName, roundsText, sandboxUrl] = process.argv.slice(2);
const setup = setups[name ?? ""];
if (!setup || !candidateName) throw new Error(`usage: pairs.ts <${Object.keys(setups).join("|")}> <candidate> <rounds> [sandbox url]`);
const { url, child } = sandboxUrl ? { url: sandboxUrl, child: undefined } : await startSandbox();
try {
  const pair = await setup(url);
  const make = pair.candidates[candidateName];
  if (!make) throw new Error(`${name} has no candidate ${candidateName} (${Object.keys(pair.candidates).join(", ")})`);
  const candidate = await make();
  // The first rounds, measured as they come: what a new process pays while V8 compiles.
  const warmup = await interleave(pair.baseline, candidate, WARMUP_ROUNDS);
  // Then more calls of each until both are compiled for good (on this VM a client's call kept getting
  // cheaper for some 3,000 calls), and the rounds the goals are read against.
  for (const f of [pair.baseline, candidate]) await time(f, WARM_CALLS);
  const times: PairRun = { ...(await interleave(pair.baseline, candidate, Number(roundsText))), warmup };
  process.stdout.write(JSON.stringify(times));
} finally {
  child?.kill();
}
