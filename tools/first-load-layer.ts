// @paysys/core's ESM build in two layers (packages/core/tsup.config.ts; why: src/first-load.ts).
//
// - The first layer is src/first-load.ts bundled alone: every module /calls, /shell and /helpers
//   reach, in one file. `checkedFirstLoad` fails the build when its list is not exactly those modules.
//   Its `facades` then writes /calls, /shell and /helpers as the names each exports, re-exported from it.
// - The second layer is the rest of core (the runtime and the stores); `besideFirstLoad` makes its
//   imports of a first-layer module imports of the package's own first-load entry, so each class and
//   each piece of state exists once. The pure helpers (tools/runtime-copies.ts) are the exception:
//   the runtime bundles its own copy of them, so a page that never calls them does not load them.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Plugin } from "esbuild";
import { build } from "esbuild";
import { firstLoadFiles, sourceFile } from "./runtime-copies";

export interface FirstLoadLayer {
  /** The package's folder. */
  dir: string;
  /** The entries a client reaches before its first call, by subpath: `{ calls: "src/calls.ts" }`. */
  facades: Record<string, string>;
  /** The first layer's entry, which re-exports every module of it (`src/first-load.ts`). */
  list: string;
  /** The helpers the second layer bundles a copy of (tools/runtime-copies.ts). */
  pure: string[];
  /** The package's name, for its own subpaths (`@paysys/core`). */
  name: string;
}

const firstLayer = async ({ dir, facades }: FirstLoadLayer) =>
  firstLoadFiles(
    build,
    Object.values(facades).map((f) => join(dir, f)),
  );

/** Fails the first layer's build when its list is not exactly the modules the facades reach. */
export function checkedFirstLoad(layer: FirstLoadLayer): Plugin {
  return {
    name: "checked-first-load",
    setup(b) {
      b.onStart(async () => {
        const reached = await firstLayer(layer);
        const listFile = join(layer.dir, layer.list);
        const listed = new Set([...readFileSync(listFile, "utf8").matchAll(/^export \* from "(.+)";$/gm)].map((m) => sourceFile(join(layer.dir, "src"), m[1]!)));
        const missing = [...reached].filter((p) => !listed.has(p)).map((p) => `${layer.list} does not re-export ${p}, which a client's first load reaches`);
        const extra = [...listed].filter((p) => !reached.has(p)).map((p) => `${layer.list} re-exports ${p}, which no first-load entry reaches`);
        const problems = [...missing, ...extra];
        return problems.length ? { errors: problems.map((text) => ({ text: `first-load-layer: ${text}` })) } : undefined;
      });
    },
  };
}

/** Writes each facade (`dist/calls.js`) as the names its source exports, re-exported from `dist/first-load.js`. */
export async function writeFacades({ dir, facades }: FirstLoadLayer): Promise<void> {
  for (const [subpath, source] of Object.entries(facades)) {
    const { metafile } = await build({
      entryPoints: [join(dir, source)],
      bundle: true,
      write: false,
      metafile: true,
      packages: "external",
      format: "esm",
      outdir: "facades.out",
      logLevel: "silent",
    });
    const names = Object.values(metafile.outputs).find((o) => o.entryPoint)!.exports;
    writeFileSync(
      join(dir, "dist", `${subpath}.js`),
      `// @paysys/core/${subpath}: its names, from the first layer (tools/first-load-layer.ts).\nexport { ${names.join(", ")} } from "./first-load.js";\n`,
    );
  }
}

/** The second layer's imports of first-layer modules, as imports of the package's own entries. */
export function besideFirstLoad(layer: FirstLoadLayer): Plugin {
  const pure = new Set(layer.pure.map((p) => resolve(layer.dir, p)));
  // A facade's own source is imported by its subpath (`export * from "./calls.js"` keeps its names exact).
  const bySource = new Map(Object.entries(layer.facades).map(([subpath, source]) => [resolve(layer.dir, source), `${layer.name}/${subpath}`]));
  let first = new Set<string>();
  return {
    name: "beside-first-load",
    setup(b) {
      b.onStart(async () => {
        first = await firstLayer(layer);
      });
      b.onResolve({ filter: /^\./ }, (args) => {
        const path = sourceFile(args.resolveDir, args.path);
        if (!first.has(path) || pure.has(path)) return undefined;
        return { path: bySource.get(path) ?? `${layer.name}/first-load`, external: true };
      });
    },
  };
}
