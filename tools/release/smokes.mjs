// The smoke call of each published package: what a first user does with it, run by the release
// check from the package installed by name from a local registry, in every form a user may load it
// (ESM, CommonJS, TypeScript with node16 and bundler resolution, a browser bundle where the package
// runs in browsers) and on every runtime (tools/release/runtimes.mjs).
//
// `body` is the body of an async function of `sandbox` (a started sandbox in Node; `{ url }` in
// the browser) with the `imports` in scope; it returns a line that must match `expect`.

export const smokes = {
  core: {
    imports: ["tiyn", "tenge", "PaysysError"],
    body: `const e = new PaysysError("x", { operation: "demo.op" });
return tiyn("100.50") + " " + tenge(10050) + " " + (e instanceof Error) + " " + e.toJSON().operation;`,
    expect: /^10050 100\.50 true demo\.op$/,
  },
  portal: {
    imports: ["createPortalClient", "period", "RequestValidationError"],
    body: `const portal = createPortalClient({
  baseUrl: sandbox.url + "/portal",
  credentials: { lgn: "dealer01", psw: "sandbox-password" },
  solveCaptcha: async ({ captchaSession }) => (await (await fetch(sandbox.url + "/__sandbox/portal/captcha?session=" + captchaSession)).json()).text,
});
const me = await portal.user.me();
const rows = await portal.reports.payments({ ...period.day("2024-05-01"), subOn: true });
const refused = await portal.reports.payments({ dateFrom: "2024-05-02", dateTo: "2024-05-01" }).catch((e) => e instanceof RequestValidationError);
await portal.close();
return me.lgn + " " + rows.length + " " + refused;`,
    expect: /^dealer01 40 true$/,
  },
  fiscal: {
    imports: ["createFiscalClient", "receiptTotal", "OutcomeUnknownError"],
    body: `const fiscal = createFiscalClient({ baseUrl: sandbox.url + "/fiscal", credentials: { login: "77771112233", password: "sandbox-password" } });
const shift = await fiscal.shifts.open({ IdKkm: 101 });
const Positions = [{ Name: "Tea", IdSection: 1, Price: "250.25", Qty: 2 }];
await fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions, Total: receiptTotal(Positions), Cash: "600" });
const z = await fiscal.shifts.closeWithZReport({ idShift: shift.Id, IdKkm: 101 });
return z.SalesQty + " " + z.SalesAmount + " " + typeof OutcomeUnknownError;`,
    expect: /^1 500\.5 function$/,
  },
  cashout: {
    imports: ["createCashoutClient", "RequestValidationError"],
    body: `const cashout = createCashoutClient({ baseUrl: sandbox.url + "/cashout", credentials: { authType: 1, login: "provider01", password: "sandbox-password" }, maxAmount: { value: 100, at: "/amount" } });
const stored = await Promise.all([1, 2].map((amount) => cashout.requests.create({ amount })));
const refused = await cashout.requests.create({ amount: 101 }).catch((e) => e instanceof RequestValidationError);
return stored.map((s) => s.status).join(",") + " " + refused;`,
    expect: /^1,1 true$/,
  },
  ecommerce: {
    imports: ["createEcommerceClient", "tiyn"],
    body: `const shop = createEcommerceClient({ merchantId: "shop01", password: "sandbox-password", baseUrl: sandbox.url + "/ecommerce" });
const card = { pan: "4111 1111 1111 1111", month: 12, year: 2031, cvv: "123" };
const payment = await shop.payments.create({ amount: tiyn("15.00"), customerData: { cardData: card } });
const state = await shop.payments.reconcile(payment.orderId);
return state?.status + " " + state?.amount;`,
    expect: /^1 1500$/,
  },
  "store-postgres": {
    // No database here: a pool whose server refuses, which the store must turn into a typed error
    // naming the database without its password; the migrations must be in the package, found from ESM and CJS.
    imports: ["PostgresStore", "shippedMigrations", "StoreUnavailableError"],
    body: `const refusing = {
  options: { connectionString: "postgres://till:secret@127.0.0.1:1/payments" },
  on() {},
  connect: async () => {
    throw new Error("connect ECONNREFUSED 127.0.0.1:1");
  },
};
const error = await new PostgresStore(refusing, { timeoutMs: 500 }).get("k").catch((e) => e);
return shippedMigrations().map((m) => m.version).join(",") + " " + (error instanceof StoreUnavailableError) + " " + error.store + " " + String(error.message).includes("secret");`,
    expect: /^1,2 true postgres:\/\/till@127\.0\.0\.1:1\/payments false$/,
  },
  // No Redis server here: the smoke checks that a store on a client that is not connected fails as
  // documented (typed, in time, without showing the password in the client's URL). The client comes
  // from the redis the install brought (a peer dependency), imported by a computed name (any to
  // TypeScript), so the strict TypeScript checks judge this package's declarations, not node-redis's.
  "store-redis": {
    imports: ["RedisStore"],
    body: `const { createClient } = await import(String("redis"));
const client = createClient({ url: "redis://till:smoke-secret@127.0.0.1:9" });
const error = await new RedisStore(client, { timeoutMs: 500 }).get("fiscal/101").catch((e) => e);
return error.name + " " + error.message.includes("smoke-secret");`,
    expect: /^StoreUnavailableError false$/,
  },
  sandbox: {
    imports: ["startSandbox"],
    body: `const own = await startSandbox();
const answer = await fetch(own.portalUrl + "/v2/account/captcha", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ params: { captchaSession: "s" } }) });
await own.close();
return String(answer.status) + " " + [...own.modules.keys()].join(",");`,
    expect: /^200 portal/,
  },
};
