// OpenTelemetry through the real SDK (in-memory exporters), every client against the sandbox over
// HTTP: each call a span `paysys.<interface>.<operation>` with its outcome, attempts, status and
// service code, its sign-in and journal queries as its children; calls, duration and retries as
// metrics; and no secret of the inputs or answers (passwords, tokens, the captcha text, the card
// number, CVV, the cryptogram) anywhere in the spans, their events and resource, or the metrics.
import { inspect } from "node:util";
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createCashoutClient } from "@paysys/cashout";
import { MemoryStore } from "@paysys/core";
import { createEcommerceClient } from "@paysys/ecommerce";
import { APIError, createFiscalClient, type FiscalClient, receiptTotal } from "@paysys/fiscal";
import { createPortalClient, type PortalV2Client, ServiceError } from "@paysys/portal";
import { defaultPortalUser, type Sandbox, SandboxCodes, startSandbox, TestCards } from "@paysys/sandbox";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { cashoutCredentials, fiscalCredentials, merchant, portalCredentials } from "./credentials.js";

/** One tracer and meter provider with in-memory exporters: the global ones, or passed to a client. */
function otel() {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  /** The metrics as of now (cumulative). */
  const collect = async (): Promise<ResourceMetrics | undefined> => {
    exporter.reset();
    await reader.forceFlush();
    return exporter.getMetrics().at(-1);
  };
  return { spans, tracerProvider, meterProvider, collect, shutdown: () => Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]) };
}

let sb: Sandbox;
const global = otel();
beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(global.tracerProvider);
  metrics.setGlobalMeterProvider(global.meterProvider);
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
  await global.shutdown();
  trace.disable();
  metrics.disable();
  context.disable();
});
beforeEach(() => global.spans.reset());

const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "918", cardholder: "IVAN IVANOV" };
const retry = { baseDelayMs: 1, maxDelayMs: 2 };
const portal = (extra = {}) =>
  createPortalClient({
    baseUrl: sb.portalUrl,
    credentials: portalCredentials,
    solveCaptcha: async ({ captchaSession }) => sb.portal.captchaText(captchaSession) ?? "",
    retry,
    ...extra,
  }) as PortalV2Client;
const fiscal = (extra = {}) => createFiscalClient({ baseUrl: sb.fiscalUrl, credentials: fiscalCredentials, store: new MemoryStore(), retry, ...extra });
const openShift = (f: FiscalClient, idKkm: number) =>
  f.shifts.open({ IdKkm: idKkm }).catch((e: unknown) => {
    if (!(e instanceof APIError && e.status === 424)) throw e;
  });
const coffee = [{ Name: "Coffee", IdSection: 1, Price: "625.25", Qty: 2 }];

const byName = (spans: ReadableSpan[], name: string) => {
  const found = spans.filter((s) => s.name === name);
  expect(found, name).not.toHaveLength(0);
  return found;
};
/** The sum (counters) or count (histograms) of a metric's points whose attributes include these. */
function pointOf(rm: ResourceMetrics | undefined, name: string, attributes: Record<string, unknown>): number {
  const metric = rm?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  let total = 0;
  for (const p of metric?.dataPoints ?? []) {
    if (!Object.entries(attributes).every(([k, v]) => p.attributes[k] === v)) continue;
    total += typeof p.value === "number" ? p.value : (p.value as { count: number }).count;
  }
  return total;
}

