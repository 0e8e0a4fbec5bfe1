// Our vocabulary of spec extensions that the code generator reads as data, checked in one place
// for the spec lint and the generator alike.
import type { Json } from "./specs.js";

export interface UnwrapSpec {
  at: string[];
  list?: true;
  one?: true;
}

const isPointer = (p: unknown) => typeof p === "string" && (p === "" || p.startsWith("/"));

/** `x-unwrap` as the runtime reads it: a JSON pointer, or `{ at: pointer | pointer[], list?, one? }`. Throws a sentence on anything else. */
export function readUnwrap(raw: Json): UnwrapSpec {
  if (raw === undefined) throw new Error("x-unwrap is missing (a JSON pointer such as /result, or { at, list, one })");
  const spec = typeof raw === "string" ? { at: [raw] } : raw && typeof raw === "object" && !Array.isArray(raw) ? { ...raw, at: [raw.at].flat() } : undefined;
  if (!spec) throw new Error(`x-unwrap must be a JSON pointer or { at, list, one }, got ${JSON.stringify(raw)}`);
  const unknown = Object.keys(spec).filter((k) => !["at", "list", "one"].includes(k));
  if (unknown.length) throw new Error(`x-unwrap has unknown keys: ${unknown.join(", ")}`);
  for (const p of spec.at) if (!isPointer(p)) throw new Error(`x-unwrap: ${JSON.stringify(p)} is not a JSON pointer`);
  if (spec.at.length === 0) throw new Error("x-unwrap: at lists no pointer");
  if (spec.list && spec.one) throw new Error("x-unwrap: list and one exclude each other");
  return { at: spec.at, ...(spec.list ? { list: true as const } : {}), ...(spec.one ? { one: true as const } : {}) };
}

/** Problems of a document's `x-envelope`: where params go, and where the answer's code and message sit. */
export function envelopeProblems(raw: Json): string[] {
  if (!raw || typeof raw !== "object") return ["x-envelope is missing at the root (where params go, and the answer's code and message)"];
  const problems: string[] = [];
  if (!isPointer(raw.params)) problems.push('x-envelope.params must be a JSON pointer ("" for the body itself)');
  for (const k of ["code", "message", "error"]) if (raw[k] !== undefined && !isPointer(raw[k])) problems.push(`x-envelope.${k} must be a JSON pointer`);
  if (raw.code !== undefined && !Array.isArray(raw.success)) problems.push("x-envelope.success must list the codes that mean success");
  return problems;
}
