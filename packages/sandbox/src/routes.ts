// Routes from a spec's operation table: each operation's method and path template become a
// matcher, so a module finds the operation of a request, its path parameters and the generated
// validators of its body and answer, without writing its routes a second time.

import type { ValidationIssue } from "@paysys/core";
import { type OperationSpec, type Validator, validatorIssues } from "@paysys/core/internal";

export interface Route {
  op: OperationSpec;
  /** Checks the whole request body as sent (the spec's request schema). */
  validateRequest: Validator | undefined;
  /** Checks the whole answer the sandbox gives (the spec's response schema): one that breaks the spec is a sandbox bug. */
  validateResponse: Validator | undefined;
  pattern: RegExp;
  names: string[];
}

export interface Match {
  route: Route;
  /** Path parameters, as strings. */
  params: Record<string, string>;
}

/** The routes of an operation table; `wire` holds the generated wire validators (`<id>_request`, `<id>_response`). */
export function routesOf(operations: Readonly<Record<string, OperationSpec>>, wire: Readonly<Record<string, Validator>>): Route[] {
  return Object.values(operations).map((op) => {
    const names: string[] = [];
    const source = op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{([^}]+)\\?\}|\{([^}]+)\}/g, (_, a, b) => {
      names.push(a ?? b);
      return "([^/]+)";
    });
    const id = op.id.replace(/[.-]/g, "_");
    return { op, validateRequest: wire[`${id}_request`], validateResponse: wire[`${id}_response`], pattern: new RegExp(`^${source}$`), names };
  });
}

/** The route of a request, or undefined. */
export function match(routes: readonly Route[], method: string, path: string): Match | undefined {
  for (const route of routes) {
    if (route.op.method.toUpperCase() !== method) continue;
    const m = route.pattern.exec(path);
    if (m) return { route, params: Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)])) };
  }
  return undefined;
}

/** Issues as one line: `/path message; /path message`. */
export const describeIssues = (issues: readonly ValidationIssue[]) => issues.map((i) => `${i.path || "(body)"} ${i.message}`).join("; ");

/**
 * The JSON body of a request to `route`, checked with the spec's request validator. A problem is
 * turned into the module's own error by `refuse` (issues undefined: the body is not JSON), and thrown.
 * `normalize` runs between parsing and checking (keys read regardless of case, for one).
 */
export function requestBody(
  route: Route,
  raw: string,
  refuse: (issues: ValidationIssue[] | undefined) => Error,
  normalize: (body: unknown) => unknown = (body) => body,
): Record<string, unknown> {
  let body: Record<string, unknown>;
  try {
    body = normalize(JSON.parse(raw)) as Record<string, unknown>;
  } catch {
    throw refuse(undefined);
  }
  if (route.validateRequest && !route.validateRequest(body)) throw refuse(validatorIssues(route.validateRequest));
  return body;
}

/**
 * Reads object keys regardless of case, as Go's encoding/json does: a key whose lower case is that of
 * a known name becomes that name, at any depth; when two keys land on one name, the later one wins.
 * Other keys stay as they are.
 */
export function caseInsensitiveKeys(names: readonly string[]): (value: unknown) => unknown {
  const byLower = new Map(names.map((n) => [n.toLowerCase(), n]));
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value === null || typeof value !== "object") return value;
    // fromEntries defines properties (a "__proto__" key stays a key), and a later entry wins.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [byLower.get(k.toLowerCase()) ?? k, canonical(v)]));
  };
  return canonical;
}
