// A secret a server echoes back in an error is never in the error, however the server escaped its
// JSON. Common servers write it otherwise than JSON.stringify does, by default: PHP's json_encode
// writes "/" as "\/" and every non-ASCII character as \uXXXX; Python's json.dumps and .NET's
// System.Text.Json write non-ASCII (a Cyrillic password, say) as \uXXXX. Only JSON.stringify's forms
// were cut: an error body echoing the request so put the merchant's password, or a card token, into
// the error's message, toJSON() and util.inspect() (a hostile probe). A server of this test answers so.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import { MemoryStore } from "@paysys/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEcommerceClient } from "../src/index.js";

/** JSON as PHP's json_encode writes it by default (and, for non-ASCII, Python's json.dumps and .NET). */
const phpJson = (s: string) =>
  JSON.stringify(s)
    .replace(/\//g, "\\/")
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

describe("a secret echoed in another valid JSON escaping is cut out of the error", () => {
  let server: Server;
  let baseUrl: string;
  /** The server echoes the request's body and the password it was configured with, as a PHP error page in JSON would. */
  let echoed: Record<string, string> = {};
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.statusCode = req.method === "POST" ? 400 : 500;
        res.setHeader("content-type", "application/json");
        const fields = Object.entries(echoed)
          .map(([k, v]) => `${JSON.stringify(k)}:${phpJson(v)}`)
          .join(",");
        res.end(`{"status":${res.statusCode},"request":{${fields}}}`);
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** What a reader of the text gets back by undoing JSON escapes (the message quotes the excerpt as a JSON string). */
  const decoded = (text: string) => {
    let out = text;
    for (let i = 0; i < 3; i++) out = out.replace(/\\\\/g, "\\");
    return out.replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))).replace(/\\\//g, "/");
  };
  const shown = (e: unknown) => `${(e as Error).message}\n${JSON.stringify(e)}\n${inspect(e, { depth: 6 })}`;

  for (const password of ["Tiger/Lily-2026", "Пароль-2026"]) {
    it(`the merchant's password ${JSON.stringify(password)}, echoed by payments.status's error body: never in the error`, async () => {
      echoed = { user: "shop01", password };
      const shop = createEcommerceClient({ merchantId: "shop01", password, baseUrl, store: new MemoryStore(), retry: { maxRetries: 0 } });
      const e = await shop.payments.status({ orderid: "o-1" }).catch((x: unknown) => x);
      expect((e as Error).name).toBe("InternalServerError");
      // The escaped form decodes (JSON.parse) straight back to the password.
      expect(JSON.parse(phpJson(password))).toBe(password);
      expect(shown(e)).not.toContain(password); // the SDK's own form is cut out…
      expect(decoded(shown(e))).not.toContain(password); // …the escaped one is not
    });
  }

  it("a card token with a slash, echoed by payments.create's refusal: never in the error", async () => {
    const cardToken = "ct_01HX/9f+Qk2w==";
    echoed = { cardToken };
    const shop = createEcommerceClient({ merchantId: "shop01", password: "pw-0123456789", baseUrl, store: new MemoryStore() });
    const e = await shop.payments.create({ amount: 1_000, customerData: { cardToken, phone: "77771112233" } }).catch((x: unknown) => x);
    expect((e as Error).name).toBe("BadRequestError");
    expect(shown(e)).not.toContain(cardToken);
    expect(decoded(shown(e))).not.toContain(cardToken);
  });
});
