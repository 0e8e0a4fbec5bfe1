// A package build's second copy of its pure helpers, for the code a client loads at its first call.
//
// A page's bundler splits code by file, and it puts in the page's first load every file the page's
// imports reach that anything uses (esbuild keeps a file whole, evanw/esbuild#2869). A client's entry
// exports helpers (decimal arithmetic, the portal's dates, the reading of a token answer) that its
// runtime uses too, so those helpers were loaded before the first call even on a page that never
// calls them. This plugin gives the runtime its own copy: a helper listed as pure, imported by a
// file outside the package's first load, is built a second time (the same source, under its path
// with a `?runtime` suffix, which esbuild treats as another module), so the entry's copy is used only
// by what the page calls and the runtime's copy goes into the chunk the first call loads.
//
// Only code without identity or state may be copied: functions of their arguments, constants,
// regular-expression caches. Never a class (an `instanceof` across the two copies would fail), a
// registry or a store. Inside a runtime copy, imports of @paysys/core's first-load entries
// (`/shell`, `/helpers`) read `@paysys/core/internal` instead, which exports the same helpers from
// core's own runtime copy, so a copy never pulls the page's copy back into the runtime.
import { existsSync, readFileSync } from "node:fs";
import { dirname, extname, resolve } from "node:path";
import type { Plugin, PluginBuild } from "esbuild";

export interface RuntimeCopies {
  /** The entries a page imports before its first call (a client's `src/index.ts`). */
  firstLoad: string[];
  /** The helpers the runtime gets a copy of, each pure (see above). */
  pure: string[];
}

const SUFFIX = "?runtime";
const CLASS = /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s/m;
// An import's or export's `from "…"` only: a string that happens to name the entry is left alone.
const CORE_FIRST_LOAD = /(\bfrom\s*)(["'])@paysys\/core\/(?:shell|helpers)\2/g;

/** Every source file the first-load entries reach by static imports: the package's first load. */
export async function firstLoadFiles(build: PluginBuild["esbuild"]["build"], entries: string[]): Promise<Set<string>> {
  const beforeFirstCall: Plugin = {
    name: "before-first-call",
    setup: (b) => void b.onResolve({ filter: /.*/ }, (args) => (args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined)),
  };
  const { metafile } = await build({
    entryPoints: entries,
    bundle: true,
    write: false,
    outdir: "first-load.out", // never written: esbuild needs one for several entries
    metafile: true,
    packages: "external",
    format: "esm",
    platform: "neutral",
    logLevel: "silent",
    plugins: [beforeFirstCall],
  });
  return new Set(Object.keys(metafile.inputs).map((p) => resolve(p)));
}

/** The file a relative import names: `./x.js` is `./x.ts` in our sources, unless the JavaScript file is there (generated code). */
export function sourceFile(dir: string, specifier: string): string {
  const path = resolve(dir, specifier);
  return path.endsWith(".js") && !existsSync(path) ? path.replace(/\.js$/, ".ts") : path;
}

export function runtimeCopies({ firstLoad, pure }: RuntimeCopies): Plugin {
  const copied = new Set(pure.map((p) => resolve(p)));
  let firstLoadSet = new Set<string>();
  return {
    name: "runtime-copies",
    setup(build) {
      build.onStart(async () => {
        firstLoadSet = await firstLoadFiles(build.esbuild.build, firstLoad);
        // A listed helper the first load does not reach needs no copy, and one that declares a class
        // must not have two: the list is wrong, say so.
        const unreached = [...copied].filter((p) => !firstLoadSet.has(p)).map((p) => `${p} is not in the first load; take it off the list`);
        const classes = [...copied].filter((p) => CLASS.test(readFileSync(p, "utf8"))).map((p) => `${p} declares a class, whose two copies instanceof would tell apart`);
        const problems = [...unreached, ...classes];
        return problems.length ? { errors: problems.map((text) => ({ text: `runtime-copies: ${text}` })) } : undefined;
      });
      build.onResolve({ filter: /^\./ }, (args) => {
        const inRuntime = args.pluginData?.runtimeCopy === true || !firstLoadSet.has(args.importer);
        const path = sourceFile(args.resolveDir, args.path);
        if (!inRuntime || !copied.has(path)) return undefined;
        return { path, suffix: SUFFIX, pluginData: { runtimeCopy: true } };
      });
      build.onLoad({ filter: /.*/ }, (args) => {
        if (args.suffix !== SUFFIX) return undefined;
        const contents = readFileSync(args.path, "utf8").replace(CORE_FIRST_LOAD, "$1$2@paysys/core/internal$2");
        return { contents, loader: extname(args.path) === ".js" ? "js" : "ts", resolveDir: dirname(args.path), pluginData: { runtimeCopy: true } };
      });
    },
  };
}
