// The card cryptogram and the card checks: real RSA-OAEP with SHA-256 (WebCrypto encrypts,
// node:crypto decrypts with the private key, as the gateway would), Luhn and the field checks as
// properties, and no error that ever carries the card number or the CVV.
import { constants, generateKeyPairSync, privateDecrypt } from "node:crypto";
import { RequestValidationError } from "@paysys/core/calls";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { cardPlaintext, checkCard, encryptCard, importGatewayKey, luhn } from "../src/card.js";
import { input as payments_create_input } from "../src/generated/validators/payments_create.js";
import { cryptogram_payment, cryptogram_payout } from "../src/generated/wire-validators.js";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = publicKey.export({ type: "spki", format: "pem" }).toString();
const jwk = publicKey.export({ format: "jwk" }) as JsonWebKey;
const decrypt = (cryptogram: string) =>
  JSON.parse(privateDecrypt({ key: privateKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha256" }, Buffer.from(cryptogram, "base64")).toString("utf8"));

/** A card number with a correct check digit: `body` digits, then the one digit that makes Luhn hold. */
const withCheckDigit = (body: string) => {
  const check = [..."0123456789"].find((d) => luhn(body + d))!;
  return body + check;
};
const pans = fc.stringMatching(/^[1-9]\d{10,17}$/).map(withCheckDigit);
const future = { month: 12, year: new Date().getUTCFullYear() + 3 };

describe("luhn", () => {
  it("holds for every number given its check digit, and fails when any one digit changes", () => {
    fc.assert(
      fc.property(pans, fc.nat(), fc.integer({ min: 1, max: 9 }), (pan, at, delta) => {
        const i = at % pan.length;
        const changed = pan.slice(0, i) + String((Number(pan[i]) + delta) % 10) + pan.slice(i + 1);
        return luhn(pan) && !luhn(changed);
      }),
      { numRuns: 10_000, seed: 11 },
    );
  });
});

describe("checkCard", () => {
  it("accepts every valid card, with spaces or dashes, a 2- or 4-digit year, a 3- or 4-digit CVV", () => {
    fc.assert(
      fc.property(pans, fc.constantFrom(" ", "-", ""), fc.boolean(), fc.stringMatching(/^\d{3,4}$/), (pan, sep, shortYear, cvv) => {
        const spaced = pan.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
        const year = shortYear ? String(future.year).slice(2) : future.year;
        return checkCard({ pan: spaced, month: future.month, year, cvv }).length === 0;
      }),
      { numRuns: 5_000, seed: 12 },
    );
  });

  it("names each wrong field and never repeats the card number or the CVV", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{8,22}$/), fc.string(), fc.integer({ min: -5, max: 20 }), fc.integer({ min: 1990, max: 2200 }), (pan, cvv, month, year) => {
        const issues = checkCard({ pan, month, year, cvv });
        const text = JSON.stringify(issues);
        const wantsPan = !/^\d{12,19}$/.test(pan) || !luhn(pan);
        return (
          issues.some((i) => i.path === "/pan") === wantsPan &&
          issues.some((i) => i.path === "/cvv") === !/^\d{3,4}$/.test(cvv) &&
          issues.some((i) => i.path === "/month") === (month < 1 || month > 12) &&
          !text.includes(pan) &&
          (cvv.length < 3 || !text.includes(cvv))
        );
      }),
      { numRuns: 5_000, seed: 13 },
    );
  });

  it("refuses an expired card", () => {
    expect(checkCard({ pan: "4111111111111111", month: 1, year: 2020, cvv: "123" })).toEqual([{ path: "/year", message: "the card has expired" }]);
    expect(checkCard({ pan: "4111111111111111", month: 11, year: 2026, cvv: "123" }, new Date("2026-11-30T00:00:00Z"))).toEqual([]);
  });
});

