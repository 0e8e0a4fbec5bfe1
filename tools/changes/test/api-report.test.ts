// API reports: the committed reports are what API Extractor makes of the built packages, and a
// change to a report is classified by what it removes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@paysys/spec-tools";
import { describe, expect, it } from "vitest";
import { apiReport, compareReports, entryPointsOf } from "../src/api-report.js";

const ecommerce = join(repoRoot, "packages/ecommerce");
const committed = readFileSync(join(ecommerce, "review/index.api.md"), "utf8");

describe("API reports", () => {
  it("the committed report is what API Extractor makes of the built package", () => {
    const entry = entryPointsOf(ecommerce).find((e) => e.subpath === ".")!;
    expect(apiReport(ecommerce, entry)).toBe(committed);
  });

  it("a member removed or changed is breaking; only members added is compatible; the same surface is no change", () => {
    expect(compareReports(committed, committed)).toBeUndefined();
    const line = committed.split("\n").find((l) => l.includes("create(params: PaymentsCreateParams"))!;
    expect(line).toBeDefined();
    const changed = compareReports(committed, committed.replace(line, line.replace("PaymentsCreateParams", "PaymentsCreateParams | string")));
    expect(changed).toMatchObject({ level: "breaking", removed: [line.trimEnd()] });
    const added = compareReports(committed, committed.replace(line, `${line}\n        createLater(params: PaymentsCreateParams): Promise<void>;`));
    expect(added).toMatchObject({ level: "compatible", removed: [], added: ["        createLater(params: PaymentsCreateParams): Promise<void>;"] });
    expect(compareReports(undefined, committed)?.level).toBe("compatible");
  });
});
