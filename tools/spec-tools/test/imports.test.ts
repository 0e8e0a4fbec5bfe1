// No module of the spec tools (nor of core, whose steps issue after issue rearranges) imports
// itself back through others: a circle makes load order matter and hides which module owns what.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Every .ts file below `dir`, with the relative modules it imports (type-only imports included: they tie modules too). */
function graph(dir: string): Map<string, string[]> {
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const text = readFileSync(join(dir, f), "utf8");
    const targets = [...text.matchAll(/(?:import|export)[^"';]*?from\s+"(\.{1,2}\/[^"]+)"/g)].map((m) =>
      relative(dir, resolve(dirname(join(dir, f)), m[1]!.replace(/\.js$/, ".ts"))),
    );
    edges.set(f, targets);
  }
  return edges;
}

/** The first circle found, as a path of modules, or undefined. */
function circle(edges: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of edges.keys()) {
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

describe("no import circles", () => {
  for (const dir of ["tools/spec-tools/src", "packages/core/src", "tools/codegen/src"]) {
    it(dir, () => {
      expect(circle(graph(join(root, dir)))).toBeUndefined();
    });
  }
  it("the check finds a circle when there is one", () => {
    expect(
      circle(
        new Map([
          ["a.ts", ["b.ts"]],
          ["b.ts", ["c.ts"]],
          ["c.ts", ["a.ts"]],
        ]),
      ),
    ).toEqual(["a.ts", "b.ts", "c.ts", "a.ts"]);
  });
});
