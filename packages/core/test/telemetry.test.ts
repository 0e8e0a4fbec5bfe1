// The telemetry seam without an OpenTelemetry SDK: a client works the same when
// `@opentelemetry/api` cannot be loaded (an optional peer), `telemetry: false` loads nothing, the
// option is checked, providers passed in are used even without the api, and each ending of a
// journaled call has its outcome. The spans and metrics themselves, through the real SDK against
// the sandbox, are in the integration tests (telemetry.test.ts).
import { describe, expect, it } from "vitest";
import { AnswerLostError, BadRequestError, ConfigurationError, NotAppliedError, OutcomeUnknownError, RequestValidationError } from "../src/index.js";
import {
  checkClientOptions,
  clientFunctionKeys,
  clientTelemetry,
  createInvoker,
  loadOtelApi,
  outcomeOf,
  type Telemetry,
  Transport,
  type Validator,
} from "../src/internal/index.js";
import { testOperation } from "./operation.js";

const target = { interface: "test", baseUrl: "https://service.test:8443/api?token=hidden" };
const op = testOperation({ id: "things.get", path: "/things/{id}" });
const notInstalled = () => Promise.reject(Object.assign(new Error("Cannot find package '@opentelemetry/api'"), { code: "ERR_MODULE_NOT_FOUND" }));

/** A client's invoker over a scripted `fetch`, with the telemetry given. */
function invoker(telemetry: Telemetry | undefined, answers: Response[]) {
  let n = 0;
  const transport = new Transport({ baseUrl: target.baseUrl, fetch: async () => answers[Math.min(n++, answers.length - 1)]!.clone(), retry: { baseDelayMs: 1, maxDelayMs: 2 } });
  return createInvoker({ transport, operations: { [op.id]: op }, telemetry }).invoke;
}
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** Providers that keep what they are given, in the shape of OpenTelemetry's. */
function recorder() {
  const spans: { name: string; kind: number; attributes: Record<string, unknown>; status?: unknown; ended: boolean }[] = [];
  const points: { name: string; value: number; attributes: Record<string, unknown> }[] = [];
  const instrument = (name: string) => ({
    add: (value: number, attributes: Record<string, unknown>) => points.push({ name, value, attributes }),
    record: (value: number, attributes: Record<string, unknown>) => points.push({ name, value, attributes }),
  });
  const tracerProvider = {
    getTracer: () => ({
      startSpan(name: string, options: { kind: number; attributes: Record<string, unknown> }) {
        const span = { name, kind: options.kind, attributes: { ...options.attributes }, status: undefined as unknown, ended: false };
        spans.push(span);
        return {
          setAttributes: (a: Record<string, unknown>) => Object.assign(span.attributes, a),
          setStatus: (s: unknown) => {
            span.status = s;
          },
          isRecording: () => true,
          end: () => {
            span.ended = true;
          },
        };
      },
    }),
  };
  const meterProvider = { getMeter: () => ({ createCounter: instrument, createHistogram: instrument }) };
  return { spans, points, tracerProvider, meterProvider };
}

describe("telemetry when @opentelemetry/api cannot be loaded", () => {
  it("calls answer and fail as without telemetry, and nothing is recorded", async () => {
    const telemetry = clientTelemetry(undefined, target, notInstalled);
    expect(telemetry).toBeDefined();
    const invoke = invoker(telemetry, [json({ ok: 1 }), json({ code: 1 }, 400)]);
    expect(await invoke(op, { id: 7 })).toEqual({ ok: 1 });
    await expect(invoke(op, { id: 7 })).rejects.toBeInstanceOf(BadRequestError);
  });

  it("a loader that answers nothing (not the api) is the same", async () => {
    const invoke = invoker(
      clientTelemetry(undefined, target, () => Promise.resolve(undefined)),
      [json({ ok: 2 })],
    );
    expect(await invoke(op, { id: 7 })).toEqual({ ok: 2 });
  });

  it("telemetry: false makes no telemetry, so nothing is loaded", () => {
    let loaded = false;
    expect(
      clientTelemetry(false, target, () => {
        loaded = true;
        return notInstalled();
      }),
    ).toBeUndefined();
    expect(loaded).toBe(false);
  });

  it("providers passed in are used without the api: a span and the metrics per call, metadata only", async () => {
    const r = recorder();
    const invoke = invoker(clientTelemetry({ tracerProvider: r.tracerProvider, meterProvider: r.meterProvider }, target, notInstalled), [json({}, 503), json({ ok: 1 })]);
    await invoke(op, { id: 7 });
    expect(r.spans).toEqual([
      {
        name: "paysys.test.things.get",
        kind: 2,
        ended: true,
        status: undefined,
        attributes: {
          "paysys.interface": "test",
          "paysys.operation": "things.get",
          "http.request.method": "POST",
          "server.address": "service.test",
          "server.port": 8443,
          "url.template": "/things/{id}",
          "paysys.outcome": "ok",
          "paysys.attempts": 2,
          "paysys.retries": 1,
          "http.response.status_code": 200,
        },
      },
    ]);
    const labels = { "paysys.interface": "test", "paysys.operation": "things.get" };
    expect(r.points).toEqual([
      { name: "paysys.client.calls", value: 1, attributes: { ...labels, "paysys.outcome": "ok" } },
      { name: "paysys.client.duration", value: expect.any(Number), attributes: { ...labels, "paysys.outcome": "ok" } },
      { name: "paysys.client.retries", value: 1, attributes: labels },
    ]);
    expect(JSON.stringify(r)).not.toContain("hidden");
  });
});

