// Every operation's SDK code sample on the reference pages compiles against the packages as they
// are, in a strict project: a method renamed, a parameter retyped or an example that no longer
// fits its type fails here, not in a reader's editor.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundle, operations, specs } from "@paysys/spec-tools";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { annotate } from "../src/annotate.js";
import { sdkEntries } from "../src/samples.js";

// Inside tools/docs, so `@paysys/*` resolve to the workspace packages (their built declarations).
const dir = join(import.meta.dirname, "..", ".samples");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What a sample assumes the reader has: the values of their own configuration. */
const preamble = `declare const baseUrl: string, lgn: string, psw: string, login: string, password: string, merchantId: string, authType: number;
declare const solveCaptcha: () => Promise<string>;
`;

/** One module per sample (imports at the top, the rest in an async function); the compiler's errors, by sample. */
function compile(samples: { name: string; source: string }[]): Map<string, string[]> {
  mkdirSync(dir, { recursive: true });
  const files = samples.map(({ name, source }, i) => {
    const file = join(dir, `sample-${i}.mts`);
    const lines = source.split("\n");
    const imports = lines.filter((l) => l.startsWith("import "));
    const body = lines.filter((l) => !l.startsWith("import "));
    writeFileSync(file, `${imports.join("\n")}\n${preamble}// ${name}\nexport async function sample() {\n${body.join("\n")}\n}\n`);
    return { file, name };
  });
  const program = ts.createProgram(
    files.map((f) => f.file),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
      types: [],
      skipLibCheck: true,
    },
  );
  const errors = new Map<string, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = files.find((f) => f.file === d.file?.fileName)?.name ?? "(project)";
    errors.set(name, [...(errors.get(name) ?? []), ts.flattenDiagnosticMessageText(d.messageText, "\n")]);
  }
  return errors;
}

describe("SDK code samples on the reference pages", () => {
  it("every operation of every interface has one, and every one compiles", { timeout: 60_000 }, () => {
    const samples: { name: string; source: string }[] = [];
    for (const spec of specs) {
      const sdk = sdkEntries[spec.name];
      expect(sdk, `an SDK entry for ${spec.name}`).toBeDefined();
      for (const { op, webhook } of operations(annotate(bundle(spec), sdk))) {
        if (webhook) continue;
        const source = /```ts\n([\s\S]*?)```/.exec(op.description ?? "")?.[1];
        expect(source, `${spec.name} ${op.operationId} has a sample`).toEqual(expect.stringContaining(sdk!.setup));
        samples.push({ name: `${spec.name} ${op.operationId}`, source });
      }
    }
    expect(samples.length).toBeGreaterThan(50);
    expect(Object.fromEntries(compile(samples))).toEqual({});
  });

  it("the check fails on a sample that does not fit the package", { timeout: 60_000 }, () => {
    const setup = sdkEntries["portal-v2"]!.setup;
    const errors = compile([
      { name: "misspelt parameter", source: `${setup}\nconst rows = await portal.reports.payments({ dateFro: "20240501" });` },
      { name: "no such method", source: `${setup}\nconst rows = await portal.reports.paymentz();` },
    ]);
    expect(errors.get("misspelt parameter")?.join()).toContain("dateFro");
    expect(errors.get("no such method")?.join()).toContain("paymentz");
  });
});
