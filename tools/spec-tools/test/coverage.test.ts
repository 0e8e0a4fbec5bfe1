// Reads the endpoint tables of the interface document and fails if any path or parameter they
// name is missing from the specs: the specs may say more than the document, never less.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundle, deref, type Json, objectProperties, repoRoot, specs, specsDir } from "../src/index.js";

const docPath = join(specsDir, "sources/interfaces.md");
const doc = readFileSync(docPath, "utf8");
const spec = (name: string) => bundle(specs.find((s) => s.name === name)!);

/** Rows of the first markdown table after a heading, as arrays of trimmed cells. */
function tableAfter(heading: string): string[][] {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`heading not found: ${heading}`);
  const lines = doc.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** Splits "a (int), b (string, x), c" at commas outside parentheses. */
function topLevelItems(cell: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of cell) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      items.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) items.push(cur.trim());
  return items;
}

const propsOf = objectProperties;

function requestParams(d: Json, path: string, method: string, wrapper: "v2" | "v1" | "body"): ReturnType<typeof propsOf> {
  const op = d.paths?.[path]?.[method];
  if (!op) throw new Error(`${method.toUpperCase()} ${path} is missing`);
  const body = deref(d, op.requestBody?.content?.["application/json"]?.schema);
  if (wrapper === "v2") return propsOf(d, deref(d, body).properties.params);
  if (wrapper === "v1") return propsOf(d, deref(d, deref(d, body).properties.Body).properties.Params);
  const fromBody = body ? propsOf(d, body) : { names: new Set<string>(), patterns: [] };
  for (const p of op.parameters ?? []) fromBody.names.add(deref(d, p).name);
  return fromBody;
}

function expectParam(params: ReturnType<typeof propsOf>, name: string, where: string) {
  expect(params.names.has(name), `${where}: parameter ${name}`).toBe(true);
}

/** Parameter names of a v2 table cell, and any "whose name begins X" fragments. */
function v2Params(cell: string): { names: string[]; prefixes: string[] } {
  const names: string[] = [];
  const prefixes: string[] = [];
  for (const item of topLevelItems(cell)) {
    const begins = item.match(/name begins (\w+)/);
    if (begins) prefixes.push(begins[1]!);
    else if (/^[a-z][A-Za-z]*\b/.test(item) && !item.startsWith("none")) names.push(item.match(/^[a-z][A-Za-z]*/)![0]);
  }
  return { names, prefixes };
}

const v2Rows = tableAfter("### the service v2");

describe("portal v2 covers the document's table", () => {
  it("has 14 rows to check", () => expect(v2Rows).toHaveLength(14));
  for (const [path, cell] of v2Rows) {
    it(`${path}`, () => {
      const d = spec("portal-v2");
      const params = requestParams(d, path!, "post", "v2");
      const { names, prefixes } = v2Params(cell!);
      for (const n of names) expectParam(params, n, path!);
      for (const p of prefixes)
        expect(
          params.patterns.some((pat) => pat === `^${p}`),
          `${path}: pattern ^${p}`,
        ).toBe(true);
    });
  }
});

describe("portal v1 covers the document's table", () => {
  const rows = tableAfter("### the service v1");
  it("has 10 rows naming 13 paths", () => expect(rows.flatMap(([p]) => p!.split(",")).length).toBe(13));
  for (const [paths, differences] of rows) {
    for (const path of paths!.split(",").map((p) => p.trim())) {
      it(`${path}`, () => {
        const d = spec("portal-v1");
        const params = requestParams(d, path, "post", "v1");
        // "same parameters as v2": every parameter of the v2 row of the same request.
        const v2Row = v2Rows.find(([p]) => p === `/v2${path}`);
        expect(v2Row, `v2 row for ${path}`).toBeDefined();
        const { names, prefixes } = v2Params(v2Row![1]!);
        for (const n of names) expectParam(params, n, path);
        for (const p of prefixes) expect(params.patterns.includes(`^${p}`), `${path}: pattern ^${p}`).toBe(true);
        for (const added of differences!.matchAll(/(\w+) \(int\)/g)) expectParam(params, added[1]!, path);
        if (/flags are integers/.test(differences!)) {
          for (const n of names.filter((x) => /^(subOn|groupByDay|isAdd)/.test(x))) {
            const schema = deref(d, deref(d, d.paths[path].post.requestBody.content["application/json"].schema).properties.Body).properties.Params.properties[n];
            expect(deref(d, schema)["x-codec"], `${path}: ${n} is a 0/1 flag`).toBe("flag");
          }
        }
      });
    }
  }
  it("has no /user/me", () => expect(spec("portal-v1").paths["/user/me"]).toBeUndefined());
});

