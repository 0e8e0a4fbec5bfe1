// Core's ESM build in two layers (tools/first-load-layer.ts), as published: the subpaths a client's
// entry reaches are their names re-exported from one file, the runtime imports that file, and a cold
// import of a client reads a few files. The packages must be built (turbo runs the builds first).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { checkedFirstLoad } from "../../first-load-layer.ts";

const packages = join(import.meta.dirname, "../../../packages");
const fromFiscal = createRequire(join(packages, "fiscal/package.json"));
// Each subpath's ESM file is its CommonJS file's name with `.js` (the packages' exports maps).
const esmFile = (require, specifier) => require.resolve(specifier).replace(/\.cjs$/, ".js");
const core = (subpath) => import(pathToFileURL(esmFile(fromFiscal, `@paysys/core${subpath}`)).href);

/** Every file a module's static imports reach, as Node's ESM loader reads them. */
function staticGraph(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  for (const [, specifier] of text.matchAll(/^(?:import|export)\b[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm)) {
    if (!specifier || specifier.startsWith("node:")) continue;
    staticGraph(specifier.startsWith(".") ? resolve(dirname(file), specifier) : esmFile(createRequire(file), specifier), seen);
  }
  return seen;
}

describe("core's ESM in two layers", () => {
  it.each(["/calls", "/shell", "/helpers"])("@paysys/core%s exports the names its CommonJS build does", async (subpath) => {
    const esm = Object.keys(await core(subpath)).sort();
    const cjs = Object.keys(fromFiscal(`@paysys/core${subpath}`)).sort();
    expect(esm.length).toBeGreaterThan(3);
    expect(esm).toEqual(cjs);
  });

  it("each class exists once: the runtime's errors are the ones users import", async () => {
    const { apiErrorClass } = await core("");
    const { AuthenticationError, NotFoundError } = await core("/calls");
    expect(apiErrorClass(401)).toBe(AuthenticationError);
    expect(apiErrorClass(404)).toBe(NotFoundError);
  });

  it("a cold import of @paysys/fiscal reads five files, not a dozen", () => {
    const files = [...staticGraph(esmFile(fromFiscal, "@paysys/fiscal"))];
    expect(files.some((f) => f.endsWith("first-load.js"))).toBe(true);
    expect(files.length, files.join("\n")).toBeLessThanOrEqual(5);
  });
});

describe("the first layer's list", () => {
  it("fails the build when it misses a module the first-load entries reach", async () => {
    const dir = mkdtempSync(join(tmpdir(), "first-load-layer-"));
    try {
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "src/calls.ts"), 'export * from "./errors.js";\nexport * from "./money.js";\n');
      writeFileSync(join(dir, "src/errors.ts"), "export class PaysysError extends Error {}\n");
      writeFileSync(join(dir, "src/money.ts"), "export const tiyn = (n: number) => n * 100;\n");
      writeFileSync(join(dir, "src/first-load.ts"), 'export * from "./calls.js";\nexport * from "./errors.js";\n');
      const layer = { dir, name: "@x/core", facades: { calls: "src/calls.ts" }, list: "src/first-load.ts", pure: [] };
      const run = () => build({ entryPoints: [join(dir, "src/first-load.ts")], bundle: true, write: false, logLevel: "silent", plugins: [checkedFirstLoad(layer)] });
      await expect(run()).rejects.toThrow(/does not re-export .*money\.ts/);
      writeFileSync(join(dir, "src/first-load.ts"), 'export * from "./calls.js";\nexport * from "./errors.js";\nexport * from "./money.js";\n');
      await expect(run()).resolves.toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
