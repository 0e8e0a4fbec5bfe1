// `npm start`: starts the sandbox on loopback and drives every client against it, printing what a
// user would see. Plain JavaScript on purpose: this is how the built packages are used.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCashoutClient } from "@paysys/cashout";
import { createEcommerceClient, tenge, tiyn } from "@paysys/ecommerce";
import { createFiscalClient, OutcomeUnknownError, receiptTotal } from "@paysys/fiscal";
import { createPortalClient, period, ServiceError } from "@paysys/portal";
import { saveToFile } from "@paysys/portal/node";
import { defaultCashoutUser, defaultFiscalUser, defaultMerchant, defaultPortalUser, SANDBOX_PASSWORD_AUTH_TYPE, startSandbox, TestCards } from "@paysys/sandbox";

const sandbox = await startSandbox({ ecommerce: { callbackRetryMs: 50 } });
const scratch = mkdtempSync(join(tmpdir(), "paysys-demo-"));
console.log(`sandbox listening on ${sandbox.url}\n`);

async function portalDemo(version) {
  console.log(`== partner portal ${version}`);
  const portal = createPortalClient({
    baseUrl: sandbox.portalUrl,
    version,
    credentials: { lgn: defaultPortalUser.lgn, psw: defaultPortalUser.psw },
    // A real integration shows the captcha image to a person; the sandbox can tell its text.
    solveCaptcha: async ({ captchaSession }) => {
      const answer = await fetch(`${sandbox.url}/__sandbox/portal/captcha?session=${captchaSession}`).then((r) => r.json());
      return answer.text;
    },
  });
  const me = await portal.user.profile();
  console.log(`signed in as ${me.lgn} (${me.userFIO}, ${me.groupName})`);
  const agents = await portal.agents.list({ sub: 2, columns: ["nowBalance", "contract"] });
  console.log(`agents in scope: ${agents.length}; first: ${JSON.stringify(agents[0])}`);
  const terminals = await portal.terminals.list({ sub: 2, active: 1 });
  console.log(`active terminals: ${terminals.length}`);
  const payments = await portal.reports.payments({ ...period.month(2024, 5), subOn: true });
  const total = payments.reduce((tiyn, p) => tiyn + Math.round(p.amount * 100), 0) / 100;
  console.log(`payments in May 2024 (the whole month, Almaty time): ${payments.length}, total ${total.toFixed(2)} KZT`);
  const turnovers = await portal.reports.terminalTurnovers({ ...period.days("2024-05-01", "2024-05-07"), subOn: true });
  console.log(`terminal turnovers (first week): ${turnovers.length} rows`);
  const file = await portal.reports.dealerStatistics({ ...period.month(2024, 5), subOn: true, groupByDay: true, format: "xlsx" });
  const path = join(scratch, `statreport-${version}.xlsx`);
  console.log(`dealer statistics as xlsx: ${await saveToFile(file, path)} bytes saved to ${path}`);
  try {
    await portal.reports.payments({ dateFrom: "20230101", dateTo: "20240101" });
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    console.log(`a refused request is a typed error: ${e.name} code ${e.serviceCode}${e.serviceMessage ? `: ${e.serviceMessage}` : " (v1 answers carry no message)"}`);
  }
  await portal.close();
  console.log("logged out\n");
}

async function fiscalDemo() {
  console.log("== online cash register");
  const fiscal = createFiscalClient({ baseUrl: sandbox.fiscalUrl, credentials: { login: defaultFiscalUser.PhoneLogin, password: defaultFiscalUser.Password } });
  const registers = await fiscal.kkms.list({ companies: [1] });
  console.log(`registers of company 1: ${registers.map((r) => r.Id).join(", ")}`);
  const shift = await fiscal.shifts.open({ IdKkm: 101 });
  console.log(`shift ${shift.Id} opened at ${shift.DateOpen}; the register's Uid chain starts at ${await fiscal.knownUid(101)}`);
  const Positions = [
    { Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 },
    { Name: "Croissant", IdSection: 1, Price: "410.00", Qty: 1 },
  ];
  const sale = await fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions, Total: receiptTotal(Positions), Cash: "2000", GenerateCheck: true });
  console.log(`sale registered: receipt ${sale.IdDocument}, total ${receiptTotal(Positions)} KZT; next Uid ${await fiscal.knownUid(101)}`);
  try {
    await fiscal.operations.sale({ idKkm: 101, IdDomain: 1, Positions, Total: "1660.51", Cash: "2000" });
  } catch (e) {
    console.log(`a wrong total never leaves the till: ${e.name}: ${e.issues[0].path} ${e.issues[0].message}`);
  }
  const refund = await fiscal.operations.saleRefund({ idKkm: 101, IdDomain: 1, Positions: [Positions[1]], Total: "410", Cash: "410" });
  console.log(`refund registered: receipt ${refund.IdDocument}`);
  const z = await fiscal.shifts.closeWithZReport({ idShift: shift.Id, IdKkm: 101 });
  console.log(`Z report: ${z.SalesQty} sale(s) ${z.SalesAmount} KZT, ${z.RefundsQty} refund(s) ${z.RefundsAmount} KZT, cash in the register ${z.BalanceClose} KZT\n`);
  console.log(`(a receipt whose answer is lost fails with ${OutcomeUnknownError.name}; await error.wasApplied() tells whether it was registered)\n`);
}

