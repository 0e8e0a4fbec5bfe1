import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeParams, formatPortalDate, isPortalDate, parsePortalDate, RequestValidationError } from "../src/index.js";

const zones = ["Asia/Almaty", "UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Pacific/Chatham", "Australia/Lord_Howe"];
const instants = fc
  .date({ min: new Date("1995-01-01T00:00:00Z"), max: new Date("2040-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000));

describe("portal date codec", () => {
  it("renders in the service's zone, not the host's", () => {
    const d = new Date("2024-06-01T00:30:00Z");
    expect(formatPortalDate(d)).toBe("20240601053000"); // Almaty is UTC+5 since 2024-03-01
    expect(formatPortalDate(d, { timeZone: "UTC" })).toBe("20240601003000");
    expect(formatPortalDate(d, { precision: "day", timeZone: "America/New_York" })).toBe("20240531");
  });

  it("knows Almaty moved from UTC+6 to UTC+5 on 2024-03-01", () => {
    // At 2024-03-01 00:00 (+06) clocks went back to 2024-02-29 23:00 (+05), i.e. at 18:00 UTC.
    expect(formatPortalDate(new Date("2024-02-01T00:00:00Z"))).toBe("20240201060000");
    expect(formatPortalDate(new Date("2024-02-29T17:59:59Z"))).toBe("20240229235959");
    expect(formatPortalDate(new Date("2024-02-29T18:00:00Z"))).toBe("20240229230000");
    expect(parsePortalDate("20240201060000").toISOString()).toBe("2024-02-01T00:00:00.000Z");
  });

  it("round-trips every instant exactly in zones without DST overlaps at that instant", () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), (d, tz) => {
        const text = formatPortalDate(d, { timeZone: tz });
        expect(isPortalDate(text)).toBe(true);
        // Wall time is stable: parsing and rendering again gives the same text, even in a DST overlap.
        expect(formatPortalDate(parsePortalDate(text, tz), { timeZone: tz })).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips exactly in Almaty (no DST since 2005)", () => {
    fc.assert(
      fc.property(
        instants.filter((d) => d.getUTCFullYear() >= 2006),
        (d) => parsePortalDate(formatPortalDate(d)).getTime() === d.getTime(),
      ),
      { numRuns: 2000 },
    );
  });

  it("picks the earlier instant of a repeated wall time and skips a missing one", () => {
    // New York, 2024-11-03 01:30 happens twice (EDT then EST); 2024-03-10 02:30 never happens.
    expect(parsePortalDate("20241103013000", "America/New_York").toISOString()).toBe("2024-11-03T05:30:00.000Z");
    expect(formatPortalDate(parsePortalDate("20240310023000", "America/New_York"), { timeZone: "America/New_York" })).toBe("20240310033000");
  });

  it("rejects impossible calendar values and non-dates", () => {
    for (const bad of ["20240230", "20241301", "20240101246000", "2024-01-01", "", "202401011200"]) expect(isPortalDate(bad)).toBe(false);
    expect(() => formatPortalDate("20240230")).toThrow(RangeError);
    expect(() => formatPortalDate(new Date(Number.NaN))).toThrow(RangeError);
  });

  it("encodes Date params and v1 flags from the operation's codecs", () => {
    const out = encodeParams(
      "r.p",
      { dateFrom: new Date("2024-05-01T00:00:00+05:00"), dateTo: "20240531", subOn: true, groupByDay: false, x: true },
      { dateFrom: "portal-date", dateTo: "portal-date", subOn: "flag", groupByDay: "flag" },
    );
    expect(out).toEqual({ dateFrom: "20240501000000", dateTo: "20240531", subOn: 1, groupByDay: 0, x: true });
    expect(encodeParams("r.p", { dateFrom: "yesterday" }, { dateFrom: "portal-date" })).toEqual({ dateFrom: "yesterday" });
    expect(() => encodeParams("r.p", { dateFrom: new Date(Number.NaN) }, { dateFrom: "portal-date" })).toThrow(RequestValidationError);
    expect(encodeParams("r.p", { isAddCommissionForCancel: true }, {}, {}, { "^isAddCommissionForCance": "flag" })).toEqual({ isAddCommissionForCancel: 1 });
  });
});

describe("pattern codecs", () => {
  it("are compiled once per codec table, not on every call", () => {
    const table = { "^isAddCommissionForCance": "flag" } as const;
    const original = globalThis.RegExp;
    let compiledCount = 0;
    globalThis.RegExp = new Proxy(original, {
      construct(target, args) {
        compiledCount++;
        return Reflect.construct(target, args);
      },
    });
    try {
      for (let i = 0; i < 5; i++) expect(encodeParams("r.t", { isAddCommissionForCancel: true }, {}, {}, table)).toEqual({ isAddCommissionForCancel: 1 });
    } finally {
      globalThis.RegExp = original;
    }
    expect(compiledCount).toBe(1);
  });
});
