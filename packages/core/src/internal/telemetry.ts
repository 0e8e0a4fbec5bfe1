// OpenTelemetry, when the application has it. Every call of a generated method is a span
// `paysys.<interface>.<operation>` (kind CLIENT) around all of it (checks, journal, attempts,
// retries), and the calls, their duration and their retries are metrics.
//
// `@opentelemetry/api` is an optional peer: it is never imported statically (a static import of a
// package that is not installed breaks Node and every bundler). A client loads it once, lazily,
// when it is made (one load for the process); the calls made while it loads wait for it, so the
// first call is traced too. Without it, and without providers passed in the `telemetry` option,
// a call costs nothing more; with `telemetry: false`, not even the load is tried.
//
// What a span and a metric carry is metadata only: the interface, the operation, the HTTP method,
// the server's host and port, the path template, attempts, retries, the status, the service's code,
// the outcome and the error's class. Never a URL's query, a header, a body, an error's message, an
// idempotency key (it is the caller's order or receipt id, and may name a customer), an amount or a name.
import type { TelemetryOptions } from "../call.js";
import { AnswerLostError, APIError, ConfigurationError, NotAppliedError, OutcomeUnknownError, PaysysError, ServiceError } from "../errors.js";
import type { OperationSpec } from "./operation.js";
import { otelModule, telemetryOptionIssues } from "./telemetry-option.js";

/** What one call learnt on its way (the transport writes it), for its span and metrics. */
export interface CallRecord {
  /** Requests made (every attempt, redirect and re-send), over every send of the call. */
  attempts: number;
  /** Retries spent. */
  retries: number;
  /** The last answer's HTTP status. */
  status: number | undefined;
  /** Whether a request was handed to the HTTP layer (a journaled call answered from the journal sends none). */
  sent: boolean;
}

/** One client's telemetry: runs each call in its span. */
export interface Telemetry {
  run<T>(op: OperationSpec, call: (record: CallRecord | undefined) => Promise<T>): Promise<T>;
}

type Attributes = Record<string, string | number | boolean>;
interface Span {
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number }): unknown;
  isRecording(): boolean;
  end(): void;
}
interface Tracer {
  startSpan(name: string, options: { kind: number; attributes: Attributes }): Span;
}
interface Counter {
  add(value: number, attributes: Attributes): void;
}
interface Histogram {
  record(value: number, attributes: Attributes): void;
}
interface Meter {
  createCounter(name: string, options: { description: string; unit: string }): Counter;
  createHistogram(name: string, options: { description: string; unit: string; advice?: { explicitBucketBoundaries: number[] } }): Histogram;
}
interface TracerProvider {
  getTracer(name: string): Tracer;
}
interface MeterProvider {
  getMeter(name: string): Meter;
}
/** The part of `@opentelemetry/api` used here. */
interface OtelApi {
  trace: { getTracerProvider(): TracerProvider; setSpan(context: unknown, span: Span): unknown };
  context: { active(): unknown; with<T>(context: unknown, fn: () => T): T };
  metrics?: { getMeterProvider(): MeterProvider };
  /** A fresh one has no delegate: its `getDelegate()` is the api's own no-op provider (api 1.x). */
  ProxyTracerProvider?: new () => TracerProvider & { getDelegate(): TracerProvider };
  /** Its instruments are the api's no-op singletons (api 1.3 and later). */
  createNoopMeter?: () => Meter;
}
interface Instruments {
  calls: Counter;
  duration: Histogram;
  retries: Counter;
}

/**
 * The api's no-op providers, which an application gets when it has `@opentelemetry/api` (often as
 * some other package's dependency) and has registered no SDK. A call does nothing for them but
 * cost: no span, no context switch, no metric then. Found by identity, never by class name, so a
 * minifier cannot hide one; an api that cannot tell leaves every call traced, as before.
 */
interface Noops {
  tracerProvider: TracerProvider | undefined;
  counter: Counter | undefined;
}
function noopsOf(api: OtelApi): Noops {
  try {
    return {
      tracerProvider: api.ProxyTracerProvider && new api.ProxyTracerProvider().getDelegate(),
      counter: api.createNoopMeter?.().createCounter("paysys.noop", { description: "", unit: "" }),
    };
  } catch {
    return { tracerProvider: undefined, counter: undefined };
  }
}
/**
 * Whether a meter provider is the api's no-op one. Its instruments are made here, once per provider:
 * a provider that throws while making them is no no-op, and its error comes where it always did, in
 * the call's promise (at its end), never thrown from the call itself.
 */
