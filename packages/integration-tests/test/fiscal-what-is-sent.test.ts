// What a fiscal receipt sends is what the checks saw (a hostile review, with a recording proxy
// between the client and the sandbox to see the bytes sent):
// - The service reads request-body keys regardless of case (the spec's `x-key-case`; Go's decoding,
//   the later key wins). `total`, `positions` or `CASH` in extraParams went out after the checked
//   `Total`, `Positions`, `Cash`: what such a service registers, past the receipt's checks. Only the
//   exact spelling was refused, and then not a key with a long s (`Caſh`), which Go folds with s.
// - Tenge given as a decimal string became a JSON number with no bound: past 15 significant digits a
//   two-decimal string has no double of its own, and 100000000000000.01 went out as .02; as a
//   number, past 2^53 tiyn, the same.
// - RFC 3339 dates were checked by the spec's pattern only: 30 February, 29 February of a common
//   year, 24:00 and month 13 went out (the sandbox's Date.parse moved 30 February to 2 March).
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { createFiscalClient, RequestValidationError } from "@paysys/fiscal";
import { type Sandbox, startSandbox } from "@paysys/sandbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiscalCredentials } from "./credentials.js";

let sb: Sandbox;
let proxyUrl: string;
let stop: () => void;
const sent: { url: string; body: string }[] = [];
beforeAll(async () => {
  sb = await startSandbox({});
  const target = new URL(sb.fiscalUrl);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      sent.push({ url: req.url!, body });
      const up = httpRequest({ host: target.hostname, port: target.port, path: target.pathname.replace(/\/$/, "") + req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode!, r.headers);
        r.pipe(res);
      });
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stop = () => server.close();
});
afterAll(async () => {
  stop();
  await sb.close();
});

const tea = { IdDomain: 1, Positions: [{ Name: "Tea", IdSection: 1, Price: "250", Qty: 2 }], Total: "500", Cash: "500" };
/** Refused before sending (and nothing sent to `path`), or the values of `field` the body carried. */
async function outcome(call: () => Promise<unknown>, path: string, field: string): Promise<string> {
  const before = sent.length;
  const e = await call().catch((x: unknown) => x);
  const bodies = sent.slice(before).filter((s) => s.url.endsWith(path));
  if (e instanceof RequestValidationError && bodies.length === 0) return "refused";
  return bodies.map((b) => [...b.body.matchAll(new RegExp(`"${field}":([^,}\\]]+)`, "gi"))].map((m) => m[1]).join(" ")).join("; ");
}

describe("open parameters that differ from a receipt's parameter only in case", () => {
  for (const [label, extraParams] of [
    ["total", { total: "1" }],
    ["positions", { positions: [{ Name: "Tea", IdSection: 1, Price: 1, Qty: 500 }] }],
    ["CASH (given) and NONCASH (not given)", { CASH: 0, NONCASH: 500 }],
    ["mobile (not given)", { mobile: 500 }],
    // Go's encoding/json folds the long s with s (unicode.SimpleFold): `Caſh` is `Cash` to it.
    ["Caſh and NonCaſh (a long s)", { Caſh: 0, NonCaſh: 500 }],
    ["Poſitions (a long s)", { Poſitions: [{ Name: "Gold", IdSection: 1, Price: 1_000_000, Qty: 1 }] }],
  ] as const) {
    it(`${label}: refused before sending, as the exact name is`, async () => {
      await using fiscal = createFiscalClient({ baseUrl: proxyUrl, credentials: fiscalCredentials });
      await fiscal.shifts.open({ IdKkm: 101 }).catch(() => undefined);
      expect(await outcome(() => fiscal.operations.sale({ idKkm: 101, ...tea }, { extraParams: { Total: "1" } } as never), "/sales", "total")).toBe("refused");
      expect(await outcome(() => fiscal.operations.sale({ idKkm: 101, ...tea }, { extraParams } as never), "/sales", "total")).toBe("refused");
    });
  }
});

describe("tenge as a decimal string goes as given, or is refused", () => {
  it("a sale of 100000000000000.01 tenge: refused, never sent as 100000000000000.02", async () => {
    await using fiscal = createFiscalClient({ baseUrl: proxyUrl, credentials: fiscalCredentials });
    await fiscal.shifts.open({ IdKkm: 102 });
    const amount = "100000000000000.01";
    const sale = () => fiscal.operations.sale({ idKkm: 102, IdDomain: 1, Positions: [{ Name: "Gold", IdSection: 1, Price: amount, Qty: 1 }], Total: amount, Cash: amount });
    expect(await outcome(sale, "/sales", "Total")).toBe("refused");
  });

  it("a cash-in of 100000000000000.01, 80000000000000.01 or 1e15 + 0.01 tenge as a number: refused (past 2^46 a double has no value for every tiyn)", async () => {
    await using fiscal = createFiscalClient({ baseUrl: proxyUrl, credentials: fiscalCredentials });
    await fiscal.shifts.open({ IdKkm: 106 });
    for (const Amount of [Number("100000000000000.01"), Number("80000000000000.01"), 1e15 + 0.01])
      expect(await outcome(() => fiscal.operations.cashIn({ idKkm: 106, Amount }), "/incomes", "Amount")).toBe("refused");
    expect(await outcome(() => fiscal.operations.cashIn({ idKkm: 106, Amount: 9999999999999.99 }), "/incomes", "Amount")).toBe("9999999999999.99");
  });

  it("a cash-in of 12345678901234567.89 tenge: refused; one of 9999999999999.99 goes as given", async () => {
    await using fiscal = createFiscalClient({ baseUrl: proxyUrl, credentials: fiscalCredentials });
    await fiscal.shifts.open({ IdKkm: 103 });
    expect(await outcome(() => fiscal.operations.cashIn({ idKkm: 103, Amount: "12345678901234567.89" }), "/incomes", "Amount")).toBe("refused");
    expect(await outcome(() => fiscal.operations.cashIn({ idKkm: 103, Amount: "9999999999999.99" }), "/incomes", "Amount")).toBe("9999999999999.99");
  });
});

describe("a receipt date that does not exist is refused before sending", () => {
  const cases = [
    ["30 February", "2099-02-30T10:00:00+05:00"],
    ["29 February of a common year", "2099-02-29T10:00:00+05:00"],
    ["hour 24", "2099-05-31T24:00:00+05:00"],
    ["month 13", "2099-13-01T10:00:00+05:00"],
  ] as const;
  for (const [label, ReceiptDate] of cases) {
    it(`${label}: ${ReceiptDate}`, async () => {
      await using fiscal = createFiscalClient({ baseUrl: proxyUrl, credentials: fiscalCredentials });
      await fiscal.shifts.open({ IdKkm: 104 }).catch(() => undefined);
      expect(await outcome(() => fiscal.operations.sale({ idKkm: 104, ...tea, ReceiptDate }), "/sales", "ReceiptDate")).toBe("refused");
    });
  }

  it("29 February of a leap year goes as given", async () => {
    await using fiscal = createFiscalClient({ baseUrl: proxyUrl, credentials: fiscalCredentials });
    await fiscal.shifts.open({ IdKkm: 105 }).catch(() => undefined);
    expect(await outcome(() => fiscal.operations.sale({ idKkm: 105, ...tea, ReceiptDate: "2096-02-29T10:00:00+05:00" }), "/sales", "ReceiptDate")).toBe(
      '"2096-02-29T10:00:00+05:00"',
    );
  });
});
