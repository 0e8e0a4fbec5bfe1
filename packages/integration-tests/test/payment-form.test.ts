// The example payment form (packages/ecommerce/examples) in real headless Chromium: the page,
// bundled with `@paysys/ecommerce/card` as a merchant's build would, encrypts a test card with the
// sandbox's key; the merchant's server sees only the cryptogram and creates the payment with it;
// the sandbox decrypts it and pays.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createEcommerceClient } from "@paysys/ecommerce";
import { defaultMerchant, type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../tools/chromium.mjs";

const examples = new URL("../../ecommerce/examples/", import.meta.url);
let sb: Sandbox;
let browser: Browser;
let merchant: Server;
let merchantUrl: string;
/** Every body the merchant's server received, and the orders it created. */
const received: string[] = [];
const orders: string[] = [];

beforeAll(async () => {
  sb = await startSandbox();
  const shop = createEcommerceClient({ merchantId: defaultMerchant.login, password: defaultMerchant.password, baseUrl: sb.ecommerceUrl });
  // The merchant's build: the example script with the browser entry, bundled for the page.
  const bundle = await build({
    stdin: { contents: readFileSync(new URL("payment-form.js", examples), "utf8"), resolveDir: fileURLToPath(new URL("..", import.meta.url)), loader: "js" },
    bundle: true,
    format: "esm",
    write: false,
    minify: true,
    // tsup's shared chunk is imported bare by every entry; esbuild notes it and drops it, rightly.
    logOverride: { "ignored-bare-import": "silent" },
  });
  const script = bundle.outputFiles[0]!.text;
  const page = readFileSync(new URL("payment-form.html", examples), "utf8").replaceAll("{{KEY_URL}}", `${sb.ecommerceUrl}/payment/getcert`);
  merchant = createServer(async (req, res) => {
    if (req.method === "GET" && req.url === "/") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    if (req.method === "GET" && req.url === "/payment-form.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    if (req.method === "POST" && req.url === "/pay") {
      let body = "";
      for await (const chunk of req) body += chunk;
      received.push(body);
      const { orderId } = await shop.payments.create({ amount: 125_000, description: "Order 7", customerData: { cardData: JSON.parse(body).cryptogram } });
      orders.push(orderId);
      const state = await shop.payments.reconcile(orderId);
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ message: state?.status === 1 ? "Paid" : "Declined", orderId }));
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => merchant.listen(0, "127.0.0.1", resolve));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  merchant?.close();
  await sb?.close();
});

describe("the payment form in Chromium", () => {
  it("encrypts the card in the page; the merchant's server never sees it; the sandbox decrypts it and pays", async () => {
    const page = await browser.newPage();
    const before = { keys: sb.ecommerce.stats.keys, cryptograms: sb.ecommerce.stats.cryptograms };
    await page.goto(merchantUrl);
    const pay = async (pan: string, cvv: string) => {
      await page.fill("#pan", pan);
      await page.fill("#month", "09");
      await page.fill("#year", "2031");
      await page.fill("#cvv", cvv);
      await page.fill("#cardholder", "IVAN IVANOV");
      await page.evaluate(() => {
        document.querySelector("#outcome")!.textContent = "";
      });
      await page.click("button[type=submit]");
      await page.waitForFunction(() => document.querySelector("#outcome")!.textContent !== "");
      return page.textContent("#outcome");
    };

    expect(await pay("4111 1111 1111 1111", "123")).toBe("Paid");
    expect(await pay(TestCards.decline, "456")).toBe("Declined");
    // A card the page refuses: the field is named, nothing is sent to the merchant.
    const sent = received.length;
    expect(await pay("4111 1111 1111 1112", "789")).toBe("card: invalid request: /pan is not a valid card number (its check digit is wrong)");
    expect(received).toHaveLength(sent);

    expect(sb.ecommerce.stats.cryptograms - before.cryptograms).toBe(2);
    // Both cards used one fetch of the key.
    expect(sb.ecommerce.stats.keys - before.keys).toBe(1);
    expect(orders.map((o) => sb.ecommerce.transaction(sb.ecommerce.transactionOf(defaultMerchant.login, o)!)?.status)).toEqual([1, 0]);
    for (const body of received) {
      expect(Object.keys(JSON.parse(body))).toEqual(["cryptogram"]);
      for (const secret of [TestCards.success, "4111 1111 1111 1111", TestCards.decline, "123", "456"]) expect(body).not.toContain(`"${secret}"`);
      expect(body).not.toContain(TestCards.success);
    }
    await page.close();
  });
});