function noopMeters(provider: MeterProvider, noops: Noops | undefined): boolean {
  if (noops?.counter === undefined) return false;
  try {
    return instrumentsOf(provider).calls === noops.counter;
  } catch {
    return false;
  }
}
/** The provider that does the work: the global proxy's delegate; undefined when that is the no-op one. */
function workingTracers(provider: object | undefined, noops: Noops | undefined): object | undefined {
  try {
    const delegate = (provider as { getDelegate?: () => object } | undefined)?.getDelegate?.() ?? provider;
    return delegate !== undefined && delegate === noops?.tracerProvider ? undefined : provider;
  } catch {
    // A provider that cannot say: it is traced, and what it throws comes in the call's promise, as ever.
    return provider;
  }
}

/** OpenTelemetry's stable enum values (SpanKind.CLIENT, SpanStatusCode.ERROR): the same in every 1.x. */
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;
const SCOPE = "@paysys/core";
/** The buckets the HTTP client duration of the semantic conventions advises, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
// A name bundlers do not follow (the comments ask webpack and Vite not to try): without the package, the load fails at run time and nothing else.
const SPECIFIER = "@opentelemetry/api";

const asApi = (m: unknown) => otelModule(m) as OtelApi | undefined;

let shared: Promise<OtelApi | undefined> | undefined;
/** Loads `@opentelemetry/api` once for the process: undefined when it is not installed. */
export function loadOtelApi(): Promise<OtelApi | undefined> {
  shared ??= import(/* webpackIgnore: true */ /* @vite-ignore */ SPECIFIER).then(asApi, () => undefined);
  return shared;
}

const tracers = new WeakMap<object, Tracer>();
const meters = new WeakMap<object, Instruments>();

function tracerOf(provider: TracerProvider): Tracer {
  let tracer = tracers.get(provider);
  if (!tracer) {
    tracer = provider.getTracer(SCOPE);
    tracers.set(provider, tracer);
  }
  return tracer;
}

