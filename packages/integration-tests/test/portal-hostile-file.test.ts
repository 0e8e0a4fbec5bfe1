// A hostile probe of the portal client (2026-11-28), kept as tests: xlsx files cut off mid-download, saved to disk: typed errors, no partial workbook left behind.
// And one of 2026-12-04: a file whose length nothing declared, ended early (half the real workbook,
// the connection closed), or bytes that only begin as a zip: refused at their end, never the workbook.
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BinaryFile, createPortalClient, PaysysError, type PortalClientOptions, type PortalV2Client } from "@paysys/portal";
import { saveToFile } from "@paysys/portal/node";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { portalCredentials as credentials } from "./credentials.js";

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox();
  dir = mkdtempSync(join(tmpdir(), "probe6-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await sb.close();
});

/** A fetch that passes everything to the sandbox, except the cash report: a zip's first bytes, then the connection fails. */
const cutting: PortalClientOptions["fetch"] = async (url, init) => {
  if (!url.includes("/report/cashs")) return fetch(url, init);
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8]));
        return;
      }
      c.error(new TypeError("terminated: other side closed"));
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "content-length": "50000" } });
};

const client = (extra: Partial<PortalClientOptions> = {}) =>
  createPortalClient({
    baseUrl: sb.portalUrl,
    credentials,
    solveCaptcha: async ({ captchaSession }) => sb.portal.captchaText(captchaSession) ?? "",
    fetch: cutting,
    ...extra,
  } as PortalClientOptions) as PortalV2Client;
const describeError = (e: unknown) => (e instanceof Error ? `${e.constructor.name}: ${e.message.slice(0, 160)}` : `not an error: ${String(e)}`);

describe("probe6 files cut off", () => {
  it("bytes() of a file cut off mid-download: a typed error", async () => {
    const p = client();
    const f = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240501", format: "xlsx" });
    expect(f).toBeInstanceOf(BinaryFile);
    const e = await f.bytes().catch((x) => x);
    expect(e, describeError(e)).toBeInstanceOf(PaysysError);
  });

  it("saveToFile of a file cut off mid-download: a typed error, and no partial workbook left at the path", async () => {
    const p = client();
    const f = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240501", format: "xlsx" });
    const path = join(dir, "cut.xlsx");
    const e = await saveToFile(f, path).catch((x) => x);
    const left = existsSync(path) ? `${statSync(path).size} bytes left at ${path}` : "nothing left";
    expect({ error: describeError(e), typed: e instanceof PaysysError, left }).toEqual({ error: expect.any(String), typed: true, left: "nothing left" });
  });

  it("saveToFile into a directory that does not exist: a typed error, the download cancelled", async () => {
    const p = client({ fetch: undefined });
    const f = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true, format: "xlsx" });
    const e = await saveToFile(f, join(dir, "no-such-dir", "x.xlsx")).catch((x) => x);
    expect(e, describeError(e)).toBeInstanceOf(PaysysError);
  });

  it("saveToFile of a file already read: a typed error, and no empty file created", async () => {
    const p = client({ fetch: undefined });
    const f = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true, format: "xlsx" });
    await f.bytes();
    const path = join(dir, "twice.xlsx");
    const e = await saveToFile(f, path).catch((x) => x);
    await new Promise((r) => setTimeout(r, 100));
    const left = existsSync(path) ? `${statSync(path).size} bytes left at ${path}` : "nothing left";
    expect({ error: describeError(e), typed: e instanceof PaysysError, left }).toEqual({ error: expect.any(String), typed: true, left: "nothing left" });
  });

  it("saveToFile of a file already read, into a missing directory: no uncaught exception from an abandoned write stream", async () => {
    const p = client({ fetch: undefined });
    const f = await p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true, format: "xlsx" });
    await f.bytes();
    const uncaught: unknown[] = [];
    const listener = (e: unknown) => uncaught.push(e);
    process.prependListener("uncaughtException", listener);
    try {
      await saveToFile(f, join(dir, "missing-dir", "x.xlsx")).catch(() => {});
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      process.off("uncaughtException", listener);
    }
    expect(uncaught.map(describeError)).toEqual([]);
  });
});

/** A fetch that gives the cash report as `shape` makes it of the sandbox's real workbook, with no declared length: the body simply ends. */
const reshaping =
  (shape: (workbook: Uint8Array) => Uint8Array): PortalClientOptions["fetch"] =>
  async (url, init) => {
    const real = await fetch(url, init);
    if (!url.includes("/report/cashs") || !real.ok) return real;
    const bytes = shape(new Uint8Array(await real.arrayBuffer()));
    return new Response(new Blob([new Uint8Array(bytes)]).stream(), { status: 200, headers: { "content-type": "application/octet-stream" } });
  };

describe("a file that ends without its end (no declared length)", () => {
  const ask = (p: PortalV2Client) => p.reports.cashCollections({ dateFrom: "20240501", dateTo: "20240503", subOn: true, format: "xlsx" });

  it.each([
    ["half the real workbook", (w: Uint8Array) => w.subarray(0, Math.floor(w.byteLength / 2))],
    ["all of it but its last byte", (w: Uint8Array) => w.subarray(0, w.byteLength - 1)],
    ["a zip's first bytes, then a page", () => new TextEncoder().encode("PK\u0003\u0004<html>login</html>")],
  ])("%s: bytes() and saveToFile are typed errors, and no file is left at the path", async (_, shape) => {
    const p = client({ fetch: reshaping(shape) });
    const e = await (await ask(p)).bytes().catch((x: unknown) => x);
    expect(e, describeError(e)).toBeInstanceOf(PaysysError);
    expect((e as Error).message).toContain("ends without its end record");
    const path = join(dir, "ended-early.xlsx");
    const saved = await saveToFile(await ask(p), path).catch((x: unknown) => x);
    expect(saved, describeError(saved)).toBeInstanceOf(PaysysError);
    expect(existsSync(path)).toBe(false);
  });

  it("the whole workbook, the same way: given whole, byte for byte", async () => {
    const whole = await (await ask(client({ fetch: undefined }))).bytes();
    const got = await (await ask(client({ fetch: reshaping((w) => w) }))).bytes();
    expect(got.byteLength).toBeGreaterThan(22);
    expect(Buffer.from(got).equals(Buffer.from(whole))).toBe(true);
  });
});
