// The `telemetry` option's checks, apart from telemetry.ts so a client checks the option when it
// is made (construction.ts) without loading the telemetry itself.
import type { TelemetryOptions } from "../call.js";

const isApi = (m: unknown): boolean => {
  const api = m as { trace?: { getTracerProvider?: unknown }; context?: { with?: unknown } } | undefined;
  return typeof api?.trace?.getTracerProvider === "function" && typeof api.context?.with === "function";
};

/** `@opentelemetry/api` itself, or its CommonJS `default` where an interop wrapped it; undefined when `m` is neither. */
export function otelModule(m: unknown): object | undefined {
  const wrapped = (m as { default?: unknown } | undefined)?.default;
  return isApi(m) ? (m as object) : isApi(wrapped) ? (wrapped as object) : undefined;
}

/** What is wrong with the `telemetry` option, one line each (none for `false` or nothing). */
export function telemetryOptionIssues(option: TelemetryOptions | false | undefined): string[] {
  if (option === undefined || option === false) return [];
  const problems = Object.keys(option)
    .filter((k) => !["tracerProvider", "meterProvider", "api"].includes(k))
    .map((k) => `telemetry.${k} is not an option`);
  const { tracerProvider, meterProvider, api } = option;
  if (tracerProvider !== undefined && typeof tracerProvider?.getTracer !== "function") problems.push("telemetry.tracerProvider must have getTracer");
  if (meterProvider !== undefined && typeof meterProvider?.getMeter !== "function") problems.push("telemetry.meterProvider must have getMeter");
  if (api !== undefined && !otelModule(api)) problems.push("telemetry.api must be the @opentelemetry/api module");
  return problems;
}
