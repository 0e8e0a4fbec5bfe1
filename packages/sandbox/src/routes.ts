// Routes from a spec's operation table: each operation's method and path template become a
// matcher, so a module finds the operation of a request, its path parameters and the generated
// validators of its body and answer, without writing its routes a second time.

import type { ValidationIssue } from "@paysys/core";
import { foldedKey, type OperationSpec, type Validator, validatorIssues } from "@paysys/core/internal";
import type { SandboxRequest } from "./module.js";

export interface Route<Id extends string = string> {
  /** The operation's id, typed as a key of the operation table the route came from. */
  id: Id;
  op: OperationSpec;
  /** Checks the whole request body as sent (the spec's request schema). */
  validateRequest: Validator | undefined;
  /** Checks the whole answer the sandbox gives (the spec's response schema): one that breaks the spec is a sandbox bug. */
  validateResponse: Validator | undefined;
  pattern: RegExp;
  names: string[];
}

export interface Match<Id extends string = string> {
  route: Route<Id>;
  /** Path parameters, as strings. */
  params: Record<string, string>;
}

/** The routes of an operation table; `wire` holds the generated wire validators (`<id>_request`, `<id>_response`). */
export function routesOf<Id extends string>(operations: Readonly<Record<Id, OperationSpec>>, wire: Readonly<Record<string, Validator>>): Route<Id>[] {
  return (Object.keys(operations) as Id[]).map((key) => {
    const op = operations[key];
    const names: string[] = [];
    const source = op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{([^}]+)\\?\}|\{([^}]+)\}/g, (_, a, b) => {
      names.push(a ?? b);
      return "([^/]+)";
    });
    const id = op.id.replace(/[.-]/g, "_");
    return { id: key, op, validateRequest: wire[`${id}_request`], validateResponse: wire[`${id}_response`], pattern: new RegExp(`^${source}$`), names };
  });
}

/**
 * One handler per operation of a spec, keyed by the generated table's operation ids: a handler
 * missing, misspelt or left over from a removed operation is a compile error, not a 404 at run time.
 */
export type HandlerTable<Operations, Call, Answer> = { readonly [Id in keyof Operations]: (call: Call) => Answer };

/** What a handler gets of a request: its path parameters, the request, its checked body, and who signed in. */
export interface HandlerCall<Party> {
  params: Record<string, string>;
  request: SandboxRequest;
  body: Record<string, unknown>;
  /** The signed-in party (user, merchant, login); reading it on a call that has none is refused as unauthorized. */
  readonly party: Party;
}

/** A handler's call. Only operations without security run without a party, and they do not read it. */
export function handlerCall<Party>(match: Match, request: SandboxRequest, body: Record<string, unknown>, party: Party | undefined, unauthorized: () => Error): HandlerCall<Party> {
  return {
    params: match.params,
    request,
    body,
    get party(): Party {
      if (party === undefined) throw unauthorized();
      return party;
    },
  };
}

/** The route of a request, or undefined. */
export function match<Id extends string>(routes: readonly Route<Id>[], method: string, path: string): Match<Id> | undefined {
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
  const byFolded = new Map(names.map((n) => [foldedKey(n), n]));
  // The known names are a few levels deep: deeper values (an open field nested thousands of levels,
  // which Go reads) are kept as they are, not walked until the stack runs out.
  const canonical = (value: unknown, depth = 0): unknown => {
    if (depth > 32 || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((v) => canonical(v, depth + 1));
    // fromEntries defines properties (a "__proto__" key stays a key), and a later entry wins.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [byFolded.get(foldedKey(k)) ?? k, canonical(v, depth + 1)]));
  };
  return canonical;
}