describe("encryptCard", () => {
  it("a card whose data cannot fit one RSA-OAEP block is refused at the long field, never a bare 'data too large'", async () => {
    const room = 2048 / 8 - 66;
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 120 }), fc.boolean(), async (free, asIp) => {
        const card = { pan: "4400430000000007", ...future, cvv: "123", ...(asIp ? { ip: free.replace(/\p{Cc}/gu, "") } : { cardholder: free.replace(/\p{Cc}/gu, "") }) };
        const size = new TextEncoder().encode(cardPlaintext(card)).length;
        const e = await encryptCard(card, pem).then(
          (c) => decrypt(c),
          (x: unknown) => x,
        );
        if (size <= room) return !(e instanceof Error);
        const issues = (e as { issues?: { path: string; message: string }[] }).issues;
        return (
          e instanceof RequestValidationError &&
          issues?.[0]?.path === (asIp ? "/ip" : "/cardholder") &&
          !JSON.stringify(issues).includes("4400430000000007") &&
          !(e as Error).message.includes("123,")
        );
      }),
      { numRuns: 300, seed: 21 },
    );
  });

  it("is RSA-OAEP with SHA-256, standard Base64, of the spec's plaintext; the private key gives the card back", async () => {
    const card = { pan: "4400 4300 0000 0007", month: 3, year: 31, cvv: "0123", cardholder: "IVAN IVANOV", ip: "203.0.113.7" };
    for (const key of [pem, jwk, { ...jwk, alg: "RSA-OAEP" }, await importGatewayKey(pem)]) {
      const cryptogram = await encryptCard(card, key);
      expect(cryptogram).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      expect(Buffer.from(cryptogram, "base64")).toHaveLength(256);
      const plain = decrypt(cryptogram);
      expect(plain).toEqual({ cardholder: "IVAN IVANOV", month: "03", pan: "4400430000000007", validity: "03/31", year: "2031", cvv: "0123", ip: "203.0.113.7" });
      expect(cryptogram_payment(plain)).toBe(true);
    }
  });

  it("a payout cryptogram carries the card number only", async () => {
    const plain = decrypt(await encryptCard({ pan: "4111111111111111" }, pem));
    expect(plain).toEqual({ pan: "4111111111111111" });
    expect(cryptogram_payout(plain)).toBe(true);
  });

  it("is randomized (OAEP): the same card never gives the same cryptogram", async () => {
    const card = { pan: "4111111111111111", ...future, cvv: "123" };
    const a = await encryptCard(card, pem);
    expect(await encryptCard(card, pem)).not.toBe(a);
    expect(decrypt(a)).toEqual(JSON.parse(cardPlaintext(card)));
  });

  it("every valid card decrypts to a plaintext the spec's schema accepts", async () => {
    const key = await importGatewayKey(pem);
    await fc.assert(
      fc.asyncProperty(pans, fc.stringMatching(/^\d{3,4}$/), fc.string({ maxLength: 26 }), async (pan, cvv, cardholder) => {
        const plain = decrypt(await encryptCard({ pan, ...future, cvv, cardholder }, key));
        return plain.pan === pan && plain.cvv === cvv && plain.cardholder === cardholder && cryptogram_payment(plain);
      }),
      { numRuns: 200, seed: 14 },
    );
  });

  it("without WebCrypto (a browser page not served over HTTPS) says so, as a ConfigurationError", async () => {
    vi.stubGlobal("crypto", {});
    try {
      await expect(encryptCard({ pan: "4111111111111111", ...future, cvv: "123" }, pem)).rejects.toMatchObject({
        name: "ConfigurationError",
        message: expect.stringContaining("HTTPS"),
      });
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("refuses a bad card before encrypting, without its number or CVV in the error", async () => {
    const error = await encryptCard({ pan: "4111111111111112", month: 2, year: 2031, cvv: "77" }, pem).catch((e) => e);
    expect(error.name).toBe("RequestValidationError");
    expect(error.issues.map((i: { path: string }) => i.path)).toEqual(["/pan", "/cvv"]);
    expect(`${error.message}${JSON.stringify(error)}`).not.toMatch(/4111111111111112|"77"/);
  });
});

describe("amounts before sending", () => {
  it("the create validator accepts positive whole tiyn only (safe integers: no Infinity, nothing inexact)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double()), (amount) => {
        const ok = payments_create_input({ merchantId: "m", orderId: "o", amount });
        return ok === (Number.isSafeInteger(amount) && amount > 0);
      }),
      { numRuns: 10_000, seed: 15 },
    );
  });
});
