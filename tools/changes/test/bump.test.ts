import { describe, expect, it } from "vitest";
import { pendingBump } from "../src/bump.js";

describe("pending bumps", () => {
  it("takes the highest bump the pending changesets give a package", () => {
    const pending = ['---\n"@paysys/portal": patch\n---\nx', '---\n"@paysys/portal": minor\n"@paysys/core": patch\n---\ny', '---\n"@paysys/portal": patch\n---\nz'];
    expect(pendingBump(pending, "@paysys/portal")).toBe("minor");
    expect(pendingBump(pending, "@paysys/core")).toBe("patch");
    expect(pendingBump(pending, "@paysys/fiscal")).toBe("none");
  });
});
