// Checking client options at construction. The plain-data part is checked by a validator the
// code generator made from the package's settings interface (typescript-json-schema + Ajv), so
// JavaScript callers get the same strictness as TypeScript ones; the rest are functions.
import type { ClientFunctions, ClientSettings } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { type Validator, validatorIssues } from "./operation.js";

/** Throws a ConfigurationError naming every wrong option. Returns nothing when all is well. */
export function checkClientOptions(client: string, options: unknown, settings: Validator, callbacks: Readonly<Record<string, "function" | "object">>): void {
  if (options === null || typeof options !== "object") throw new ConfigurationError(`${client}: options must be an object`);
  const data: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    const kind = callbacks[key];
    if (kind === undefined) data[key] = value;
    else if (value !== undefined && typeof value !== kind) problems.push(`/${key} must be a ${kind}`);
  }
  if (!settings(data)) problems.push(...validatorIssues(settings).map((i) => `${i.path || "(options)"} ${i.message}`));
  if (problems.length > 0) throw new ConfigurationError(`${client}: invalid options: ${problems.join("; ")}`);
}

/** The kinds of the options every client takes that are functions or objects (for `checkClientOptions`). */
export const clientFunctionKeys = { fetch: "function", logger: "function", hooks: "object" } as const;

/** The options every client hands to its transport unchanged. */
export function sharedTransportOptions(o: ClientSettings & ClientFunctions) {
  return {
    fetch: o.fetch,
    timeoutMs: o.timeoutMs,
    retry: o.retry,
    validateResponses: o.validateResponses,
    maxResponseBytes: o.maxResponseBytes,
    logger: o.logger,
    hooks: o.hooks,
    headers: o.headers,
  };
}
