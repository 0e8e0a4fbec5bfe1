// What a client checks when it is made, before anything of its runtime is loaded: a client's entry
// point is a shell (lazy.ts) that must refuse wrong options at construction, as it always did, yet
// load only this. So every check of the options lives here, and the runtime runs none twice.
// The plain-data part is checked against the JSON schema the code generator made from the
// package's settings interface (typescript-json-schema), read by settings-schema.ts, so JavaScript
// callers get the same strictness as TypeScript ones; the rest are functions and objects, checked by kind.
import type { TelemetryOptions } from "../call.js";
import { ConfigurationError } from "../errors.js";
import { headerIssues } from "./header-check.js";
import { nodeBuiltins } from "./node-builtins.js";
import { telemetryOptionIssues } from "./telemetry-option.js";
import { type Validator, validatorIssues } from "./validator.js";

/** What an option that is not plain data must be. */
export type OptionKind = "function" | "object" | "object or false";

/** The kinds of the options every client takes that are functions or objects (for `checkClientOptions`). */
export const clientFunctionKeys = { fetch: "function", agent: "object", logger: "function", hooks: "object", telemetry: "object or false" } as const;

/** The kinds of the journal's object options (for `checkClientOptions`). */
export const journalFunctionKeys = { store: "object" } as const;

/** Throws a ConfigurationError naming every wrong option. Returns nothing when all is well. */
export function checkClientOptions(client: string, options: unknown, settings: Validator, callbacks: Readonly<Record<string, OptionKind>>): void {
  if (options === null || typeof options !== "object") throw new ConfigurationError(`${client}: options must be an object`);
  const data: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, value] of Object.entries(options)) {
    const kind = callbacks[key];
    if (kind === undefined) data[key] = value;
    else if (kind === "object or false") {
      if (value !== undefined && value !== false && (typeof value !== "object" || value === null)) problems.push(`/${key} must be an object or false`);
    } else if (value !== undefined && typeof value !== kind) problems.push(`/${key} must be a ${kind}`);
  }
  if (!settings(data)) problems.push(...validatorIssues(settings).map((i) => `${i.path || "(options)"} ${i.message}`));
  else if (data.headers) problems.push(...headerIssues(data.headers as Record<string, unknown>).map((i) => `/headers/${i.name} ${i.message}`));
  if (problems.length > 0) throw new ConfigurationError(`${client}: invalid options: ${problems.join("; ")}`);
}

/**
 * An operation as a client's shell knows it (routes.ts): `defaultPath` where no source shows its path
 * and the SDK chose one, the only paths the `paths` option may change. The documented paths stay
 * with the runtime: the shell would only load them to say they cannot be changed.
 */
export interface Route {
  readonly defaultPath?: string;
}

const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();

/** The `paths` option checked: only paths no source shows may be changed, and only with the same placeholders. Each changed operation's id and its new path. */
export function checkPathOverrides(routes: Readonly<Record<string, Route>>, paths: Readonly<Record<string, string>> = {}): [string, string][] {
  return Object.entries(paths).map(([id, path]) => {
    const route = Object.hasOwn(routes, id) ? routes[id] : undefined;
    if (!route) throw new ConfigurationError(`paths: no operation ${id}`);
    const { defaultPath } = route;
    if (defaultPath === undefined) throw new ConfigurationError(`paths: the path of ${id} is documented; it cannot be changed`);
    if (placeholders(path).join() !== placeholders(defaultPath).join()) throw new ConfigurationError(`paths: ${id} must keep the placeholders of ${defaultPath}`);
    return [id, path];
  });
}

/** The options a generic client checks at construction (`settings`: its generated validator). */
export interface ClientChecks {
  /** The factory's name, which starts its errors (`createFiscalClient`). */
  client: string;
  settings: Validator;
  functionKeys: Readonly<Record<string, OptionKind>>;
  /** The spec's operations, for the `paths` option. */
  routes: Readonly<Record<string, Route>>;
}

/** Every check of a client's options the runtime would otherwise make when it is built. */
export function checkConstruction(options: unknown, checks: ClientChecks): void {
  checkClientOptions(checks.client, options, checks.settings, checks.functionKeys);
  const o = options as { paths?: Record<string, string>; telemetry?: unknown; agent?: unknown; fetch?: unknown };
  checkPathOverrides(checks.routes, o.paths);
  const telemetry = telemetryOptionIssues(o.telemetry as TelemetryOptions | undefined);
  if (telemetry.length) throw new ConfigurationError(`invalid options: ${telemetry.join("; ")}`);
  if (o.agent !== undefined && o.fetch === undefined && !nodeBuiltins())
    throw new ConfigurationError("agent: only Node's HTTP takes an agent; on this runtime pass a `fetch` instead");
}
