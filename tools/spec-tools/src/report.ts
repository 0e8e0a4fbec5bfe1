// The gap report: per interface, the operations known, the gaps still open and the facts by source.
import { bundle, classifySource, type Json, loadSpec, operations, resolveRef, type SourceKind, sourcesOf, specs, walk } from "./specs.js";

export interface InterfaceReport {
  spec: string;
  title: string;
  operations: { id: string; method: string; path: string; sources: SourceKind[]; gaps: number }[];
  /** Operations that exist in the sources but whose endpoint is not shown anywhere. */
  missingOperations: string[];
  gaps: { where: string; text: string }[];
  factsBySource: Record<SourceKind, number>;
}

/** Gaps an operation reaches, following `$ref`s (each referenced schema counted once). */
function opGaps(doc: Json, op: Json): number {
  const seen = new Set<Json>();
  const count = (node: Json): number => {
    if (node === null || typeof node !== "object" || seen.has(node)) return 0;
    seen.add(node);
    let n = typeof node["x-gap"] === "string" ? 1 : 0;
    if (typeof node.$ref === "string") n += count(resolveRef(doc, node.$ref));
    for (const v of Object.values(node)) n += count(v);
    return n;
  };
  return count(op);
}

export function gapReport(): InterfaceReport[] {
  return specs.map((spec) => {
    const doc = loadSpec(spec);
    const bundled = bundle(spec);
    const factsBySource: Record<SourceKind, number> = { document: 0, official: 0, "third-party": 0, "server-sample": 0 };
    const gaps: InterfaceReport["gaps"] = [];
    walk(doc, (node, pointer) => {
      for (const s of sourcesOf(node)) {
        const kind = classifySource(s);
        if (kind) factsBySource[kind]++;
      }
      if (typeof node["x-gap"] === "string") gaps.push({ where: decodeURIComponent(pointer) || "/", text: node["x-gap"].trim() });
    });
    return {
      spec: spec.name,
      title: doc.info.title,
      operations: operations(bundled).map(({ method, path, op, webhook }) => ({
        id: op.operationId,
        method: webhook ? "WEBHOOK" : method.toUpperCase(),
        path,
        sources: [
          ...new Set(
            sourcesOf(op)
              .map((s) => classifySource(s))
              .filter((k): k is SourceKind => k !== undefined),
          ),
        ],
        gaps: opGaps(bundled, op),
      })),
      missingOperations: (doc.info["x-missing-operations"] ?? []).map((m: Json) => m.name),
      gaps,
      factsBySource,
    };
  });
}
