// What a page loads before its first fiscal or portal call (tools/initial-load.mjs): the client's
// entry is a shell that imports the runtime at the first call, and this keeps it so. The packages
// must be built (turbo runs the builds before this test).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { firstCallPages, INITIAL_LOAD_BUDGET, initialLoad } from "../../initial-load.mjs";

const packages = join(import.meta.dirname, "../../../packages");

describe("what a page loads before its first call", () => {
  it.each(Object.entries(firstCallPages))("%s: within the budget, and not the runtime", async (name, page) => {
    const { bytes, chunks } = await initialLoad(join(packages, name.split("/")[1]), page);
    expect(bytes, `${name}: ${chunks.map((c) => `${c.path} ${c.bytes} B`).join(", ")}`).toBeLessThanOrEqual(INITIAL_LOAD_BUDGET);
    // A measurement that found no entry would pass any budget.
    expect(bytes).toBeGreaterThan(1000);
  });
});
