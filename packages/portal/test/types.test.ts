// Type tests: `tsc --noEmit` (part of this package's test script) fails if a line marked with a
// ts-expect-error directive compiles, or if an expectTypeOf does not hold.
import { describe, expectTypeOf, it } from "vitest";
import { type BinaryFile, createPortalClient, type PortalV1Client, type PortalV2Client } from "../src/index.js";

/** Type-checks a call without making it: these tests are judged by tsc, not at run time. */
const typeOnly = (_call: () => unknown) => {};

const v2 = createPortalClient({ baseUrl: "http://127.0.0.1:1" });
const v1 = createPortalClient({ baseUrl: "http://127.0.0.1:1", version: "v1" });

describe("portal types", () => {
  it("picks the client type from the version", () => {
    expectTypeOf(v2).toEqualTypeOf<PortalV2Client>();
    expectTypeOf(v1).toEqualTypeOf<PortalV1Client>();
  });

  it("user.me exists only on v2", () => {
    expectTypeOf(v2.user.me).toBeFunction();
    // @ts-expect-error: portal v1 has no user.me
    typeOnly(() => v1.user.me());
  });

  it("reports with format xlsx resolve to a file, without it to rows", () => {
    typeOnly(() => expectTypeOf(v2.reports.cashCollections({ format: "xlsx" })).resolves.toEqualTypeOf<BinaryFile>());
    typeOnly(() => expectTypeOf(v2.reports.cashCollections({})).resolves.not.toEqualTypeOf<BinaryFile>());
    typeOnly(() => expectTypeOf(v1.reports.dealerStatistics({ format: "xlsx" })).resolves.toEqualTypeOf<BinaryFile>());
    typeOnly(() => expectTypeOf(v1.reports.payments()).resolves.toBeArray());
  });

  it("dates take a Date or a string; v1 flags take booleans or 0/1; v2 flags booleans", () => {
    typeOnly(() => v2.reports.payments({ dateFrom: new Date(), dateTo: "20240531", subOn: true }));
    typeOnly(() => v1.reports.payments({ dateFrom: new Date(), subOn: true }));
    typeOnly(() => v1.reports.payments({ subOn: 1 }));
    // @ts-expect-error: v2 flags are booleans
    typeOnly(() => v2.reports.payments({ subOn: 1 }));
    // @ts-expect-error: not a date
    typeOnly(() => v2.reports.payments({ dateFrom: 20240501 }));
  });

  it("refuses wrong and version-only parameters", () => {
    // @ts-expect-error: kazPost is a v1-only parameter
    typeOnly(() => v2.reports.cashCollections({ kazPost: 1 }));
    typeOnly(() => v1.reports.cashCollections({ kazPost: 1, kassaNova: 0 }));
    // @ts-expect-error: onlySystemAgents is v1-only
    typeOnly(() => v2.reports.terminalTurnovers({ onlySystemAgents: 1 }));
    // @ts-expect-error: rnn is documented for v1 only
    typeOnly(() => v2.agents.list({ rnn: "123" }));
    // @ts-expect-error: sub is 0..4
    typeOnly(() => v2.agents.list({ sub: 7 }));
    // @ts-expect-error: a typo in a parameter name
    typeOnly(() => v2.terminals.list({ idTermnal: 5 }));
    // @ts-expect-error: format other than xlsx
    typeOnly(() => v2.reports.dealerStatistics({ format: "csv" }));
    // @ts-expect-error: captchaSession is required
    typeOnly(() => v2.account.captcha({}));
  });

  it("agent columns offer the known names and accept others", () => {
    typeOnly(() => v2.agents.list({ columns: ["firstPaymentDate", "contract", "someFutureColumn"] }));
  });

  it("the result of a profile is the user record", () => {
    typeOnly(() => expectTypeOf(v2.user.me()).resolves.toHaveProperty("userFIO"));
    typeOnly(() => expectTypeOf(v1.user.profile()).resolves.toHaveProperty("lgn"));
  });
});
