// Opens the built reference pages (pnpm run docs) in headless Chromium (Debian's, driven by
// playwright-core; no browser is downloaded) and checks that every operation of every interface
// is listed, that gap and source notes render, and saves a screenshot of each page.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gapReport, loadSpec, operations, repoRoot, specs } from "@paysys/spec-tools";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../chromium.mjs";
import { publishedPackages } from "../../packages.mjs";
import { sdkEntries } from "../src/samples.js";

const packageVersion = (name: string) => publishedPackages(repoRoot).find(({ pkg }) => pkg.name === name)?.pkg.version;

const docs = join(repoRoot, "artifacts/docs");
const shots = join(repoRoot, "artifacts/screenshots");
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(docs, "index.html"))) throw new Error("run `pnpm run docs` first: artifacts/docs/index.html is missing");
  mkdirSync(shots, { recursive: true });
  browser = await launchChromium();
}, 60_000);
afterAll(() => browser?.close());

/**
 * Redoc's "API docs by Redocly" badge fetches its logo from a CDN and hides itself when that
 * fails; it is the only request a page may attempt. Everything else must be inlined.
 */
const attributionLogo = /^https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg$/;

async function open(file: string) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const requests: string[] = [];
  // No network: every request that is not local is refused, and recorded.
  await page.route(/^(https?|wss?):/, (route) => {
    requests.push(route.request().url());
    return route.abort();
  });
  await page.goto(pathToFileURL(join(docs, file)).href);
  return { page, requests };
}

/** Opens a page and waits until Redoc has rendered it; `text` reads the whole page, whitespace folded. */
async function openRendered(file: string) {
  const opened = await open(file);
  await opened.page.waitForSelector(".menu-content", { timeout: 30_000 });
  const text = async () => (await opened.page.locator("body").innerText()).replace(/\s+/g, " ");
  return { ...opened, text };
}