async function ecommerceDemo() {
  console.log("== online payments");
  const shop = createEcommerceClient({
    merchantId: defaultMerchant.login,
    password: defaultMerchant.password,
    baseUrl: sandbox.ecommerceUrl,
    // The gateway calls back from its documented address; the sandbox calls from loopback.
    callbacks: { allowedAddresses: ["127.0.0.1"] },
  });
  const callbacks = [];
  const server = createServer(
    shop.callbacks.nodeHandler((event) => {
      callbacks.push(event);
      console.log(`  callback: order ${event.orderId} status ${event.status}${event.errCode ? ` (errCode ${event.errCode}: ${event.errMessage})` : ""}`);
    }),
  );
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const callbackUrl = `http://127.0.0.1:${server.address().port}/callbacks`;
  const waitForCallbacks = async (n) => {
    while (callbacks.length < n) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  try {
    const page = await shop.payments.create({ amount: tiyn("1500.00"), description: "Order 1001", callbackUrl, returnUrl: "https://shop.example/thanks" });
    console.log(`payment ${page.orderId} created; the buyer pays at ${page.url}`);
    // What the buyer does on the payment page, with a test card:
    await fetch(page.url, { method: "POST", body: new URLSearchParams({ pan: TestCards.success, month: "12", year: "2031", cvv: "123" }), redirect: "manual" });
    await waitForCallbacks(1);
    const state = await shop.payments.reconcile(page.orderId);
    console.log(`status query: ${tenge(state.amount)} KZT, status ${state.status} (1 = successful)`);
    await shop.payments.cancel({ order_id: page.orderId });
    await waitForCallbacks(2);
    console.log(`refunded: status ${(await shop.payments.reconcile(page.orderId)).status} (3 = cancelled or refunded)`);

    const card = { pan: TestCards.decline, month: 12, year: 2031, cvv: "123" };
    const declined = await shop.payments.create({ amount: 99_900, callbackUrl, customerData: { cardData: card } });
    await waitForCallbacks(3);
    console.log(`a card encrypted by the client (RSA-OAEP, the gateway's key) and declined: order ${declined.orderId}`);
    try {
      await shop.payments.create({ amount: 10.5 });
    } catch (e) {
      console.log(`a fraction of a tiyn never leaves the shop: ${e.name}: ${e.issues[0].path} ${e.issues[0].message}`);
    }
    console.log("(payments are never re-sent; a lost answer fails with OutcomeUnknownError and payments.reconcile(orderId) tells what happened)\n");
  } finally {
    server.close();
  }
}

async function cashoutDemo() {
  console.log("== cash-out");
  const credentials = { authType: SANDBOX_PASSWORD_AUTH_TYPE, login: defaultCashoutUser.login, password: defaultCashoutUser.password };
  // Two clients of one credential in one process: they share its one token (a new token would kill the other's).
  const desk = createCashoutClient({ baseUrl: sandbox.cashoutUrl, credentials, maxAmount: { value: 135_000, at: "/amount" } });
  const batch = createCashoutClient({ baseUrl: sandbox.cashoutUrl, credentials });
  const stored = await Promise.all([
    desk.requests.create({ amount: 50_000, account: "77771112233" }),
    ...Array.from({ length: 20 }, (_, i) => batch.requests.create({ amount: 1_000 + i, account: "77770000000" })),
  ]);
  console.log(`${stored.length} requests stored by two clients with ${sandbox.cashout.stats.authorizations} authorization; the first: ${JSON.stringify(stored[0])}`);
  // An hour later by the sandbox's clock (the clients' clock did not move): the token they hold has expired there.
  sandbox.clock.advance(3_600_000);
  const send = () => Promise.allSettled([desk.requests.create({ amount: 10_000, account: "77771112233" }), batch.requests.create({ amount: 10_000, account: "77770000000" })]);
  const refused = (await send()).filter((r) => r.status === "rejected").map((r) => `${r.reason.name} (HTTP ${r.reason.status})`);
  console.log(`an hour later the token had expired: ${refused.join(", ")}; a request that moves money is never re-sent on its own`);
  const again = await send();
  console.log(
    `sent again by the caller: ${again.filter((r) => r.status === "fulfilled").length} of 2 stored on the renewed token, ${sandbox.cashout.stats.authorizations} authorizations in all, never two at once`,
  );
  sandbox.clock.advance(3 * 86_400_000);
  console.log(`three days later the first request is ${sandbox.cashout.request(stored[0].id).status === 2 ? "STATUS_EXPIRED (2)" : "still processing"}`);
  try {
    await desk.requests.create({ amount: 200_000 });
  } catch (e) {
    console.log(`above your maxAmount it never leaves: ${e.name}: ${e.issues[0].path} ${e.issues[0].message}\n`);
  }
}

try {
  await portalDemo("v2");
  await portalDemo("v1");
  await fiscalDemo();
  await ecommerceDemo();
  await cashoutDemo();
} finally {
  rmSync(scratch, { recursive: true, force: true });
  await sandbox.close();
}
