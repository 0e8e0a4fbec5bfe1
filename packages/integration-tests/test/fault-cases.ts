// The fault suite's cases and how one case runs. A case runs in a process of its own
// (fixtures/fault-case.ts), so the suite can also check that nothing holds the process after
// close(); it reaches the sandbox only over HTTP, the way a user's own tests would: the fault
// rule goes to `POST /__sandbox/faults`, the captcha text comes from the portal module's
// control endpoint.

import { inspect } from "node:util";
import { createCashoutClient } from "@paysys/cashout";
import { PaysysError } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { createFiscalClient, receiptTotal } from "@paysys/fiscal";
import { createPortalClient } from "@paysys/portal";
import { type Fault, TestCards } from "@paysys/sandbox";
import { cashoutCredentials, fiscalCredentials, merchant, portalCredentials } from "./credentials.js";

/** Fast retries, a short timeout: the policy is the same, the suite is quick. */
export const fast = { retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2, retryAfterCapMs: 2_000 }, timeoutMs: 400, maxResponseBytes: 1024 * 1024 };

/** The sandbox as a case sees it: its root address, and the secrets only the case knows (captcha texts, cryptograms). */
export interface Env {
  root: string;
  secrets: string[];
}

/** The card the e-commerce case pays with: its number and CVV must never show (a 4-digit CVV, which a stray number in a log is less likely to equal than a 3-digit one). */
export const faultCard = { pan: TestCards.success, month: 12, year: 2031, cvv: "7391", cardholder: "FAULT SUITE" };

type Call = (env: Env, options: { logger: (e: unknown) => void } & typeof fast) => { prepare?: () => Promise<void>; run: () => Promise<unknown>; close: () => Promise<void> };

/** Reads the captcha text from the portal module's control endpoint, and remembers it as a secret. */
const portalCaptcha =
  (env: Env) =>
  async ({ captchaSession }: { captchaSession: string }) => {
    const answer = await fetch(`${env.root}/__sandbox/portal/captcha?session=${encodeURIComponent(captchaSession)}`);
    const { text } = (await answer.json()) as { text: string };
    env.secrets.push(text);
    return text;
  };

const portalMe: Call = (env, o) => {
  const portal = createPortalClient({
    baseUrl: `${env.root}/portal`,
    credentials: portalCredentials,
    solveCaptcha: portalCaptcha(env),
    ...o,
  });
  return { run: () => portal.user.me(), close: () => portal.close() };
};
const shopCreate: Call = (env, o) => {
  const shop = createEcommerceClient({ ...merchant, baseUrl: `${env.root}/ecommerce`, ...o });
  let cardData = "";
  return {
    // The cryptogram is made before the fault (it fetches the gateway's key), and is a secret too.
    prepare: async () => {
      cardData = await shop.encryptCard(faultCard);
      env.secrets.push(cardData);
    },
    run: () => shop.payments.create({ amount: 150_000, orderId: `fault-${process.pid}-${Date.now()}`, customerData: { cardData } }),
    close: async () => {},
  };
};
const tillSale: Call = (env, o) => {
  const fiscal = createFiscalClient({ baseUrl: `${env.root}/fiscal`, credentials: fiscalCredentials, ...o });
  const Positions = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 1 }];
  return {
    run: async () => {
      await fiscal.shifts.open({ IdKkm: 110 }).catch(() => {}); // open once; later cases find it open
      return fiscal.operations.sale({ idKkm: 110, IdDomain: 1, Positions, Total: receiptTotal(Positions), Cash: receiptTotal(Positions) });
    },
    close: () => fiscal.close(),
  };
};
const cashoutCreate: Call = (env, o) => {
  const cashout = createCashoutClient({
    baseUrl: `${env.root}/cashout`,
    credentials: cashoutCredentials,
    ...o,
  });
  return { run: () => cashout.requests.create({ amount: 50_000, account: "77771112233" }), close: async () => {} };
};

