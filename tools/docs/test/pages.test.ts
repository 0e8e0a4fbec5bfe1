// Opens the built reference pages (pnpm run docs) in headless Chromium (Debian's, driven by
// playwright-core; no browser is downloaded) and checks that every operation of every interface
// is listed, that gap and source notes render, and saves a screenshot of each page.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gapReport, loadSpec, operations, repoRoot, specs } from "@paysys/spec-tools";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const docs = join(repoRoot, "artifacts/docs");
const shots = join(repoRoot, "artifacts/screenshots");
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(join(docs, "index.html"))) throw new Error("run `pnpm run docs` first: artifacts/docs/index.html is missing");
  mkdirSync(shots, { recursive: true });
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // Root needs --no-sandbox; the rest keep Chromium off the (closed) network.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      "--disable-extensions",
      "--metrics-recording-only",
      "--no-default-browser-check",
    ],
  });
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

describe("reference pages", () => {
  for (const spec of specs) {
    it(`${spec.name}: every operation listed, gaps and sources rendered, offline`, { timeout: 60_000 }, async () => {
      const { page, requests } = await open(`${spec.name}.html`);
      await page.waitForSelector(".menu-content", { timeout: 30_000 });
      await page.waitForFunction(() => !document.body.innerText.startsWith("Loading"), undefined, { timeout: 30_000 });
      // Operations sit in collapsed tag groups: open each group as a reader would, then read the menu.
      const doc = loadSpec(spec);
      await page.screenshot({ path: join(shots, `${spec.name}.png`) });
      const ops = operations(doc);
      expect(ops.length).toBeGreaterThan(0);
      const menu = () => page.locator(".menu-content").innerText();
      const groupOf = ({ op, webhook }: (typeof ops)[number]) => (webhook ? "webhooks" : op.tags[0]);
      // Opening a group may close another, so the menu is read right after each group opens.
      let listed = "";
      for (const group of new Set(ops.map(groupOf))) {
        const first = ops.find((o) => groupOf(o) === group)!.op.summary;
        // A click made before the page has hydrated can be lost: click until the group opens.
        for (let tries = 0; tries < 5 && !(await menu()).includes(first); tries++) {
          await page.locator(".menu-content").getByText(group, { exact: true }).first().click();
          await expect
            .poll(menu, { timeout: 2_000 })
            .toContain(first)
            .catch(() => {});
        }
        listed += await menu();
      }
      for (const { op } of ops) expect(listed, `${spec.name}: ${op.operationId} listed`).toContain(op.summary);
      const body = await page.locator("body").innerText();
      expect((body.match(/Gap:/g) ?? []).length, "gap notes").toBeGreaterThanOrEqual(3);
      expect(body).toMatch(/Source:/);
      expect(body).toMatch(/interface document|official page|third-party code/);
      expect(
        requests.filter((u) => !attributionLogo.test(u)),
        "nothing but the attribution logo is fetched",
      ).toEqual([]);
      await page.screenshot({ path: join(shots, `${spec.name}-operation.png`) });
      await page.close();
    });
  }

  it("index: links every interface and shows the gap report per interface", { timeout: 30_000 }, async () => {
    const { page } = await open("index.html");
    const report = gapReport();
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
});
