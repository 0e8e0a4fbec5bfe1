// The seeded fuzz of every public method of every client and every exported helper: hostile
// parameters and call options (values of every type, the spec's own names with the wrong values,
// names that attack prototypes, values JSON cannot carry), FUZZ_RUNS inputs a method (5,000 by
// default). Two properties: every throw is one of the SDK's errors (`PaysysError`), never a
// TypeError or a RangeError; and every request that leaves is one its spec allows (each is checked
// with the wire validators the sandbox uses), so a refused input is never sent. The sandbox answers
// 503 to whatever gets through: no money moves and nothing is retried.
import { createCashoutClient } from "@paysys/cashout";
import * as cashoutSpec from "@paysys/cashout/spec";
import { MemoryStore, PaysysError, RequestValidationError, tenge, tiyn } from "@paysys/core";
import { checkCard, createEcommerceClient, encryptCard, luhn, parseCallback } from "@paysys/ecommerce";
import * as ecommerceSpec from "@paysys/ecommerce/spec";
import { createFiscalClient, lineTotal, receiptChange, receiptTotal } from "@paysys/fiscal";
import * as fiscalSpec from "@paysys/fiscal/spec";
import { createPortalClient, defaultExtractTokens, formatPortalDate, isPortalDate, parsePortalDate, period } from "@paysys/portal";
import * as portalSpec from "@paysys/portal/spec";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { bundle, specs } from "@paysys/spec-tools";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant } from "./credentials.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000);
const SEED = 22112026;

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());

const odd = fc.oneof(
  fc.constantFrom(
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    -1,
    -0,
    2 ** 53,
    1.5,
    "",
    "x".repeat(100_000),
    "20241399",
    "2024-02-30",
    "0000-00-00T25:61:00Z",
    "\u0000",
    "\r\nX-Injected: 1",
    "__proto__",
    "4400430000000007",
    null,
    true,
    [],
    {},
  ),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.object({ maxDepth: 1 }),
  fc.date({ noInvalidDate: false }),
);
const hostileKeys = ["__proto__", "constructor", "prototype", "toString", "dateFro", "carddata", "pan", "cvv"];

/** The parameter and field names of an interface's spec, so the fuzz meets real checks, not only unknown-name refusals. */
function namesOf(iface: string): string[] {
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const o = node as Record<string, unknown>;
    if (o.properties && typeof o.properties === "object") for (const k of Object.keys(o.properties)) names.add(k);
    if (typeof o.name === "string" && typeof o.in === "string") names.add(o.name);
    for (const child of Object.values(o)) walk(child);
  };
  for (const spec of specs.filter((s) => s.iface === iface)) walk(bundle(spec));
  return [...names];
}

/** Hostile parameters: the spec's names and hostile ones, with odd values, and one value JSON cannot carry. */
const paramsFor = (iface: string) => {
  const key = fc.constantFrom(...namesOf(iface), ...hostileKeys);
  const params = fc
    .dictionary(key, odd, { maxKeys: 4 })
    .map((p) => JSON.parse(JSON.stringify(p, (_k, v) => (typeof v === "number" && !Number.isFinite(v) ? `${v}` : v))) as object);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = { back: cyclic };
  const jsOnly = [Number.NaN, Number.POSITIVE_INFINITY, 10n, () => 1, Symbol("s"), new Map([["a", 1]]), [1, undefined], new Uint8Array(2), cyclic];
  return fc.oneof(
    fc.tuple(params, fc.constantFrom(1, ...jsOnly), key).map(([p, n, k]) => Object.assign(p, { [k]: n })),
    fc.constantFrom(undefined, null, 0, "params", [], () => ({})),
  );
};

/** Hostile call options: not an object, misspelt names, options the operation does not take, wrong types. */
const optionsArb = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(null, 1, "options", [], () => ({})),
  fc.record({ timeoutMs: odd }, { requiredKeys: [] }),
  fc.record({ signal: odd, headers: fc.oneof(odd, fc.dictionary(fc.string(), odd, { maxKeys: 2 })) }, { requiredKeys: [] }),
  fc.record({ idempotencyKey: odd, extraParams: odd, rows: odd }, { requiredKeys: [] }),
  fc.dictionary(fc.constantFrom("timeout", "idempotency_key", "retries", "__proto__", "signal"), odd, { maxKeys: 2 }),
);

/**
 * Every method of a client's namespaces that calls the service (`portal.reports.payments`, …), by
 * its dotted name. Not `raw` (openapi-fetch's own client), `journal` (the store's records) or
 * `callbacks` (which receive, not send: they are fuzzed with the helpers).
 */