export interface Case {
  client: string;
  operation: string;
  path: string;
  call: Call;
  fault: Fault;
  times?: number;
  /** The error class expected, or "ok" when the call must succeed (after retries, or by following a redirect). */
  expect: string;
  attempts?: number;
  /** How many requests may reach the faulty path (a money operation: 1). */
  reached?: number;
  /** The error must say that the operation may have taken effect and was not sent again. */
  tellsOutcome?: boolean;
}

const me = { client: "portal", operation: "user.me", path: "/portal/v2/user/me", call: portalMe } as const;
// E-commerce and fiscal learn whether a call whose answer could not be read took effect (the status
// query, the chain): here the fault stands in for the service, so nothing was done, which they learn
// once the request can no longer land (OutcomeUnknownError until then). Cash-out has no way to ask.
const money = [
  {
    client: "ecommerce",
    operation: "payments.create",
    path: "/ecommerce/payment/create",
    call: shopCreate,
  },
  {
    client: "fiscal",
    operation: "operations.sale",
    path: "/fiscal/kkms/110/sales",
    call: tillSale,
  },
  {
    client: "cashout",
    operation: "requests.create",
    path: "/cashout/cash-out-request",
    call: cashoutCreate,
  },
] as const;
const always = Number.POSITIVE_INFINITY;

