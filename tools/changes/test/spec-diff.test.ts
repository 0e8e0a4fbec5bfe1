// Real edits to a copy of the real specs, classified the way `pnpm spec:diff` and
// `pnpm changeset:check` classify them, with the bump each requires in a 0.x and a 1.x package.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { specsDir } from "@paysys/spec-tools";
import { describe, expect, it } from "vitest";
import { requiredBump } from "../src/bump.js";
import { type Change, diffSpec, levelOf } from "../src/spec-diff.js";
import { edits, replace, type SpecEdit } from "./edits.js";

const run = (e: SpecEdit) => edit(e.spec, e.apply);

/** Two copies of specs/: `before` (optionally edited first) and `after` (edited), and their diff for one spec. */
async function edit(spec: string, change: (text: string) => string, baseline: (text: string) => string = (t) => t): Promise<Change[]> {
  const scratch: string[] = [];
  const copy = (edit: (text: string) => string) => {
    const dir = join(mkdtempSync(join(tmpdir(), "paysys-spec-edit-")), "specs");
    scratch.push(dirname(dir));
    cpSync(specsDir, dir, { recursive: true });
    const file = join(dir, spec);
    writeFileSync(file, edit(baseline(readFileSync(file, "utf8"))));
    return file;
  };
  try {
    return await diffSpec(
      copy((t) => t),
      copy(change),
    );
  } finally {
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  }
}

const bumps = (changes: Change[]) => ({ level: levelOf(changes), zero: requiredBump(levelOf(changes), "0.3.1"), one: requiredBump(levelOf(changes), "1.2.0") });

describe("spec diff: real edits, classified for callers", () => {
  it("an unchanged spec has no changes and needs no bump", async () => {
    const changes = await edit("ecommerce/openapi.yaml", (t) => t);
    expect(changes).toEqual([]);
    expect(bumps(changes)).toEqual({ level: undefined, zero: "none", one: "none" });
  });

  it("a field removed from an answer is breaking (Optic's rule): minor in 0.x, major in 1.x", async () => {
    const changes = await run(edits.answerFieldRemoved);
    expect(changes).toContainEqual(expect.objectContaining({ level: "breaking", by: "optic", what: expect.stringContaining("cannot remove response property 'url'") }));
    expect(changes.find((c) => c.level === "breaking")?.where).toContain("POST /payment/create");
    expect(bumps(changes)).toEqual({ level: "breaking", zero: "minor", one: "major" });
  });

  it("a new required request field is breaking", async () => {
    const changes = await run(edits.requestFieldRequired);
    expect(changes).toContainEqual(expect.objectContaining({ level: "breaking", what: expect.stringContaining("cannot make a request property required") }));
    expect(bumps(changes).zero).toBe("minor");
  });

  it("an enum value added to a request is compatible; added to an answer, breaking (exhaustive switches stop compiling)", async () => {
    const request = await run(edits.requestEnumValueAdded);
    expect(bumps(request)).toEqual({ level: "compatible", zero: "patch", one: "minor" });
    const closedStatus = replace(
      "        demo: { type: boolean }\n        status:",
      "        demo: { type: boolean }\n        stage: { type: integer, enum: [0, 1] }\n        status:",
    );
    const answer = await edit("ecommerce/openapi.yaml", replace("stage: { type: integer, enum: [0, 1] }", "stage: { type: integer, enum: [0, 1, 2] }"), closedStatus);
    expect(answer).toContainEqual(expect.objectContaining({ level: "breaking", by: "optic" }));
    expect(bumps(answer).zero).toBe("minor");
  });

  it("a gap filled is documentation only: listed as a gap closed, no bump", async () => {
    const changes = await edit(
      "cashout/openapi.yaml",
      replace("      x-gap: Names and values of the other two statuses, the condition that sets STATUS_EXPIRED, and every other transition are not shown.\n", ""),
    );
    // Listed where the schema is and where it is referenced from (the status vocabulary).
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((c) => c.level === "documentation" && c.kind === "gap closed")).toBe(true);
    expect(changes.map((c) => c.where)).toContain("CashOutRequestStatus");
    expect(bumps(changes)).toEqual({ level: "documentation", zero: "none", one: "none" });
  });

  it("an e-commerce gap filled is documentation only", async () => {
    const changes = await run(edits.gapFilled);
    expect(changes).toEqual([expect.objectContaining({ level: "documentation", kind: "gap closed", where: "GET /payment/getcert/pem" })]);
  });

  it("a description or a source changed is documentation only", async () => {
    const changes = await edit("ecommerce/openapi.yaml", replace("summary: Query the status of a transaction", "summary: Ask for the status of a transaction"));
    expect(levelOf(changes)).toBe("documentation");
  });

  it("an operation marked as moving money is breaking (our rule): it stops being retried", async () => {
    const changes = await run(edits.marksMovingMoney);
    expect(changes).toContainEqual(expect.objectContaining({ level: "breaking", by: "paysys", kind: "money operation", where: "GET /payment/status" }));
    expect(bumps(changes).zero).toBe("minor");
  });

  it("a money operation that becomes retryable is breaking (our rule): it could be sent twice", async () => {
    const changes = await edit("cashout/openapi.yaml", replace("      x-idempotent: false\n      x-moves-money: true", "      x-idempotent: true\n      x-moves-money: true"));
    expect(changes).toContainEqual(
      expect.objectContaining({ level: "breaking", by: "paysys", what: expect.stringContaining("became retryable"), where: "POST /cash-out-request" }),
    );
  });

  it("a field that is no longer x-sensitive is breaking (our rule): it would reach logs", async () => {
    const changes = await edit(
      "cashout/openapi.yaml",
      replace("          x-sensitive: true\n          x-gap: The name of the password field", "          x-gap: The name of the password field"),
    );
    expect(changes).toContainEqual(
      expect.objectContaining({ level: "breaking", by: "paysys", kind: "x-sensitive", what: expect.stringContaining("`password` is no longer x-sensitive") }),
    );
  });

  it("a changed unwrap pointer is breaking (our rule): what the call returns changes", async () => {
    const changes = await edit("fiscal/openapi.yaml", replace('x-unwrap: { at: "/Data/Companies", list: true }', 'x-unwrap: { at: "/Data", list: true }'));
    expect(changes).toContainEqual(expect.objectContaining({ level: "breaking", by: "paysys", what: expect.stringContaining("x-unwrap changed") }));
  });

  it("a new operation is compatible", async () => {
    const changes = await edit(
      "cashout/openapi.yaml",
      replace(
        "  /cash-out-request:\n",
        "  /ping:\n    get:\n      operationId: service.ping\n      x-idempotent: true\n      responses:\n        '200': { description: OK }\n  /cash-out-request:\n",
      ),
    );
    expect(changes).toContainEqual(expect.objectContaining({ level: "compatible", kind: "added", where: "paths › /ping" }));
    expect(bumps(changes)).toEqual({ level: "compatible", zero: "patch", one: "minor" });
  });
});
