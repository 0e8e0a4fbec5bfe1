// The package build's runtime copies (tools/runtime-copies.ts), on a package of four files: an entry
// that exports a pure helper and loads its runtime at the first call, the helper, the runtime that
// uses it too, and a file the runtime alone reaches. Built as the packages are built (esbuild,
// splitting), then bundled as a page bundles it (tools/initial-load.mjs's rule: a file the entry
// reaches and anything uses is in the first load).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterEach, describe, expect, it } from "vitest";
import { runtimeCopies } from "../../runtime-copies.ts";

let dir;
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

/** A package of `files` in a new folder; builds its `src/entry.ts` with the plugin (or without, `copies: false`). */
async function buildPackage(files, { pure = ["src/pure.ts"], copies = true } = {}) {
  dir = mkdtempSync(join(tmpdir(), "runtime-copies-"));
  mkdirSync(join(dir, "src"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, "src", name), text);
  const plugins = copies ? [runtimeCopies({ firstLoad: [join(dir, "src/entry.ts")], pure: pure.map((p) => join(dir, p)) })] : [];
  return build({
    entryPoints: [join(dir, "src/entry.ts")],
    absWorkingDir: dir,
    bundle: true,
    splitting: true,
    format: "esm",
    outdir: join(dir, "dist"),
    write: false,
    metafile: true,
    external: ["@paysys/*"],
    logLevel: "silent",
    plugins,
  });
}

const helperPackage = {
  "entry.ts": `export { add } from "./pure.js";\nexport const go = () => import("./runtime.js").then((r) => r.run());\n`,
  "pure.ts": `import { shownValue } from "@paysys/core/shell";\nexport const add = (a: number, b: number) => shownValue(a + b);\nexport const note = "see @paysys/core/shell";\n`,
  "runtime.ts": `import { add, note } from "./pure.js";\nexport const run = () => [add(1, 2), note];\n`,
};

/** Output files by what they hold: the entry's, the runtime's, and any chunk the two share. */
function outputs(result) {
  const all = Object.entries(result.metafile.outputs).filter(([path]) => path.endsWith(".js"));
  const entry = all.find(([, o]) => o.entryPoint)[1];
  const runtime = all.find(([, o]) => Object.keys(o.inputs).some((i) => i.endsWith("runtime.ts")));
  const text = (path) => result.outputFiles.find((f) => f.path.endsWith(path.replace(/^dist/, ""))).text;
  return { entry, runtime: runtime[1], runtimeText: text(runtime[0]), shared: all.filter(([, o]) => !o.entryPoint && o !== runtime[1]) };
}

describe("runtime copies of pure helpers", () => {
  it("without them, the helper sits in a chunk the entry imports, loaded before the first call", async () => {
    const { shared } = outputs(await buildPackage(helperPackage, { copies: false }));
    expect(shared.flatMap(([, o]) => Object.keys(o.inputs))).toContainEqual(expect.stringMatching(/pure\.ts$/));
  });

  it("with them, the runtime has its own copy, and that copy reads core's runtime entry", async () => {
    const { entry, runtime, runtimeText, shared } = outputs(await buildPackage(helperPackage));
    expect(Object.keys(entry.inputs)).toContainEqual(expect.stringMatching(/pure\.ts$/));
    expect(Object.keys(runtime.inputs)).toContainEqual(expect.stringMatching(/pure\.ts\?runtime$/));
    expect(shared).toEqual([]);
    expect(runtimeText).toContain("@paysys/core/internal");
    expect(runtimeText).not.toMatch(/from\s*"@paysys\/core\/shell"/);
    // A string that names the entry is the helper's data, not an import: left as it is.
    expect(runtimeText).toContain("see @paysys/core/shell");
  });

  it("refuses to copy a class (instanceof would tell the copies apart)", async () => {
    const withClass = { ...helperPackage, "pure.ts": "export class Money {}\nexport const add = (a: number, b: number) => a + b;\n" };
    await expect(buildPackage(withClass)).rejects.toThrow(/pure\.ts declares a class/);
  });

  it("refuses a listed helper the first load does not reach", async () => {
    const files = { ...helperPackage, "late.ts": "export const late = 1;\n", "runtime.ts": `import { late } from "./late.js";\nexport const run = () => late;\n` };
    await expect(buildPackage(files, { pure: ["src/pure.ts", "src/late.ts"] })).rejects.toThrow(/late\.ts is not in the first load/);
  });
});
