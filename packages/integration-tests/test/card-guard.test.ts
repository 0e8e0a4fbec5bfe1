// The card guard: card data never leaves in the clear. Property-based over the real operation
// tables (card numbers and card-like names hidden at any depth of the parts the specs leave open,
// and in `extraParams`), then no false refusal on any field the specs define, then over HTTP against
// the sandbox: the misspellings of the issue (`carddata`, `card`, `cardDATA`) and a card number in the
// clear are refused, nothing is sent, and no error shows the number or the CVV.

import * as cashoutSpec from "@paysys/cashout/spec";
import { MemoryStore } from "@paysys/core";
import { cardDataIssues, isCardName, looksLikeCardNumber } from "@paysys/core/internal";
import { createEcommerceClient, RequestValidationError } from "@paysys/ecommerce";
import * as ecommerceSpec from "@paysys/ecommerce/spec";
import * as fiscalSpec from "@paysys/fiscal/spec";
import * as portalSpec from "@paysys/portal/spec";
import { type Sandbox, startSandbox, TestCards } from "@paysys/sandbox";
import { bundle, specs } from "@paysys/spec-tools";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { merchant } from "./credentials.js";

type Op = { id: string; openAt?: Readonly<Record<string, readonly string[]>>; envelope?: { params?: string } };
type Json = Record<string, unknown>;

const SEED = 24112026;
const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000) / 5;

/** A Luhn-valid card number of 13 to 19 digits, written plainly or in groups of four: spaces, dashes, slashes, underscores, dots or zero-width spaces between. */
const luhnDigit = (body: string) => {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
};
const cardNumber = fc
  .tuple(fc.integer({ min: 12, max: 18 }), fc.stringMatching(/^[1-9]\d{17}$/), fc.constantFrom("", " ", "-", "/", "_", ".", "\u200b"))
  .map(([n, digits, sep]) => {
    const pan = digits.slice(0, n) + luhnDigit(digits.slice(0, n));
    return sep ? (pan.match(/.{1,4}/g) ?? []).join(sep) : pan;
  });
const cardName = fc.constantFrom("pan", "PAN", "cvv", "cvc2", "card", "cardDATA", "carddata", "card_number", "cardNumber", "ccNumber", "creditCard", "securityCode");
/** True when a JSON value has a key that reads as card data anywhere in it. */
const hasCardName = (v: unknown): boolean => v !== null && typeof v === "object" && Object.entries(v).some(([k, inner]) => isCardName(k) || hasCardName(inner));
/** JSON without anything card-like in it: the haystack. */
const innocent = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).match(/\d{13}/) && !hasCardName(v));
const name = fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !isCardName(k) && k !== "__proto__");

