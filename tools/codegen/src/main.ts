// `pnpm generate`: specs → packages/<pkg>/src/generated/. With `--check`, nothing is written:
// the output is compared with what is on disk and any difference fails (the CI drift check).
// Usage: tsx tools/codegen/src/main.ts [--check] [package ...]
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { bundle, repoRoot, specs } from "@paysys/spec-tools";
import { generateSpecFiles } from "./generate-spec.js";
import { generateSettingsValidator } from "./settings.js";
import { type PackageTarget, type SpecTarget, targets } from "./targets.js";

const args = process.argv.slice(2);
const check = args.includes("--check");
const only = args.filter((a) => !a.startsWith("--"));

/** The import lines of the codec types, relative to a spec's generated folder. */
function codecImports(target: PackageTarget, st: SpecTarget): string {
  const byModule = new Map<string, string[]>();
  for (const { type, from } of Object.values(target.codecs)) {
    const module = from.startsWith("@") ? from : posix.relative(posix.join("src/generated", st.dir), posix.join("src", from)).replace(/^(?!\.)/, "./");
    byModule.set(module, [...(byModule.get(module) ?? []), type]);
  }
  return [...byModule]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([m, types]) => `import type { ${[...new Set(types)].sort().join(", ")} } from "${m}";\n`)
    .join("");
}

/** Every file to generate: absolute path → content. */
async function render(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const target of targets.filter((t) => only.length === 0 || only.includes(t.pkg))) {
    const pkgDir = join(repoRoot, "packages", target.pkg);
    for (const st of target.specs) {
      const spec = specs.find((s) => s.name === st.spec);
      if (!spec) throw new Error(`unknown spec ${st.spec}`);
      const specPath = relative(repoRoot, spec.file);
      const codecTypes = Object.fromEntries(Object.entries(target.codecs).map(([name, c]) => [name, { type: c.type }]));
      const out = await generateSpecFiles(bundle(spec), { typePrefix: st.typePrefix, codecTypes, codecImports: codecImports(target, st) }, specPath);
      for (const [name, content] of Object.entries(out)) files.set(join(pkgDir, "src/generated", st.dir, name), content);
    }
    if (target.settings) {
      for (const [name, content] of Object.entries(generateSettingsValidator(pkgDir, target.settings))) {
        files.set(join(pkgDir, "src/generated", name), content);
      }
    }
  }
  return files;
}

const files = await render();
if (check) {
  const stale = [...files].filter(([path, content]) => !existsSync(path) || readFileSync(path, "utf8") !== content).map(([path]) => relative(repoRoot, path));
  if (stale.length > 0) {
    console.error(`generated code is out of date with the specs (run pnpm generate and commit):\n  ${stale.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`generated code matches the specs (${files.size} files)`);
} else {
  // Start from empty folders so a removed operation or spec leaves no stale file behind.
  for (const t of targets.filter((t) => only.length === 0 || only.includes(t.pkg))) {
    rmSync(join(repoRoot, "packages", t.pkg, "src/generated"), { recursive: true, force: true });
  }
  for (const [path, content] of files) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  console.log(`generated ${files.size} files`);
}
