// A secret a server echoes back is cut out of every error text, however the server escaped it: JSON
// in PHP's, Python's or .NET's style (`\/`, `\u0410`), HTML character references, percent-encoding in
// either case. Only the forms `JSON.stringify` writes were cut: a password with a slash or a Cyrillic
// letter, echoed by PHP's json_encode, was in an error's body excerpt (a hostile probe).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { excerptOf } from "../src/internal/read.js";
import { REDACTED, redactHeaders, redactValue, scrub } from "../src/internal/redact.js";

/** How PHP's json_encode, Python's json.dumps and .NET write a string by default: `/` escaped (PHP), every non-ASCII character as \uXXXX. */
const asciiJson = (s: string) =>
  JSON.stringify(s)
    .replace(/\//g, "\\/")
    .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const htmlRefs = (s: string) => [...s].map((c) => (/[a-z0-9]/i.test(c) ? c : `&#${c.codePointAt(0)};`)).join("");
const hexRefs = (s: string) => [...s].map((c) => (/[a-z0-9]/i.test(c) ? c : `&#x${c.codePointAt(0)!.toString(16)};`)).join("");
const lowerPercent = (s: string) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());

describe("scrub", () => {
  const secrets = ["Tiger/Lily-2026", "Пароль-2026", "tok/en+x=="];
  it.each([
    ["JSON as PHP, Python and .NET write it", asciiJson],
    ["HTML decimal references", htmlRefs],
    ["HTML hexadecimal references", hexRefs],
    ["percent-encoding in lower case", lowerPercent],
  ])("cuts a secret echoed in %s", (_how, written) => {
    for (const secret of secrets) {
      const text = scrub(`{"message":"bad login ${written(secret).replace(/^"|"$/g, "")} for user"}`, secrets);
      expect(text, secret).toContain(REDACTED);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(written(secret).replace(/^"|"$/g, ""));
    }
  });

  it("cuts a secret a form wrote (a space as +, `!` as %21) and one escaped twice (JSON quoting JSON)", () => {
    const spaced = "my pass@word!";
    const form = `password=${new URLSearchParams([["", spaced]]).toString().slice(1)}&user=shop01`;
    expect(form).toContain("my+pass%40word%21");
    expect(scrub(form, [spaced])).toBe(`password=${REDACTED}&user=shop01`);
    const cyrillic = "Пароль-2026";
    const twice = JSON.stringify({ detail: `upstream: ${asciiJson(JSON.stringify({ password: cyrillic }))}` });
    expect(twice).toContain("\\\\u041f");
    const text = scrub(twice, [cyrillic]);
    expect(text).toContain(REDACTED);
    expect(text).not.toMatch(/П|041f/i);
  });

  it("cuts a secret that itself looks escaped, as written and as undone", () => {
    expect(scrub("pin a%41b here", ["a%41b"])).toBe(`pin ${REDACTED} here`);
    expect(scrub("pin aAb here", ["a%41b"])).toBe("pin aAb here");
  });

  it("leaves a text without secrets as it is", () => {
    expect(scrub('{"a":"x\\/y"}', [])).toBe('{"a":"x\\/y"}');
  });

  it("an excerpt never shows the start of a secret cut at the end of its window, under escapes of escapes", () => {
    const secret = "Zq9xWv3LmP7tRk2Y";
    const window = 10 * (200 + 10 * secret.length); // excerptOf's window for this secret
    const unit = "\\u005cu005cu0026#0000065;"; // undone three times over: one "A"
    for (let inside = 1; inside < secret.length; inside++) {
      const units = Math.floor((window - inside) / unit.length);
      const body = `${unit.repeat(units)}${"x".repeat(window - inside - units * unit.length)}${secret} was refused`;
      const excerpt = excerptOf(new TextEncoder().encode(body), "text/plain", false, [secret], scrub);
      expect(excerpt, `${inside} characters of it in the window`).not.toContain(secret.slice(0, Math.min(inside, 3)));
    }
  });

  it("an excerpt never shows the start of a secret cut at the end of its window, however escaped the text before it", () => {
    const secret = "Пароль-секрет-2026";
    // Runs of escaped Cyrillic of every length, then the secret: undone, the text shrinks six characters to one.
    for (let n = 0; n < 200; n++) {
      const body = `{"message":"${asciiJson("Ошибка ".repeat(n)).slice(1, -1)}${asciiJson(secret).slice(1, -1)}"}`;
      const excerpt = excerptOf(new TextEncoder().encode(body), "application/json", false, [secret], scrub);
      expect(excerpt, `after ${n} words`).not.toMatch(/П|\\u041f/);
      expect(excerpt.length).toBeLessThanOrEqual(200);
    }
  });
});

