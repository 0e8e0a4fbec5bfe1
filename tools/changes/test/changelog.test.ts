// The "Changes" section of the reference pages, from this repository's real history: the portal
// released 0.1.0, and its v1 document changed since then in ways that break callers.
import { describe, expect, it } from "vitest";
import { renderHistory, specHistory } from "../src/changelog.js";

describe("changes section", () => {
  it("lists each release, newest first, and what is not released yet, with the classification", async () => {
    const entries = await specHistory("portal-v1");
    expect(entries.at(-1)).toMatchObject({ heading: expect.stringMatching(/^0\.1\.0 \(\d{4}-\d{2}-\d{2}\)$/), first: true });
    expect(entries[0]).toMatchObject({ heading: expect.stringMatching(/^Unreleased \(since \d+\.\d+\.\d+\)$/), first: false });
    const page = renderHistory(entries);
    expect(page).toMatch(/^## Changes/);
    expect(page).toContain("### 0.1.0 (");
    expect(page).toContain("First release of this interface's client");
    expect(page).toMatch(/### Unreleased \(since [^)]+\)\n\n(Overall: \*\*(breaking|compatible|documentation)\*\*|No change to this document)/);
  });

  it("a package never released shows its document as unreleased and new", async () => {
    const entries = await specHistory("cashout");
    expect(entries).toEqual([expect.objectContaining({ heading: "Unreleased (never released)", first: true })]);
    expect(renderHistory(entries)).toMatch(/First release of this interface's client: \d+ paths/);
  });
});