/** The instruments, made once per meter provider (the global one may be set after a client is made). */
function instrumentsOf(provider: MeterProvider): Instruments {
  let made = meters.get(provider);
  if (made) return made;
  const meter = provider.getMeter(SCOPE);
  made = {
    calls: meter.createCounter("paysys.client.calls", { description: "Calls of the SDK's operations, by outcome.", unit: "{call}" }),
    duration: meter.createHistogram("paysys.client.duration", {
      description: "Duration of the SDK's operations, with every attempt, retry and journal step.",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    retries: meter.createCounter("paysys.client.retries", { description: "Retries of the SDK's operations.", unit: "{retry}" }),
  };
  meters.set(provider, made);
  return made;
}

/** The `telemetry` option checked: a ConfigurationError names what is wrong. */
function checked(option: TelemetryOptions | undefined): TelemetryOptions {
  const problems = telemetryOptionIssues(option);
  if (problems.length) throw new ConfigurationError(`invalid options: ${problems.join("; ")}`);
  return option ?? {};
}

/** Where a client's calls go, for every span's first attributes. */
export interface TelemetryTarget {
  interface: string;
  baseUrl: string;
}

/**
 * A client's telemetry, or undefined with `telemetry: false`. `load` gives `@opentelemetry/api`
 * (tests pass one that fails, as where it is not installed).
 */
export function clientTelemetry(option: TelemetryOptions | false | undefined, target: TelemetryTarget, load = loadOtelApi): Telemetry | undefined {
  if (option === false) return undefined;
  const given = checked(option);
  let api: OtelApi | undefined;
  let noops: Noops | undefined;
  let loading: Promise<unknown> | undefined = (given.api ? Promise.resolve(asApi(given.api)) : load()).then(
    (a) => {
      api = a;
      noops = a && noopsOf(a);
      loading = undefined;
    },
    () => {
      loading = undefined;
    },
  );
  const starts = new WeakMap<OperationSpec, Attributes>();
  const server = serverOf(target.baseUrl);
  const startOf = (op: OperationSpec) => {
    let attributes = starts.get(op);
    if (!attributes) {
      attributes = startAttributes(target.interface, op, server);
      starts.set(op, attributes);
    }
    return attributes;
  };

  // Not async itself: without the api and providers, a call is the call alone.
  function run<T>(op: OperationSpec, call: (record: CallRecord | undefined) => Promise<T>): Promise<T> {
    if (loading) return loading.then(() => run(op, call));
    // Asked on every call: an application may register its SDK after the client was made.
    const tracerProvider = workingTracers(given.tracerProvider ?? api?.trace.getTracerProvider(), noops);
    let meterProvider = given.meterProvider ?? api?.metrics?.getMeterProvider();
    if (meterProvider && noopMeters(meterProvider as MeterProvider, noops)) meterProvider = undefined;
    if (!tracerProvider && !meterProvider) return call(undefined);
    return traced(op, call, tracerProvider, meterProvider);
  }

  async function traced<T>(
    op: OperationSpec,
    call: (record: CallRecord | undefined) => Promise<T>,
    tracerProvider: object | undefined,
    meterProvider: object | undefined,
  ): Promise<T> {
    const record: CallRecord = { attempts: 0, retries: 0, status: undefined, sent: false };
    const started = performance.now();
    const span = tracerProvider && tracerOf(tracerProvider as TracerProvider).startSpan(`paysys.${target.interface}.${op.id}`, { kind: SPAN_KIND_CLIENT, attributes: startOf(op) });
    const ended = (error: unknown, failed: boolean) => {
      const seconds = (performance.now() - started) / 1000;
      end(target.interface, op, record, span, meterProvider && instrumentsOf(meterProvider as MeterProvider), seconds, error, failed);
    };
    try {
      // Within the span's context: the calls a call makes (a sign-in, the journal's status query) are its children.
      const value = await (api && span ? api.context.with(api.trace.setSpan(api.context.active(), span), () => call(record)) : call(record));
      ended(undefined, false);
      return value;
    } catch (e) {
      ended(e, true);
      throw e;
    }
  }
  return { run };
}

/** The server's host and port, never anything else of the address. */
function serverOf(baseUrl: string): Attributes {
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : url.protocol === "http:" ? 80 : undefined;
    return { "server.address": url.hostname, ...(port !== undefined ? { "server.port": port } : {}) };
  } catch {
    return {};
  }
}

function startAttributes(iface: string, op: OperationSpec, server: Attributes): Attributes {
  return {
    "paysys.interface": iface,
    "paysys.operation": op.id,
    "http.request.method": op.method.toUpperCase(),
    ...server,
    // The path's template (`/kkms/{idKkm}/sales`): never its values, never the query.
    "url.template": op.path,
  };
}

/**
 * How the call ended. Journaled operations: `applied`, `not-applied`, `refused`, `unknown` (the
 * SDK could not learn it), `replayed` (answered from the journal, nothing sent) or `not-sent`
 * (refused before sending). Other operations: `ok` or `error`.
 */
export function outcomeOf(op: OperationSpec, record: CallRecord, error: unknown, failed: boolean): string {
  const journaled = op.outcome !== undefined;
  if (!failed) return journaled ? (record.sent ? "applied" : "replayed") : "ok";
  if (!journaled) return "error";
  const decided =
    error instanceof AnswerLostError || error instanceof NotAppliedError || error instanceof OutcomeUnknownError || error instanceof APIError || error instanceof ServiceError;
  if (!record.sent) return decided ? "replayed" : "not-sent";
  if (error instanceof AnswerLostError) return "applied";
  if (error instanceof NotAppliedError) return "not-applied";
  if (error instanceof OutcomeUnknownError) return "unknown";
  return error instanceof APIError || error instanceof ServiceError ? "refused" : "error";
}

/** The error's class: a short name, never its message. */
const errorType = (e: unknown) => (e instanceof Error && e.name ? e.name : "_OTHER");

function end(
  iface: string,
  op: OperationSpec,
  record: CallRecord,
  span: Span | undefined,
  instruments: Instruments | undefined,
  seconds: number,
  error: unknown,
  failed: boolean,
): void {
  const outcome = outcomeOf(op, record, error, failed);
  const paysysError = error instanceof PaysysError ? error : undefined;
  if (instruments) {
    const attributes: Attributes = { "paysys.interface": iface, "paysys.operation": op.id, "paysys.outcome": outcome };
    if (failed) attributes["error.type"] = errorType(error);
    instruments.calls.add(1, attributes);
    instruments.duration.record(seconds, attributes);
    if (record.retries > 0) instruments.retries.add(record.retries, { "paysys.interface": iface, "paysys.operation": op.id });
  }
  if (!span) return;
  if (span.isRecording()) {
    const attributes: Attributes = { "paysys.outcome": outcome, "paysys.attempts": record.attempts || paysysError?.attempts || 0, "paysys.retries": record.retries };
    const status = record.status ?? paysysError?.status;
    if (status !== undefined) attributes["http.response.status_code"] = status;
    if (paysysError?.serviceCode !== undefined) attributes["paysys.service_code"] = String(paysysError.serviceCode);
    if (failed) {
      attributes["error.type"] = errorType(error);
      // No description: an error's message may quote what the service answered.
      span.setStatus({ code: STATUS_ERROR });
    }
    span.setAttributes(attributes);
  }
  span.end();
}