describe("card numbers in a service's text", () => {
  it("are cut whether the client knew them or not; timestamps, ids and non-card runs stay", () => {
    for (const pan of ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "4111.1111.1111.1111", "4111+1111+1111+1111", "5555555555554444", "2200000000000004"]) {
      expect(scrub(`bad card ${pan} refused`, [])).toBe(`bad card ${REDACTED} refused`);
    }
    // A millisecond timestamp, a number failing Luhn, too short or too long a run, an id of 12 digits.
    for (const kept of ["1732337391000", "4111111111111112", "411111111111", "41111111111111111111", "order 123456789012", "203.0.113.12 203.0.113.13"]) {
      expect(scrub(`at ${kept}`, [])).toBe(`at ${kept}`);
    }
    // Cards of every first digit the card guard takes: UzCard, Humo, Belkart, a 7, UATP's 15 digits
    // starting with 1 (masked only from 2 to 6, a gateway's "card 8600… declined" was shown whole).
    for (const pan of ["8600123456789012", "9860 1234 5678 9015", "9112123456789011", "7000123456789010", "120000000000005"]) {
      expect(scrub(`card ${pan} declined`, [])).toBe(`card ${REDACTED} declined`);
    }
    // A millisecond timestamp that passes Luhn is still no card: 13 digits starting with 1.
    expect(scrub("at 1732337391004", [])).toBe("at 1732337391004");
    // Escaped, it is cut too; a JSON excerpt with no card number in it keeps its escapes.
    expect(scrub("card=4111%201111%201111%201111", [])).toBe(`card=${REDACTED}`);
    const json = '{"message":"blocked 203.0.113.12\\n203.0.113.13","hint":"say \\"hi\\""}';
    expect(scrub(json, [])).toBe(json);
  });
});

describe("a logged body", () => {
  it("shows no card number a caller wrote into a text field, and leaves other text and numbers as they are", () => {
    const body = { description: "4111111111111111", metadata: { note: "card 8600 1234 5678 9012 at the till" }, amount: 4111111111111111, when: "1732337391004" };
    expect(redactValue(body, new Set())).toEqual({ description: REDACTED, metadata: { note: `card ${REDACTED} at the till` }, amount: 4111111111111111, when: "1732337391004" });
  });
});

describe("header names of a caller's credential", () => {
  it("a name with key, token, secret or auth in it is redacted; an idempotency key, which names a call, stays readable", () => {
    const headers = new Headers({
      "X-Merchant-Key": "a",
      private_key: "b",
      "X-Key-Id": "c",
      "X-Api-Key": "d",
      "Idempotency-Key": "k-1",
      "X-Idempotency-Key": "k-2",
      "X-Note": "n",
      "X-Monkey": "m",
    });
    expect(redactHeaders(headers)).toEqual({
      "x-merchant-key": REDACTED,
      private_key: REDACTED,
      "x-key-id": REDACTED,
      "x-api-key": REDACTED,
      "idempotency-key": "k-1",
      "x-idempotency-key": "k-2",
      "x-note": "n",
      "x-monkey": "m",
    });
  });
});

describe("a secret echoed changed: in another case, cut short, or as Base64 without its padding", () => {
  const token = "eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.Sig-Nature_123";
  it("in upper or lower case (a server that shouts its echo)", () => {
    expect(scrub(`INVALID PASSWORD '${"Tiger-Lily-42".toUpperCase()}'`, ["Tiger-Lily-42"])).toBe(`INVALID PASSWORD '${REDACTED}'`);
    expect(scrub(`token ${token.toLowerCase()} expired`, [token])).toBe(`token ${REDACTED} expired`);
  });
  it("by its start: the first 12 characters and whatever of the rest follows them", () => {
    expect(scrub(`token ${token.slice(0, 20)}… expired`, [token])).toBe(`token ${REDACTED}… expired`);
    expect(scrub(`token ${token.slice(0, 12)}`, [token])).toBe(`token ${REDACTED}`);
    // a short secret (a captcha) is cut as written only: in another case it is too likely a word
    expect(scrub("the AB12 room, lab12", ["ab12"])).toBe(`the AB12 room, l${REDACTED}`);
  });
  it("Base64 unpadded, and as Base64url", () => {
    const basic = Buffer.from("shop-7:ü>>?~x").toString("base64");
    expect(basic.endsWith("=")).toBe(true);
    const unpadded = basic.replace(/=+$/, "");
    const url = Buffer.from("shop-7:ü>>?~x").toString("base64url");
    expect(scrub(`auth ${unpadded} refused; as url ${url}`, [basic])).toBe(`auth ${REDACTED} refused; as url ${REDACTED}`);
  });
  it("never leaves a secret of 8 characters or more in any mix of cases (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }),
        fc.string(),
        fc.string(),
        fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
        (secret, before, after, upper) => {
          const mixed = [...secret].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join("");
          if (mixed.length !== secret.length) return true;
          return !scrub(before + mixed + after, [secret])
            .toLowerCase()
            .includes(secret.toLowerCase());
        },
      ),
      { numRuns: 2_000, seed: 31 },
    );
  });
});