/** `value` placed at `keys` inside `into` (objects made along the way). */
function placed(into: unknown, keys: string[], value: unknown): Json {
  const root: Json = into !== null && typeof into === "object" && !Array.isArray(into) ? { ...(into as Json) } : {};
  let at = root;
  for (const k of keys.slice(0, -1)) at = at[k] = {};
  at[keys.at(-1)!] = value;
  return root;
}
const pointer = (keys: string[]) => keys.map((k) => `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");

const create = ecommerceSpec.operations["payments.create"] as Op;
const ecommerceSensitive = new Set(ecommerceSpec.sensitiveKeys);

describe("card guard: card data hidden anywhere in the open parts of a request is refused (property-based)", () => {
  it("a card number at any depth of e-commerce metadata: refused at its path, the number never shown", () => {
    fc.assert(
      fc.property(innocent, fc.array(name, { minLength: 1, maxLength: 4 }), cardNumber, (haystack, keys, pan) => {
        const issues = cardDataIssues({ amount: 100, metadata: placed(haystack, keys, pan) }, create.openAt, undefined, ecommerceSensitive);
        expect(issues.map((i) => i.path)).toEqual([`/metadata${pointer(keys)}`]);
        expect(JSON.stringify(issues)).not.toContain(pan.replace(/\D/g, "").slice(4));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("a card number used as a name at any depth of the metadata, of extraParams or of a cash-out body: refused, the path showing [card number], never the number", () => {
    const cashout = cashoutSpec.operations["requests.create"] as Op;
    fc.assert(
      fc.property(innocent, fc.array(name, { maxLength: 3 }), cardNumber, innocent, fc.constantFrom("metadata", "extra", "cashout"), (haystack, keys, pan, value, where) => {
        const open = placed(haystack, [...keys, pan], value);
        const issues =
          where === "cashout"
            ? cardDataIssues(open, cashout.openAt, undefined, new Set(cashoutSpec.sensitiveKeys))
            : where === "extra"
              ? cardDataIssues({ amount: 100 }, create.openAt, open, ecommerceSensitive)
              : cardDataIssues({ amount: 100, metadata: open }, create.openAt, undefined, ecommerceSensitive);
        const prefix = { metadata: "/metadata", extra: "(extraParams)", cashout: "" }[where];
        expect(issues.map((i) => i.path)).toEqual([`${prefix}${pointer(keys)}/[card number]`]);
        expect(JSON.stringify(issues)).not.toContain(pan.replace(/\D/g, "").slice(4));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("a property named like card data at any depth of the metadata or of extraParams: refused, whatever it holds", () => {
    fc.assert(
      fc.property(innocent, fc.array(name, { maxLength: 3 }), cardName, innocent, fc.boolean(), (haystack, keys, card, value, extra) => {
        const open = placed(haystack, [...keys, card], value);
        const issues = extra
          ? cardDataIssues({ amount: 100 }, create.openAt, open, ecommerceSensitive)
          : cardDataIssues({ amount: 100, metadata: open }, create.openAt, undefined, ecommerceSensitive);
        expect(issues.map((i) => i.path)).toEqual([`${extra ? "(extraParams)" : "/metadata"}${pointer([...keys, card])}`]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("numbers that fail the Luhn check, or are too short or too long, pass (an order number is not a card)", () => {
    const notCard = fc.oneof(
      cardNumber.map((pan) => pan.replace(/\d$/, (d) => String((Number(d) + 1) % 10))),
      fc.stringMatching(/^\d{1,12}$/),
      fc.stringMatching(/^\d{20,24}$/),
    );
    fc.assert(
      fc.property(innocent, fc.array(name, { minLength: 1, maxLength: 3 }), notCard, (haystack, keys, value) => {
        expect(looksLikeCardNumber(value)).toBe(false);
        expect(cardDataIssues({ amount: 1, metadata: placed(haystack, keys, value) }, create.openAt, undefined, ecommerceSensitive)).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it("a cash-out body (open as a whole: its fields are not shown) with a card number anywhere is refused", () => {
    const op = cashoutSpec.operations["requests.create"] as Op;
    fc.assert(
      fc.property(innocent, fc.array(name, { minLength: 1, maxLength: 3 }), cardNumber, (haystack, keys, pan) => {
        const issues = cardDataIssues(placed(haystack, keys, pan), op.openAt, undefined, new Set(cashoutSpec.sensitiveKeys));
        expect(issues.map((i) => i.path)).toEqual([pointer(keys)]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

/** Resolves `#/…` references of a bundled spec. */
const resolve = (doc: Json, node: Json): Json => {
  let n = node;
  for (let hops = 0; typeof n.$ref === "string" && hops < 20; hops++)
    n = (n.$ref as string)
      .slice(2)
      .split("/")
      .reduce<Json>((at, k) => at[k.replace(/~1/g, "/").replace(/~0/g, "~")] as Json, doc);
  return n;
};

/** Every field a request schema declares, as key paths (an array item as its first element). */
function declaredFields(doc: Json, schema: Json, keys: string[] = [], out: string[][] = [], depth = 0): string[][] {
  const s = resolve(doc, schema);
  if (depth > 8) return out;
  for (const part of [...((s.allOf as Json[]) ?? []), ...((s.oneOf as Json[]) ?? []), ...((s.anyOf as Json[]) ?? [])]) declaredFields(doc, part, keys, out, depth + 1);
  for (const [k, child] of Object.entries((s.properties as Record<string, Json>) ?? {})) {
    out.push([...keys, k]);
    declaredFields(doc, child, [...keys, k], out, depth + 1);
  }
  if (s.items) declaredFields(doc, s.items as Json, [...keys, "0"], out, depth + 1);
  return out;
}

/** The schema below an envelope's parameters pointer (`/Body/Params` on portal v1). */
const unwrapped = (doc: Json, schema: Json, at: string | undefined): Json =>
  (at ?? "")
    .split("/")
    .filter(Boolean)
    .reduce((s, k) => ((resolve(doc, s).properties as Record<string, Json>)?.[k] ?? {}) as Json, schema);

describe("card guard: no false refusal on any field the specs define", () => {
  const tables: Record<string, { operations: Record<string, Op>; sensitiveKeys: readonly string[] }> = {
    "portal-v2": { operations: portalSpec.v2Operations as never, sensitiveKeys: portalSpec.v2SensitiveKeys },
    "portal-v1": { operations: portalSpec.v1Operations as never, sensitiveKeys: portalSpec.v1SensitiveKeys },
    cashout: cashoutSpec as never,
    fiscal: fiscalSpec as never,
    ecommerce: ecommerceSpec as never,
  };
  for (const spec of specs) {
    it(`${spec.name}: a card number in each declared request field is left to the field's own schema (only the cryptogram's field refuses one)`, () => {
      const doc = bundle(spec) as Json;
      const table = tables[spec.name]!;
      const sensitive = new Set(table.sensitiveKeys);
      const refused: string[] = [];
      let fields = 0;
      for (const item of Object.values(doc.paths as Record<string, Json>)) {
        for (const operation of Object.values(item).filter((o): o is Json => typeof (o as Json)?.operationId === "string")) {
          const op = table.operations[operation.operationId as string];
          if (!op) continue;
          const params = ((operation.parameters as Json[]) ?? []).map((p) => [resolve(doc, p).name as string]);
          const content = (resolve(doc, (operation.requestBody as Json) ?? {}).content as Record<string, Json>) ?? {};
          const body = Object.values(content)[0]?.schema as Json | undefined;
          const paths = [...params, ...(body ? declaredFields(doc, unwrapped(doc, body, op.envelope?.params)) : [])];
          for (const keys of paths) {
            fields++;
            const issues = cardDataIssues(placed({}, keys, TestCards.success), op.openAt, undefined, sensitive);
            if (issues.length) refused.push(`${op.id} ${pointer(keys)}`);
          }
        }
      }
      expect(fields).toBeGreaterThan(0);
      // The cryptogram's field takes a cryptogram only: a card number there is the one refusal.
      expect(refused.filter((r) => !r.endsWith("/cardData"))).toEqual([]);
      if (spec.name === "ecommerce") expect(refused).toEqual(["payments.create /customerData/cardData"]);
    });
  }
});

describe("card guard over HTTP: the issue's misspellings and a card in the clear never leave", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(() => sb.close());

  const card = { pan: TestCards.success, month: 12, year: 2031, cvv: "987", cardholder: "IVAN IVANOV" };
  const cases: [string, Json, string][] = [
    ["customerData.carddata (misspelt)", { customerData: { carddata: card } }, "/customerData/carddata"],
    ["customerData.card", { customerData: { card } }, "/customerData/card"],
    ["customerData.cardDATA", { customerData: { cardDATA: card } }, "/customerData/cardDATA"],
    ["the card number in the clear as the cryptogram", { customerData: { cardData: "4111 1111 1111 1111" } }, "/customerData/cardData"],
    ["the card in the open metadata", { metadata: { note: { cardNumber: TestCards.success } } }, "/metadata/note/cardNumber"],
    ["a card number as a metadata value", { metadata: { ref: "4111-1111-1111-1111" } }, "/metadata/ref"],
    // Separators a copy-paste or a careless form leaves (found by a hostile probe: sent in the clear).
    ["a card number with zero-width spaces", { metadata: { ref: "4111\u200b1111\u200b1111\u200b1111" } }, "/metadata/ref"],
    ["a card number with slashes", { metadata: { ref: "4111/1111/1111/1111" } }, "/metadata/ref"],
    ["a card number with underscores", { metadata: { ref: "4111_1111_1111_1111" } }, "/metadata/ref"],
    // A card number as a name (an object keyed by card): sent in the clear in an open object, quoted
    // by the error in a closed one (found by a hostile probe).
    ["a card number as a metadata name", { metadata: { [TestCards.success]: "x" } }, "/metadata/[card number]"],
    ["a card number as an unknown name of a closed object", { customerData: { [TestCards.success]: 1 } }, "/customerData/[card number]"],
    // What JSON writes is what the guard reads: a boxed string, a value object's toJSON.
    ["a card number as a String object", { metadata: { ref: new String(TestCards.success) } }, "/metadata/ref"],
    ["a card number a value object writes", { metadata: { ref: { toJSON: () => TestCards.success } } }, "/metadata/ref"],
    // Names as a person (and a careless server) reads them: a trailing space, a Cyrillic с, a form's expiry.
    ["a CVV under a name with a trailing space", { metadata: { "cvv ": "987" } }, "/metadata/cvv "],
    ["a CVV under a name with a Cyrillic letter", { metadata: { сvv: "987" } }, "/metadata/сvv"],
    ["an expiry under a form's name", { metadata: { "cc-exp": "12/31" } }, "/metadata/cc-exp"],
  ];
  for (const [what, params, path] of cases) {
    it(`${what}: refused at ${path}, nothing sent, neither the number nor the CVV shown`, async () => {
      const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
      const before = sb.faults.seen.filter((s) => s.method === "POST").length;
      const e = await shop.payments.create({ amount: 1_000, ...params } as never).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(RequestValidationError);
      expect((e as RequestValidationError).issues.map((i) => i.path)).toContain(path);
      expect(sb.faults.seen.filter((s) => s.method === "POST").length).toBe(before);
      const shown = `${String(e)} ${JSON.stringify(e)} ${(e as Error).stack}`;
      expect(shown).not.toMatch(/4111[\s-]?1111[\s-]?1111[\s-]?1111|987/);
    });
  }

  it("extraParams with a card number: refused before sending", async () => {
    const shop = createEcommerceClient({ ...merchant, baseUrl: sb.ecommerceUrl, store: new MemoryStore() });
    const e = await shop.payments.create({ amount: 1_000 }, { extraParams: { pan: TestCards.success } } as never).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RequestValidationError);
    expect(String(e)).not.toContain(TestCards.success);
  });
});