function methodsOf(client: object): [string, (p: unknown, o: unknown) => Promise<unknown>][] {
  return Object.entries(client).flatMap(([ns, value]) =>
    !["raw", "journal", "callbacks"].includes(ns) && value !== null && typeof value === "object"
      ? Object.entries(value as Record<string, unknown>)
          .filter(([, m]) => typeof m === "function")
          .map(([name, m]): [string, (p: unknown, o: unknown) => Promise<unknown>] => [`${ns}.${name}`, m as (p: unknown, o: unknown) => Promise<unknown>])
      : [],
  );
}

/** A request's body checked against the spec's wire validator of its operation; the problems, if any. */
type Wire = Record<string, ((d: unknown) => boolean) & { errors?: unknown }>;
const ident = (id: string) => id.replace(/[.-]/g, "_");

const noRetry = { retry: { maxRetries: 0 } };

describe(`fuzz: every public method, ${RUNS.toLocaleString("en")} hostile inputs each (seeded)`, () => {
  /** Requests that left with a body their spec refuses. */
  const outOfSpec: string[] = [];
  const checking = (wire: Wire) => ({
    beforeRequest: async ({ operation, request }: { operation: string; request: Request }) => {
      const validate = wire[`${ident(operation)}_request`];
      const text = await request.text();
      if (validate && text && !validate(JSON.parse(text))) outOfSpec.push(`${operation}: ${JSON.stringify(validate.errors)}`);
      return undefined;
    },
  });
  // The portal without credentials: a call whose input passes every check ends in AuthenticationError
  // (sign in first) before any request. The others hold credentials.
  const clients = [
    {
      name: "portal v2",
      prefix: "/portal/v2",
      iface: "portal",
      make: (url: string) => createPortalClient({ baseUrl: `${url}/portal`, version: "v2", hooks: checking(portalSpec.v2WireValidators as Wire) }),
    },
    {
      name: "portal v1",
      prefix: "/portal/v1",
      iface: "portal",
      make: (url: string) => createPortalClient({ baseUrl: `${url}/portal`, version: "v1", hooks: checking(portalSpec.v1WireValidators as Wire) }),
    },
    {
      name: "fiscal",
      prefix: "/fiscal",
      iface: "fiscal",
      make: (url: string) =>
        createFiscalClient({ baseUrl: `${url}/fiscal`, credentials: fiscalCredentials, ...noRetry, store: new MemoryStore(), hooks: checking(fiscalSpec.wireValidators as Wire) }),
    },
    {
      name: "ecommerce",
      prefix: "/ecommerce",
      iface: "ecommerce",
      make: (url: string) =>
        createEcommerceClient({ ...merchant, baseUrl: `${url}/ecommerce`, ...noRetry, store: new MemoryStore(), hooks: checking(ecommerceSpec.wireValidators as Wire) }),
    },
    {
      name: "cashout",
      prefix: "/cashout",
      iface: "cashout",
      make: (url: string) =>
        createCashoutClient({
          baseUrl: `${url}/cashout`,
          credentials: cashoutCredentials,
          store: new MemoryStore(),
          ...noRetry,
          hooks: checking(cashoutSpec.wireValidators as Wire),
        }),
    },
  ];

  for (const { name, prefix, iface, make } of clients) {
    // The methods are listed before the sandbox runs: a client that makes no call needs no address.
    for (const [method] of methodsOf(make("http://127.0.0.1:9"))) {
      it(`${name} ${method}: only PaysysErrors, and nothing sent that the spec refuses`, { timeout: 300_000 }, async () => {
        const client = make(sb.url);
        const call = methodsOf(client).find(([m]) => m === method)![1];
        sb.faults.clear();
        sb.faults.add({ path: prefix, times: Number.POSITIVE_INFINITY, fault: { kind: "status", status: 503, body: "" } });
        outOfSpec.length = 0;
        let refused = 0;
        await fc.assert(
          fc.asyncProperty(paramsFor(iface), optionsArb, async (p, o) => {
            const sent = sb.faults.seen.length;
            // A synchronous throw counts too: it must be a PaysysError as well.
            const e = await Promise.resolve()
              .then(() => call(p, o))
              .then(
                () => undefined,
                (x: unknown) => x,
              );
            if (e !== undefined) expect(e, `${method}: ${String((e as Error)?.stack)}`).toBeInstanceOf(PaysysError);
            if (e instanceof RequestValidationError) {
              refused++;
              expect(sb.faults.seen.length, `${method} sent a request it refused`).toBe(sent);
            }
            expect(({} as Record<string, unknown>).polluted).toBeUndefined();
          }),
          { numRuns: RUNS, seed: SEED },
        );
        sb.faults.clear();
        expect(outOfSpec, "requests sent that the spec refuses").toEqual([]);
        // The fuzz reaches the checks (not only the first one): most inputs are refused by them.
        expect(refused).toBeGreaterThan(RUNS / 2);
      });
    }
  }
});

