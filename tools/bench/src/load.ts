// What it costs to load a client before using it (issue 25, point 5): what a browser page loads
// before its first fiscal or portal call (tools/initial-load.mjs), and a cold `import` of
// @paysys/fiscal in a new Node process against one of openapi-fetch (whole processes, run in turn
// and paired, as farm-bench pairs them).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { firstCallPages, INITIAL_LOAD_GOAL, initialLoad } from "../../initial-load.mjs";
import { median } from "./measure.js";

const packages = fileURLToPath(new URL("../../../packages", import.meta.url));

/** Wall time of a new Node process that imports `specifier` from `dir`, in ms. */
function coldImport(dir: string, specifier: string): number {
  const started = performance.now();
  execFileSync(process.execPath, ["--input-type=module", "-e", `import ${JSON.stringify(specifier)};`], { cwd: dir, stdio: "ignore" });
  return performance.now() - started;
}

export async function loadSection(report: (what: string, value: string, goal?: string) => void): Promise<void> {
  for (const [name, page] of Object.entries(firstCallPages)) {
    const { bytes } = await initialLoad(join(packages, name.split("/")[1]!), page);
    report(`${name}: a page loads before its first call (min+gz)`, `${(bytes / 1000).toFixed(2)} kB`, `≤ ${INITIAL_LOAD_GOAL / 1000} kB (the release check's budget)`);
  }
  const fiscal = join(packages, "fiscal");
  coldImport(fiscal, "@paysys/fiscal"); // warm-up: the file cache
  const ratios: number[] = [];
  for (let i = 0; i < 20; i++) ratios.push(coldImport(fiscal, "@paysys/fiscal") / coldImport(fiscal, "openapi-fetch"));
  report("cold import of @paysys/fiscal / of openapi-fetch (whole process, median of 20 pairs)", median(ratios).toFixed(3), "≤ 1.10");
}