describe("reference pages", () => {
  for (const spec of specs) {
    it(`${spec.name}: every operation listed, gaps and sources rendered, offline`, { timeout: 60_000 }, async () => {
      const { page, requests, text } = await openRendered(`${spec.name}.html`);
      await page.waitForFunction(() => !document.body.innerText.startsWith("Loading"), undefined, { timeout: 30_000 });
      // Operations sit in collapsed tag groups: open each group as a reader would, then read the menu.
      const doc = loadSpec(spec);
      await page.screenshot({ path: join(shots, `${spec.name}.png`) });
      // The interface's own gaps render at the top of its page.
      // The first words of a note as rendered: Markdown marks (`code`, **bold**) do not show.
      const words = (note: string) => note.replace(/[`*]/g, "").replace(/\s+/g, " ").trim().slice(0, 40);
      await expect.poll(text, { timeout: 10_000 }).toContain(`Gap: ${words(doc.info["x-gap"])}`);
      const ops = operations(doc);
      expect(ops.length).toBeGreaterThan(0);
      const menu = () => page.locator(".menu-content").innerText();
      const groupOf = ({ op, webhook }: (typeof ops)[number]) => (webhook ? "webhooks" : op.tags[0]);
      // Opening a group may close another, so the menu is read right after each group opens.
      let listed = "";
      const entry = (summary: string) => page.locator(".menu-content").getByText(summary, { exact: true }).filter({ visible: true });
      const shownInMenu = async (summary: string) => (await entry(summary).count()) > 0;
      /** Opens a group; a click made before the page has hydrated can be lost, so click until it opens. */
      const openGroup = async (group: string) => {
        const first = ops.find((o) => groupOf(o) === group)!.op.summary;
        for (let tries = 0; tries < 5 && !(await shownInMenu(first)); tries++) {
          await page.locator(".menu-content").getByText(group, { exact: true }).first().click();
          await expect
            .poll(() => shownInMenu(first), { timeout: 2_000 })
            .toBe(true)
            .catch(() => {});
        }
      };
      for (const group of new Set(ops.map(groupOf))) {
        await openGroup(group);
        listed += await menu();
      }
      for (const { op } of ops) expect(listed, `${spec.name}: ${op.operationId} listed`).toContain(op.summary);
      // An operation's own notes render in that operation: its gap, sources and retry policy.
      // The first operation's own notes render in it: sources, retry policy, and its gap or note.
      const first = ops[0]!;
      const { op } = first;
      // Redoc routes each operation to `#/<tag>/<operationId>`: go there as a link would.
      await page.goto(`${pathToFileURL(join(docs, `${spec.name}.html`)).href}#/${groupOf(first)}/${op.operationId}`);
      const escapeRegExp = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const expected = [/Source: (interface document|official page|third-party code|server sample)/, /Retries:|Not retried automatically:|Moves money:/];
      if (op["x-gap"]) expected.push(new RegExp(`Gap: ${escapeRegExp(words(op["x-gap"]))}`));
      if (op["x-note"]) expected.push(new RegExp(`Note: ${escapeRegExp(words(op["x-note"]))}`));
      // Its SDK call, as a TypeScript sample (the samples test compiles every one), and the retry numbers.
      const sdk = sdkEntries[spec.name]!;
      expected.push(sdk.byTheClient?.[op.operationId] ? /Not a method: the client/ : new RegExp(escapeRegExp(`${sdk.client}.${op.operationId}(`)));
      if (op["x-idempotent"] === true && !op["x-moves-money"]) expected.push(/at most \d+ more attempts, waiting \d+ ms doubled/);
      for (const re of expected) await expect.poll(text, { timeout: 15_000, message: `${spec.name}: ${op.operationId} shows ${re}` }).toMatch(re);
      // The title names the package that implements the interface, not a bare "(2)".
      expect(await page.locator("h1").first().innerText()).toBe(`${doc.info.title} (${sdk.package} ${packageVersion(sdk.package)})`);
      expect(
        requests.filter((u) => !attributionLogo.test(u)),
        "nothing but the attribution logo is fetched",
      ).toEqual([]);
      await page.screenshot({ path: join(shots, `${spec.name}-operation.png`) });
      await page.close();
    });
  }

  it("fiscal: the page shows the Uid chain, and each receipt operation its part in it and the rules", { timeout: 60_000 }, async () => {
    const { page, text } = await openRendered("fiscal.html");
    await expect.poll(text, { timeout: 15_000 }).toContain("The Uid chain");
    expect(await text()).toContain("recovers a refused link once through uid.get");
    await page.goto(`${pathToFileURL(join(docs, "fiscal.html")).href}#/operations/operations.purchase`);
    await expect.poll(text, { timeout: 15_000 }).toContain("Uid chain: presents the register's current Uid");
    expect(await text()).toContain("Path: the SDK's default");
    await page.screenshot({ path: join(shots, "fiscal-chain.png") });
    await page.close();
  });

  it("e-commerce: the page shows the cryptogram's recipe and the status vocabularies side by side", { timeout: 60_000 }, async () => {
    const { page, text } = await openRendered("ecommerce.html");
    await expect.poll(text, { timeout: 15_000 }).toContain("The card cryptogram");
    expect(await text()).toContain("RSA-OAEP, SHA-256 for OAEP, SHA-256 for MGF1, label empty");
    expect(await text()).toContain("kept at most P1D");
    expect(await text()).toMatch(/callback Callback and status-query status 0 FAILED, 1 SUCCEEDED, 2 AMOUNT_BLOCKED, 3 CANCELLED_OR_REFUNDED/);
    expect(await text()).toMatch(/transaction Transaction status \(document\) 0 CREATED, 1 RECREATED, 110 PROCESSING_STARTED/);
    await page.screenshot({ path: join(shots, "ecommerce-cryptogram.png") });
    await page.close();
  });

  it("portal v1: the page ends its introduction with the changes since each release, classified", { timeout: 60_000 }, async () => {
    const { page, text } = await openRendered("portal-v1.html");
    await expect.poll(text, { timeout: 15_000 }).toContain("What changed in this document between releases of its package");
    expect(await text()).toMatch(/Unreleased \(since \d+\.\d+\.\d+\)/);
    expect(await text()).toMatch(/0\.1\.0 \(\d{4}-\d{2}-\d{2}\)\s+First release of this interface's client: \d+ paths/);
    await page.close();
  });

  it("cash-out: the page lists what is known to exist but not shown, and the request statuses", { timeout: 60_000 }, async () => {
    const { page, text } = await openRendered("cashout.html");
    await expect.poll(text, { timeout: 15_000 }).toContain("Known to exist, not shown anywhere");
    expect(await text()).toContain("Web terminals (list them on a map");
    expect(await text()).toContain("Push notification to the cashier");
    expect(await text()).toMatch(/request Request status 1 STATUS_PROCESSING, 2 STATUS_EXPIRED/);
    await page.close();
  });

  it("index: links every interface and every operation, and shows the gap report per interface", { timeout: 30_000 }, async () => {
    const { page } = await open("index.html");
    const report = gapReport();
    for (const spec of specs) {
      for (const { op, webhook } of operations(loadSpec(spec))) {
        if (!webhook) expect(await page.locator(`a[href="${spec.name}.html#/${op.tags[0]}/${op.operationId}"]`).count(), `${spec.name} ${op.operationId}`).toBe(1);
      }
    }
    for (const r of report) {
      await expect(page.locator(`a[href="${r.spec}.html"]`).first().innerText()).resolves.toBe(r.title);
      const row = page.locator("tr", { has: page.locator(`a[href="${r.spec}.html"]`) });
      await expect(row.locator("td").nth(3).innerText()).resolves.toBe(String(r.gaps.length));
    }
    await page.screenshot({ path: join(shots, "index.png"), fullPage: true });
    await page.close();
  });

  it("API reference: the portal package documents createPortalClient and the generated methods", { timeout: 30_000 }, async () => {
    const { page } = await open("api/portal/index.html");
    const text = await page.locator("body").innerText();
    expect(text).toContain("createPortalClient");
    expect(text).toContain("PortalV2Methods");
    await page.screenshot({ path: join(shots, "api-portal.png") });
    await page.close();
  });

  it("guides: the fleet page is linked from the index and says which store when", { timeout: 30_000 }, async () => {
    const { page, requests } = await open("index.html");
    await page.locator('a[href="api/core/documents/fleets.html"]').click();
    // The click starts a navigation: read the fleet page once it is the one shown, not the index.
    await page.waitForURL("**/fleets.html");
    await page.getByRole("heading", { name: "Which store when" }).waitFor();
    const text = await page.locator("body").innerText();
    for (const part of ["Which store when", "Migrations", "Key layout", "Expiry", "Failover", "Sizing", "PostgresStore", "RedisStore"]) expect(text).toContain(part);
    expect(requests).toEqual([]);
    await page.close();
  });
});