describe("agent-list columns", () => {
  const known = doc.match(/Known values: ([^.]+?), and, in v2 only, (\w+)/)!;
  const columns = known[1]!.split(",").map((c) => c.trim());
  const enumOf = (name: string) => {
    const d = spec(name);
    const col = deref(d, d.components.schemas.AgentColumn);
    return col.anyOf.flatMap((branch: Json) => deref(d, branch).enum ?? []);
  };
  it("v2 lists every documented column and firstPaymentDate", () => {
    expect(columns).toHaveLength(13);
    expect(enumOf("portal-v2")).toEqual(expect.arrayContaining([...columns, known[2]]));
  });
  it("v1 lists every documented column but not firstPaymentDate", () => {
    expect(enumOf("portal-v1")).toEqual(expect.arrayContaining(columns));
    expect(enumOf("portal-v1")).not.toContain(known[2]);
  });
});

describe("cash-out covers the document's table", () => {
  const rows = tableAfter("### Cash-out API");
  for (const [method, path, payload] of rows) {
    it(`${method} ${path}`, () => {
      const d = spec("cashout");
      const params = requestParams(d, path!, method!.toLowerCase(), "body");
      for (const [, name] of payload!.matchAll(/`(\w+)`/g)) {
        if (name === "Accept") expect(d.paths[path!][method!.toLowerCase()].parameters.some((p: Json) => p.name === "Accept")).toBe(true);
        else expectParam(params, name!, path!);
      }
    });
  }
});

describe("cash register covers the document's table", () => {
  const rows = tableAfter("### Online cash register API");
  it("has 3 rows", () => expect(rows).toHaveLength(3));
  for (const [method, path, payload] of rows) {
    it(`${method} ${path}`, () => {
      const d = spec("fiscal");
      const params = requestParams(d, path!, method!.toLowerCase(), "body");
      const named = [...payload!.matchAll(/`(\w+)`/g)].map((m) => m[1]!).filter((n) => n !== "Data");
      const query = payload!.match(/query `(\w+)`/);
      for (const n of named.filter((n) => !n.startsWith("Companies"))) expectParam(params, n, path!);
      if (query) expectParam(params, query[1]!, path!);
    });
  }
});

describe("e-commerce covers what the document names", () => {
  it("payout type 1 on the standard create request", () => {
    const d = spec("ecommerce");
    const body = deref(d, d.paths["/payment/create"].post.requestBody.content["application/json"].schema);
    expect(deref(d, body.properties.type).enum).toEqual([1]);
  });
  it("the document's transaction statuses and two-stage codes are their own schemas", () => {
    const d = spec("ecommerce");
    const values = (name: string) => d.components.schemas[name]["x-known-values"].map((v: Json) => v.value);
    const statuses = tableAfter("### Transaction statuses (online payments)").map(([, v]) => Number(v));
    const codes = tableAfter("### Two-stage transaction status codes").map(([c]) => Number(c));
    expect(values("TransactionStatus")).toEqual(statuses);
    expect(values("TwoStageCode")).toEqual(codes);
    expect(values("CallbackStatus")).not.toEqual(statuses);
  });
});

describe("the vendored source documents", () => {
  const original = join(repoRoot, "..", "shared", "source-docs");
  it.runIf(existsSync(original))("match the originals in ../shared/source-docs", () => {
    for (const f of ["interfaces.md", "public-facts.md"]) {
      expect(readFileSync(join(specsDir, "sources", f), "utf8"), f).toBe(readFileSync(join(original, f), "utf8"));
    }
  });
});
