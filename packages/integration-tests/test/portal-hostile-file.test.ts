// A hostile probe of the portal client (2026-11-28), kept as tests: xlsx files cut off mid-download, saved to disk: typed errors, no partial workbook left behind.
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