describe("the telemetry option", () => {
  const settings = (() => true) as unknown as Validator;
  it("is an object or false, checked with the other options", () => {
    expect(() => checkClientOptions("createTestClient", { telemetry: false }, settings, clientFunctionKeys)).not.toThrow();
    expect(() => checkClientOptions("createTestClient", { telemetry: {} }, settings, clientFunctionKeys)).not.toThrow();
    for (const wrong of [true, "otel", null, 1]) {
      expect(() => checkClientOptions("createTestClient", { telemetry: wrong }, settings, clientFunctionKeys)).toThrow("/telemetry must be an object or false");
    }
  });

  it("names what it does not know and providers that are not providers", () => {
    expect(() => clientTelemetry({ tracer: {} } as never, target, notInstalled)).toThrow(ConfigurationError);
    expect(() => clientTelemetry({ tracerProvider: {} } as never, target, notInstalled)).toThrow("telemetry.tracerProvider must have getTracer");
    expect(() => clientTelemetry({ meterProvider: 1 } as never, target, notInstalled)).toThrow("telemetry.meterProvider must have getMeter");
    expect(() => clientTelemetry({ api: {} }, target, notInstalled)).toThrow("telemetry.api must be the @opentelemetry/api module");
  });

  it("loads the real @opentelemetry/api where it is installed, once for the process", async () => {
    const api = await loadOtelApi();
    expect(typeof api?.trace.getTracerProvider).toBe("function");
    expect(loadOtelApi()).toBe(loadOtelApi());
  });
});

describe("the real @opentelemetry/api with no SDK registered", () => {
  it("a call starts no span and switches no context until an SDK registers, and is traced from then on", async () => {
    const api = (await loadOtelApi()) as unknown as typeof import("@opentelemetry/api");
    // The api as the client sees it, counting the context switches a span costs every call.
    let switches = 0;
    const counted = {
      ...api,
      trace: api.trace,
      metrics: api.metrics,
      context: {
        active: () => api.context.active(),
        with: <T>(c: never, fn: () => T) => {
          switches++;
          return api.context.with(c, fn);
        },
      },
    };
    const invoke = invoker(clientTelemetry({ api: counted }, target, notInstalled), [json({ ok: 1 })]);
    await invoke(op, { id: 1 });
    await invoke(op, { id: 2 });
    expect(switches).toBe(0);
    const r = recorder();
    api.trace.setGlobalTracerProvider(r.tracerProvider as never);
    api.metrics.setGlobalMeterProvider(r.meterProvider as never);
    try {
      await invoke(op, { id: 3 });
      expect(switches).toBe(1);
      expect(r.spans.map((s) => [s.name, s.ended, s.attributes["paysys.outcome"]])).toEqual([["paysys.test.things.get", true, "ok"]]);
      expect(r.points.map((p) => p.name)).toEqual(["paysys.client.calls", "paysys.client.duration"]);
    } finally {
      api.trace.disable();
      api.metrics.disable();
    }
    await invoke(op, { id: 4 });
    expect([switches, r.spans.length]).toEqual([1, 1]);
  });
});

describe("a journaled call's outcome", () => {
  const journaled = testOperation({ id: "pay.create", outcome: { by: "none" } });
  const sent = { attempts: 1, retries: 0, status: 200, sent: true };
  const unsent = { ...sent, attempts: 0, sent: false };
  const ctx = { operation: "pay.create", key: "k" };
  it.each([
    ["applied", sent, undefined, false],
    ["replayed", unsent, undefined, false],
    ["applied", sent, new AnswerLostError("m", ctx), true],
    ["not-applied", sent, new NotAppliedError("m", ctx), true],
    ["unknown", sent, new OutcomeUnknownError("m", ctx), true],
    ["refused", sent, new BadRequestError("m", {}), true],
    ["replayed", unsent, new BadRequestError("m", {}), true],
    ["not-sent", unsent, new RequestValidationError("pay.create", []), true],
  ] as const)("is %s", (outcome, record, error, failed) => {
    expect(outcomeOf(journaled, { ...record }, error, failed)).toBe(outcome);
  });

  it("and an operation that is not journaled is ok or error", () => {
    expect(outcomeOf(op, sent, undefined, false)).toBe("ok");
    expect(outcomeOf(op, sent, new BadRequestError("m", {}), true)).toBe("error");
  });
});
