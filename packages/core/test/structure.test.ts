// The call path stays readable: no file of core over 400 lines and no function over 80, counted by
// the TypeScript parser (a function's lines include the functions written inside it). A file or a
// function that grows past them is a sign a step wants a module of its own.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;
const src = new URL("../src", import.meta.url).pathname;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));

/** Every function of a file longer than the limit: `file:line name (n lines)`. */
function longFunctions(file: string, text = readFileSync(file, "utf8")): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(sf) : "(anonymous)";
        found.push(`${relative(src, file)}:${first + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("core's structure", () => {
  const files = sources(src);

  it("finds the sources it measures", () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files.some((f) => f.endsWith("invoker.ts"))).toBe(true);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.map((f) => ({ f: relative(src, f), n: readFileSync(f, "utf8").split("\n").length })).filter(({ n }) => n > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap((f) => longFunctions(f))).toEqual([]);
  });

  it("sees a long function, an arrow and a method among them", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = [
      `export function tooLong() {\n${body(MAX_FUNCTION_LINES - 1)}\n}`,
      `export function justRight() {\n${body(MAX_FUNCTION_LINES - 2)}\n}`,
      `const arrow = () => {\n${body(MAX_FUNCTION_LINES)}\n};`,
      `class C {\n  method() {\n${body(MAX_FUNCTION_LINES)}\n  }\n}`,
    ].join("\n");
    expect(longFunctions(join(src, "synthetic.ts"), text)).toEqual([
      "synthetic.ts:1 tooLong (81 lines)",
      "synthetic.ts:162 arrow (82 lines)",
      "synthetic.ts:245 method (82 lines)",
    ]);
  });
});