describe(`fuzz: every exported helper, ${RUNS.toLocaleString("en")} inputs each (seeded)`, () => {
  const anything = fc.oneof(
    odd,
    fc.anything(),
    fc.constantFrom(undefined, null, 10n, Symbol("s"), () => 1),
  );
  const key = "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----";
  const shop = createEcommerceClient({ ...merchant, baseUrl: "http://127.0.0.1:9/ecommerce", store: new MemoryStore() });
  const helpers: [string, (...args: unknown[]) => unknown][] = [
    ["tiyn", tiyn as never],
    ["tenge", tenge as never],
    ["receiptTotal", receiptTotal as never],
    ["receiptChange", receiptChange as never],
    ["lineTotal", lineTotal as never],
    ["formatPortalDate", formatPortalDate as never],
    ["isPortalDate", isPortalDate as never],
    ["parsePortalDate", parsePortalDate as never],
    ["period.month", period.month as never],
    ["period.day", period.day as never],
    ["period.days", period.days as never],
    ["defaultExtractTokens", defaultExtractTokens as never],
    ["luhn", luhn as never],
    ["checkCard", checkCard as never],
    ["parseCallback", parseCallback as never],
    ["encryptCard", ((card: unknown) => encryptCard(card as never, key)) as never],
    ["encryptCard (key)", ((k: unknown) => encryptCard({ pan: "4400430000000007" }, k as never)) as never],
    ["callbacks.parse", shop.callbacks.parse as never],
    ["callbacks.handle", shop.callbacks.handle as never],
    ["callbacks.fetchHandler", shop.callbacks.fetchHandler as never],
    ["callbacks.nodeHandler", shop.callbacks.nodeHandler as never],
  ];
  for (const [name, helper] of helpers) {
    it(`${name}: every throw is a PaysysError`, { timeout: 120_000 }, async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(anything, { maxLength: 3 }), async (args) => {
          const e = await Promise.resolve()
            .then(() => helper(...args))
            .then(
              () => undefined,
              (x: unknown) => x,
            );
          if (e !== undefined) expect(e, `${name}(${args.map((a) => typeof a).join(", ")}): ${String((e as Error)?.stack)}`).toBeInstanceOf(PaysysError);
        }),
        { numRuns: RUNS, seed: SEED },
      );
    });
  }
});

describe("call options: null is no options; anything else that is not an object is refused by name, in every method", () => {
  const clients = {
    portal: (url: string) => createPortalClient({ baseUrl: `${url}/portal`, ...noRetry }),
    fiscal: (url: string) => createFiscalClient({ baseUrl: `${url}/fiscal`, credentials: fiscalCredentials, store: new MemoryStore(), ...noRetry }),
    ecommerce: (url: string) => createEcommerceClient({ ...merchant, baseUrl: `${url}/ecommerce`, store: new MemoryStore(), ...noRetry }),
    cashout: (url: string) => createCashoutClient({ baseUrl: `${url}/cashout`, credentials: cashoutCredentials, store: new MemoryStore(), ...noRetry }),
  };
  for (const [name, make] of Object.entries(clients)) {
    it(`${name}: every method`, async () => {
      sb.faults.clear();
      sb.faults.add({ path: "/", times: Number.POSITIVE_INFINITY, fault: { kind: "status", status: 503, body: "" } });
      const methods = methodsOf(make(sb.url));
      expect(methods.length).toBeGreaterThan(0);
      for (const [method, given] of methods) {
        // `payments.reconcile(orderId, id?, options?)` takes its options third.
        const call = (p: unknown, o: unknown) => (given.length === 3 ? (given as (...a: unknown[]) => Promise<unknown>)("order-1", undefined, o) : given(p, o));
        for (const options of [1, "options", [], () => ({})]) {
          const e = await Promise.resolve()
            .then(() => call({}, options))
            .catch((x: unknown) => x);
          expect(e, `${method} with options ${typeof options}`).toBeInstanceOf(RequestValidationError);
          expect((e as RequestValidationError).issues[0]!.path, method).toBe("(options)");
        }
        // null reads as no options: whatever the call then says, it is one of the SDK's errors, never a TypeError.
        const e = await Promise.resolve()
          .then(() => call({}, null))
          .catch((x: unknown) => x);
        if (e !== undefined) expect(e, `${method} with null options`).toBeInstanceOf(PaysysError);
        if (e instanceof RequestValidationError) expect(e.issues.map((i) => i.path)).not.toContain("(options)");
      }
      sb.faults.clear();
    });
  }
});