describe("telemetry through the OpenTelemetry SDK", () => {
  it("every client's calls are spans and metrics, with their outcome, and no secret of the inputs or answers anywhere", async () => {
    const secrets: string[] = [portalCredentials.psw, fiscalCredentials.password, cashoutCredentials.password, merchant.password, card.pan, card.cvv];
    secrets.push(Buffer.from(`${merchant.merchantId}:${merchant.password}`).toString("base64"));

    // Portal: signs in with the password and the captcha's text inside the first call; a refused report has the service's code.
    const p = portal({
      solveCaptcha: async ({ captchaSession }: { captchaSession: string }) => {
        const text = sb.portal.captchaText(captchaSession) ?? "";
        secrets.push(text);
        return text;
      },
    });
    expect(await p.user.me()).toMatchObject({ lgn: defaultPortalUser.lgn });
    const refused = await p.reports.payments({ dateFrom: "20230101", dateTo: "20240101" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);

    // Fiscal: a sale (journaled, on the register's chain), and a list the service answers 503 once (retried).
    const f = fiscal();
    await openShift(f, 101);
    const Total = receiptTotal(coffee);
    await f.operations.sale({ idKkm: 101, IdDomain: 1, Positions: coffee, Total, Cash: Total }, { idempotencyKey: "receipt-otel-1" });
    sb.faults.add({ path: /\/companies$/, fault: { kind: "status", status: 503, body: "" } });
    expect(await f.companies.list()).toHaveLength(2);

    // E-commerce: a payment with the card, sent as a cryptogram (seen here as the request carries it).
    const shop = createEcommerceClient({
      ...merchant,
      baseUrl: sb.ecommerceUrl,
      hooks: {
        beforeRequest: async ({ request }) => {
          const text = await request.clone().text();
          const sent = (text ? JSON.parse(text) : {}) as { customerData?: { cardData?: string } };
          if (sent.customerData?.cardData) secrets.push(sent.customerData.cardData);
          return undefined;
        },
      },
    });
    const payment = await shop.payments.create({ amount: 2500, description: "Order for Ivan Ivanov", customerData: { cardData: card } });
    expect(payment.id).toEqual(expect.any(String));

    // Cash-out: a request (journaled).
    const cashout = createCashoutClient({ baseUrl: sb.cashoutUrl, credentials: cashoutCredentials, store: new MemoryStore() });
    expect(await cashout.requests.create({ amount: 50_000, account: "77771112233", reference: "prov-otel-1" })).toMatchObject({ status: 1 });

    secrets.push(...sb.portal.issuedTokens(), ...sb.fiscal.issuedTokens(), ...sb.cashout.issuedTokens());
    const spans = global.spans.getFinishedSpans();

    // The portal: the first call's span, its sign-in (captcha, token) as its children, and the service's refusal.
    const [me] = byName(spans, "paysys.portal.user.me");
    expect(me!.kind).toBe(2); // CLIENT
    expect(me!.attributes).toMatchObject({
      "paysys.interface": "portal",
      "paysys.operation": "user.me",
      "paysys.outcome": "ok",
      "paysys.attempts": 1,
      "http.request.method": "POST",
      "http.response.status_code": 200,
      "server.address": "127.0.0.1",
      "server.port": Number(new URL(sb.portalUrl).port),
    });
    for (const step of ["paysys.portal.account.captcha", "paysys.portal.account.token"]) {
      expect(byName(spans, step)[0]!.parentSpanContext?.spanId, step).toBe(me!.spanContext().spanId);
    }
    const [report] = byName(spans, "paysys.portal.reports.payments");
    expect(report!.status).toEqual({ code: 2 }); // ERROR, with no message: an error's message may quote the service
    expect(report!.attributes).toMatchObject({ "paysys.outcome": "error", "error.type": "ServiceError", "paysys.service_code": String(SandboxCodes.PERIOD_TOO_LONG) });

    // Fiscal: the sale applied, once; the list retried.
    const [sale] = byName(spans, "paysys.fiscal.operations.sale");
    expect(sale!.attributes).toMatchObject({ "paysys.operation": "operations.sale", "paysys.outcome": "applied", "paysys.attempts": 1, "url.template": "/kkms/{idKkm}/sales" });
    expect(sale!.status.code).toBe(0); // UNSET: success is left unset, as the conventions ask of instrumentation
    const [list] = byName(spans, "paysys.fiscal.companies.list");
    expect(list!.attributes).toMatchObject({ "paysys.outcome": "ok", "paysys.attempts": 2, "paysys.retries": 1, "http.response.status_code": 200 });

    // E-commerce and cash-out: journaled money operations, applied.
    expect(byName(spans, "paysys.ecommerce.payments.create")[0]!.attributes).toMatchObject({ "paysys.outcome": "applied", "paysys.interface": "ecommerce" });
    expect(byName(spans, "paysys.cashout.requests.create")[0]!.attributes).toMatchObject({ "paysys.outcome": "applied", "paysys.interface": "cashout" });

    // The metrics: one call per outcome, its duration in seconds, the retry.
    const rm = await global.collect();
    expect(pointOf(rm, "paysys.client.calls", { "paysys.operation": "operations.sale", "paysys.outcome": "applied" })).toBe(1);
    expect(pointOf(rm, "paysys.client.calls", { "paysys.operation": "reports.payments", "paysys.outcome": "error", "error.type": "ServiceError" })).toBe(1);
    expect(pointOf(rm, "paysys.client.calls", { "paysys.interface": "ecommerce", "paysys.operation": "payments.create", "paysys.outcome": "applied" })).toBe(1);
    expect(pointOf(rm, "paysys.client.duration", { "paysys.operation": "requests.create", "paysys.outcome": "applied" })).toBe(1);
    expect(pointOf(rm, "paysys.client.retries", { "paysys.interface": "fiscal", "paysys.operation": "companies.list" })).toBe(1);
    const duration = rm?.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === "paysys.client.duration");
    expect(duration?.descriptor.unit).toBe("s");

    // No secret anywhere: every span whole (events, links, resource, scope), every metric whole.
    expect(secrets.filter((s) => !s)).toEqual([]);
    expect(secrets.length).toBeGreaterThan(10);
    const shown = (x: unknown) =>
      inspect(x, { depth: 20, maxArrayLength: Number.POSITIVE_INFINITY, maxStringLength: Number.POSITIVE_INFINITY, breakLength: Number.POSITIVE_INFINITY });
    const whole = shown([spans.map((s) => ({ ...s, context: s.spanContext() })), rm]);
    // Short secrets (the CVV, a captcha's text) could turn up by chance in a random id or a
    // measured number: they are looked for in every text the telemetry carries, the long ones everywhere.
    const texts = new Set<string>();
    const gather = (x: unknown): void => {
      if (typeof x === "string") texts.add(x);
      else if (Array.isArray(x)) x.forEach(gather);
      else if (x && typeof x === "object") for (const [k, v] of Object.entries(x)) gather([k, v]);
    };
    gather(
      spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        events: s.events,
        links: s.links,
        status: s.status,
        resource: s.resource.attributes,
        scope: s.instrumentationScope,
      })),
    );
    gather(rm?.scopeMetrics.map((s) => ({ scope: s.scope, metrics: s.metrics.map((m) => ({ descriptor: m.descriptor, attributes: m.dataPoints.map((d) => d.attributes) })) })));
    gather(rm?.resource.attributes);
    // What is looked through holds what the telemetry carries (so an empty dump cannot pass).
    expect(whole).toContain("paysys.fiscal.operations.sale");
    expect(whole).toContain("paysys.client.duration");
    expect(texts).toContain("/kkms/{idKkm}/sales");
    for (const secret of secrets) {
      if (secret.length >= 8) expect(whole.includes(secret), `a secret of ${secret.length} characters`).toBe(false);
      expect([...texts].filter((t) => t.includes(secret))).toEqual([]);
    }
    // Nor an amount, a description or a customer's name, nor the idempotency key (the caller's own order id).
    for (const value of ["2500", "50000", "1250.5", "Ivanov", "IVAN", "receipt-otel-1", "prov-otel-1", "77771112233"]) {
      expect([...texts].filter((t) => t.includes(value))).toEqual([]);
    }
    // Every attribute the SDK sets, on any span or metric point: metadata, and nothing else.
    const keys = new Set([
      ...spans.flatMap((s) => Object.keys(s.attributes)),
      ...(rm?.scopeMetrics.flatMap((s) => s.metrics.flatMap((m) => m.dataPoints.flatMap((d) => Object.keys(d.attributes)))) ?? []),
    ]);
    expect([...keys].sort()).toEqual([
      "error.type",
      "http.request.method",
      "http.response.status_code",
      "paysys.attempts",
      "paysys.interface",
      "paysys.operation",
      "paysys.outcome",
      "paysys.retries",
      "paysys.service_code",
      "server.address",
      "server.port",
      "url.template",
    ]);
  });

  it("telemetry: false makes no span and no metric", async () => {
    const before = pointOf(await global.collect(), "paysys.client.calls", { "paysys.operation": "companies.list" });
    const f = fiscal({ telemetry: false });
    await f.companies.list();
    await f.kkms.get({ idKkm: 102 });
    expect(global.spans.getFinishedSpans()).toEqual([]);
    expect(pointOf(await global.collect(), "paysys.client.calls", { "paysys.operation": "companies.list" })).toBe(before);
  });

  it("providers passed in the option take the client's spans and metrics instead of the global ones", async () => {
    const own = otel();
    const f = fiscal({ telemetry: { tracerProvider: own.tracerProvider, meterProvider: own.meterProvider } });
    await f.companies.list();
    expect(own.spans.getFinishedSpans().map((s) => s.name)).toContain("paysys.fiscal.companies.list");
    expect(global.spans.getFinishedSpans()).toEqual([]);
    expect(pointOf(await own.collect(), "paysys.client.calls", { "paysys.operation": "companies.list", "paysys.outcome": "ok" })).toBe(1);
    await own.shutdown();
  });

  it("a journaled call answered from the journal is replayed: nothing is sent", async () => {
    const f = fiscal();
    await openShift(f, 103);
    const Total = receiptTotal(coffee);
    const sale = { idKkm: 103, IdDomain: 1, Positions: coffee, Total, Cash: Total };
    const first = await f.operations.sale(sale, { idempotencyKey: "receipt-otel-2" });
    expect(await f.operations.sale(sale, { idempotencyKey: "receipt-otel-2" })).toEqual(first);
    const sales = byName(global.spans.getFinishedSpans(), "paysys.fiscal.operations.sale");
    expect(sales.map((s) => [s.attributes["paysys.outcome"], s.attributes["paysys.attempts"]])).toEqual([
      ["applied", 1],
      ["replayed", 0],
    ]);
  });
});