export const cases: Case[] = [
  { ...me, fault: { kind: "delay", ms: 700 }, times: always, expect: "TimeoutError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "status", status: 500, body: '{"code":1}' }, times: always, expect: "InternalServerError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "html", status: 502 }, times: always, expect: "InternalServerError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "status", status: 503, body: "" }, times: always, expect: "InternalServerError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "status", status: 503, body: "" }, times: 1, expect: "ok", attempts: 2, reached: 2 },
  { ...me, fault: { kind: "status", status: 429, headers: { "retry-after": "0" } }, expect: "ok", attempts: 2, reached: 2 },
  { ...me, fault: { kind: "status", status: 429, headers: { "retry-after": "HTTP-DATE" } }, expect: "ok", attempts: 2, reached: 2 },
  { ...me, fault: { kind: "status", status: 429, headers: { "retry-after": "soon, maybe" } }, expect: "ok", attempts: 2, reached: 2 },
  { ...me, fault: { kind: "status", status: 429, headers: { "retry-after": "3600" } }, times: always, expect: "RateLimitError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "html", status: 200 }, expect: "UnexpectedResponseError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "truncated-json" }, expect: "UnexpectedResponseError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "invalid-utf8" }, expect: "UnexpectedResponseError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "reset-before-headers" }, times: always, expect: "ConnectionError", attempts: 3, reached: 3 },
  // A read whose answer is cut off or too slow after the headers is retried like one that never started.
  { ...me, fault: { kind: "reset-mid-body" }, times: always, expect: "ConnectionError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "reset-mid-body" }, times: 1, expect: "ok", reached: 2 },
  { ...me, fault: { kind: "hang" }, times: always, expect: "TimeoutError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "slow-body", intervalMs: 40 }, times: always, expect: "TimeoutError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "empty", status: 200 }, expect: "UnexpectedResponseError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "empty", status: 204 }, expect: "UnexpectedResponseError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "huge", bytes: 5 * 1024 * 1024 }, expect: "ResponseTooLargeError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "redirect", to: "same-host", status: 307 }, expect: "ok", attempts: 2, reached: 2 },
  { ...me, fault: { kind: "redirect", to: "same-host", status: 307 }, times: always, expect: "RedirectError", attempts: 6, reached: 6 },
  { ...me, fault: { kind: "redirect", to: "other-host", status: 307 }, expect: "RedirectError", attempts: 1, reached: 1 },
  { ...me, fault: { kind: "status", status: 401, body: '{"code":401,"message":"token expired"}' }, times: always, expect: "AuthenticationError" },
  { ...me, fault: { kind: "echo", status: 500, as: "json" }, times: always, expect: "InternalServerError", attempts: 3, reached: 3 },
  { ...me, fault: { kind: "echo", status: 200, as: "json", code: 7 }, expect: "ServiceError", attempts: 1, reached: 1 },
  { ...me, path: "/portal/v2/account/token", fault: { kind: "echo", status: 502, as: "html" }, expect: "InternalServerError", attempts: 1, reached: 1 },
  { ...me, path: "/portal/v2/account/token", fault: { kind: "echo", status: 200, as: "html" }, expect: "UnexpectedResponseError", attempts: 1, reached: 1 },
  { ...me, path: "/portal/v2/account/token", fault: { kind: "echo", status: 200, as: "json", code: 3 }, expect: "AuthenticationError", attempts: 1, reached: 1 },
  ...money.flatMap((m): Case[] => [
    // A server error (a server failed, which says nothing of what was done), a connection cut after
    // the request left (like a timeout, below): whoever answered, the service may still be at work on
    // it, so a check that finds it not done is not final before its window has passed.
    { ...m, fault: { kind: "status", status: 500, body: "{}" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    { ...m, fault: { kind: "html", status: 502 }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    { ...m, fault: { kind: "reset-before-headers" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    { ...m, fault: { kind: "reset-mid-body" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    // A timeout: the service may still be working on it, so a check that finds it not done is not
    // final before the intent's window has passed; the outcome is unknown until then.
    { ...m, fault: { kind: "hang" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    // A success status with an answer that cannot be read (a gateway's page sent as 200, cut-off
    // JSON): not the service's answer, which may still be at work on it, so it is not sent again, and
    // its outcome is learnt once it can no longer land.
    { ...m, fault: { kind: "html", status: 200 }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    { ...m, fault: { kind: "truncated-json" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    // A refusal: where nothing can check it (cash-out), only the service's own (its JSON) is final; an
    // empty 429 or a WAF's page could have come after the request was passed on.
    {
      ...m,
      fault: { kind: "status", status: 429, body: '{"error":"too many requests"}', headers: { "retry-after": "0" } },
      times: always,
      expect: "RateLimitError",
      attempts: 1,
      reached: 1,
    },
    {
      ...m,
      fault: { kind: "status", status: 429, headers: { "retry-after": "0" } },
      times: always,
      expect: m.client === "cashout" ? "OutcomeUnknownError" : "RateLimitError",
      attempts: 1,
      reached: 1,
    },
    { ...m, fault: { kind: "html", status: 403 }, times: always, expect: m.client === "cashout" ? "OutcomeUnknownError" : "PermissionDeniedError", attempts: 1, reached: 1 },
    { ...m, fault: { kind: "echo", status: 500, as: "text" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    // In JSON with the envelope's fields (`error`, `code`, `message`): a server error all the same.
    { ...m, fault: { kind: "echo", status: 500, as: "json" }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1, tellsOutcome: true },
    // Never followed, on the same host or not: one request. Nor taken as final: a gateway may redirect
    // after passing the request on (nginx's `error_page 504 <url>`), so it may still land.
    { ...m, fault: { kind: "redirect", to: "same-host", status: 307 }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1 },
    { ...m, fault: { kind: "redirect", to: "same-host", status: 308 }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1 },
    { ...m, fault: { kind: "redirect", to: "other-host", status: 307 }, times: always, expect: "OutcomeUnknownError", attempts: 1, reached: 1 },
  ]),
];

/** The case's name in the summary: the fault and what sets it apart. */
export function labelOf(c: Case): string {
  const f = c.fault;
  const detail =
    f.kind === "status"
      ? `${f.status}${f.body ? " with a body" : ""}${f.headers?.["retry-after"] ? ` Retry-After ${f.headers["retry-after"]}` : ""}`
      : f.kind === "html" || f.kind === "empty"
        ? `${f.status}`
        : f.kind === "redirect"
          ? `${f.status ?? 307} to ${f.to}${c.times === always && c.client === "portal" ? ", every time (a loop)" : ""}`
          : f.kind === "echo"
            ? `${f.status} as ${f.as}${c.path.endsWith("/token") ? " on sign-in" : ""}`
            : "";
  return `${f.kind} ${detail}`.trim();
}

/** Everything a user could see of an error: its renderings and those of every cause. */
export function renderings(error: unknown): string {
  const out: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; e = (e as { cause?: unknown })?.cause, depth++) {
    const err = e as Error;
    out.push(String(err?.message), String(err?.stack), JSON.stringify(err), inspect(err, { depth: 6 }));
  }
  return out.join("\n");
}

/** What a case saw: the outcome, and every text a user could read (log events, error renderings). */
export interface CaseResult {
  outcome: string;
  attempts: number | "-";
  isPaysysError: boolean;
  stack?: string;
  text: string;
  /** Secrets only the case's process knew: captcha texts, cryptograms. */
  secrets: string[];
}

async function control(env: Env, method: string, body?: unknown): Promise<void> {
  const answer = await fetch(`${env.root}/__sandbox/faults`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!answer.ok) throw new Error(`the sandbox refused the fault rule: ${await answer.text()}`);
}

/** Runs one case against the sandbox at `root` and closes the client. */
export async function runCase(c: Case, root: string): Promise<CaseResult> {
  const env: Env = { root, secrets: [] };
  const lines: string[] = [];
  const client = c.call(env, { ...fast, logger: (e) => lines.push(JSON.stringify(e)) });
  // Sign in (and prepare what the case needs) first, so the fault meets the operation itself.
  if (c.path.startsWith("/portal/v2/user")) await client.run();
  await client.prepare?.();
  await control(env, "DELETE");
  const fault =
    c.fault.kind === "status" && c.fault.headers?.["retry-after"] === "HTTP-DATE"
      ? { ...c.fault, headers: { "retry-after": new Date(Date.now() + 1_000).toUTCString() } }
      : c.fault;
  // JSON has no Infinity: `times: null` is "every matching request".
  await control(env, "POST", { path: c.path, times: c.times === Number.POSITIVE_INFINITY ? null : (c.times ?? 1), fault });
  const outcome = await client.run().then(
    () => "ok" as const,
    (e: unknown) => e,
  );
  // A failing close() (a logout the fault also meets) is something a user reads too.
  await client.close().catch((e: unknown) => lines.push(renderings(e)));
  if (outcome === "ok") return { outcome, attempts: "-", isPaysysError: false, text: lines.join("\n"), secrets: env.secrets };
  const error = outcome as PaysysError;
  return {
    outcome: error.name,
    attempts: error.attempts,
    isPaysysError: error instanceof PaysysError,
    stack: String(error.stack),
    text: [...lines, renderings(error)].join("\n"),
    secrets: env.secrets,
  };
}

/**
 * Not a fault: a portal client fetches a workbook and leaves it unread, cancelled (`cancel`) or
 * not, over the default HTTP (node:http) or Node's own `fetch`. The suite uses it to show that its
 * exit check catches what holds a process: an unread body over Node's `fetch` holds its socket;
 * over node:http a paused socket holds nothing. The suite serves the workbook over Node's `fetch`
 * slowly: its first bytes are read to check them, and a small body read ahead with them, whole,
 * would hold nothing.
 */
export async function leaveFileUnread(root: string, cancel: boolean, overFetch = false): Promise<CaseResult> {
  const env: Env = { root, secrets: [] };
  const portal = createPortalClient({
    baseUrl: `${root}/portal`,
    credentials: portalCredentials,
    solveCaptcha: portalCaptcha(env),
    fetch: overFetch ? (url, init) => globalThis.fetch(url, init) : undefined,
  });
  const file = await portal.reports.dealerStatistics({ dateFrom: "20240501", dateTo: "20240531", subOn: true, groupByDay: true, format: "xlsx" });
  if (cancel) await file.cancel();
  await portal.close();
  return { outcome: "ok", attempts: "-", isPaysysError: false, text: "", secrets: env.secrets };
}
