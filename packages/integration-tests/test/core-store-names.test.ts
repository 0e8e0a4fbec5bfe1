// Core's stores take any name as a record's: a FileStore read a key named after an Object.prototype
// member (constructor, __proto__) as a function or lost it; a MemoryStore took a NaN or negative
// retention (never pruning, or dropping everything) that the other stores refuse.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryStore } from "@paysys/core";
import { FileStore } from "@paysys/core/node";
import { describe, expect, it, onTestFinished } from "vitest";

describe("core stores: names and retention", () => {
  it("FileStore: a value or lease named after an Object.prototype member reads as absent, and is kept", async () => {
    const folder = mkdtempSync(join(tmpdir(), "store-names-"));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const store = new FileStore(join(folder, "store.json"));
    const read = ["constructor", "toString", "__proto__", "hasOwnProperty"].map((key) => typeof store.get(key));
    expect(read).toEqual(["undefined", "undefined", "undefined", "undefined"]);
    await store.set("__proto__", "link-1");
    expect(store.get("__proto__")).toBe("link-1");
    expect(await store.acquireLease("constructor", { id: "till" }, 10_000)).toMatchObject({ value: 1 });
    expect(await store.acquireLease("__proto__", { id: "till" }, 10_000)).toMatchObject({ value: 1 });
  });

  it("MemoryStore refuses a journal retention the other stores refuse (negative, NaN, fraction)", () => {
    for (const journalRetentionMs of [-1, Number.NaN, 0.5]) expect(() => new MemoryStore({ journalRetentionMs })).toThrow();
  });
});
