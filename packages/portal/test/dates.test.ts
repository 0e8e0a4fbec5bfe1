import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { portalCodecs } from "../src/codecs.js";
import { formatPortalDate, InvalidArgumentError, isPortalDate, parsePortalDate, period } from "../src/index.js";

const zones = ["Asia/Almaty", "UTC", "America/New_York", "Europe/London", "Asia/Kolkata", "Pacific/Chatham", "Australia/Lord_Howe"];
const instants = fc
  .date({ min: new Date("1995-01-01T00:00:00Z"), max: new Date("2040-12-31T23:59:59Z"), noInvalidDate: true })
  .map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000));

describe("portal date codec", () => {
  it("renders in the service's zone, not the host's", () => {
    const d = new Date("2024-06-01T00:30:00Z");
    expect(formatPortalDate(d)).toBe("20240601053000"); // Almaty is UTC+5 since 2024-03-01
    expect(formatPortalDate(d, { timeZone: "UTC" })).toBe("20240601003000");
    expect(formatPortalDate(d, { timeZone: "America/New_York" })).toBe("20240531203000");
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

  it("accepts exactly the digit strings that name a real date and time (years from 100)", () => {
    const digits = (n: number, w: number) => String(n).padStart(w, "0");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 60 }),
        (y, mo, d, h, mi, s) => {
          const probe = new Date(0);
          probe.setUTCFullYear(y, mo - 1, d);
          probe.setUTCHours(h, mi, s);
          const real =
            y >= 100 &&
            probe.getUTCFullYear() === y &&
            probe.getUTCMonth() === mo - 1 &&
            probe.getUTCDate() === d &&
            probe.getUTCHours() === h &&
            probe.getUTCMinutes() === mi &&
            probe.getUTCSeconds() === s;
          expect(isPortalDate(`${digits(y, 4)}${digits(mo, 2)}${digits(d, 2)}${digits(h, 2)}${digits(mi, 2)}${digits(s, 2)}`)).toBe(real);
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it("rejects impossible calendar values and non-dates", () => {
    for (const bad of ["20240230", "20241301", "20240101246000", "2024-01-01", "", "202401011200", "19000229", "20230229", "00990101"]) expect(isPortalDate(bad)).toBe(false);
    for (const good of ["20000229", "20240229", "01000101", "20241231235959"]) expect(isPortalDate(good)).toBe(true);
    expect(() => formatPortalDate("20240230")).toThrow(InvalidArgumentError);
    expect(() => formatPortalDate(new Date(Number.NaN))).toThrow(InvalidArgumentError);
  });

  it("refuses years a portal date cannot carry: past 9999 (four digits on the wire), before 100, before year 1", () => {
    // These used to render 15 digits (year 10000) or a BC year as its era's count: wrong data on the wire.
    expect(() => formatPortalDate({ year: 10000, month: 1, day: 1 })).toThrow(/not a real day: 10000-01-01/);
    expect(() => formatPortalDate(new Date(Date.UTC(10000, 0, 1)))).toThrow(InvalidArgumentError);
    expect(() => formatPortalDate(new Date("9999-12-31T20:00:00Z"))).toThrow(/outside the years 100–9999/); // 01:00 on 1 Jan 10000 in Almaty
    expect(formatPortalDate(new Date("9999-12-31T12:00:00Z"))).toBe("99991231170000");
    expect(() => formatPortalDate(new Date("-000100-06-01T00:00:00Z"), { timeZone: "UTC" })).toThrow(/outside the years 100–9999/);
    expect(() => formatPortalDate(new Date("0099-06-01T00:00:00Z"), { timeZone: "UTC" })).toThrow(/outside the years 100–9999/);
    expect(() => period.month(10000, 1)).toThrow(InvalidArgumentError);
    expect(() => period.month(99, 2)).toThrow(InvalidArgumentError);
    expect(period.month(9999, 2).dateTo.day).toBe(28);
    expect(period.month(2000, 2).dateTo.day).toBe(29);
    expect(period.month(1900, 2).dateTo.day).toBe(28);
  });

  it("reads a calendar date as the whole day in the service's zone", () => {
    expect(formatPortalDate("2024-05-01")).toBe("20240501000000");
    expect(formatPortalDate({ year: 2024, month: 5, day: 31 }, { bound: "end" })).toBe("20240531235959");
    // A calendar date with a time in it meant that time: read as the whole day, the period would widen.
    expect(() => formatPortalDate({ year: 2024, month: 5, day: 31, hour: 5 } as never)).toThrow(InvalidArgumentError);
    expect(formatPortalDate("20240531")).toBe("20240531");
    // A Date is an instant: UTC midnight is 05:00 in Almaty, which is why calendar dates exist.
    expect(formatPortalDate(new Date("2024-05-01"))).toBe("20240501050000");
    expect(() => formatPortalDate("2024-02-30")).toThrow(/not a real day/);
    expect(() => formatPortalDate("yesterday")).toThrow(/expected yyyyMMdd or yyyyMMddHHmmss digits, a calendar date/);
    expect(parsePortalDate("20240531", "Asia/Almaty", "end").toISOString()).toBe("2024-05-31T18:59:59.000Z");
  });

  it("codecs: the start of a period is the first second of its day, the end its last; v1 flags are 1/0", () => {
    const ctx = { operation: "r.p", timeZone: "Asia/Almaty" };
    expect(portalCodecs["portal-date"]!.encode("2024-05-01", ctx)).toBe("20240501000000");
    expect(portalCodecs["portal-date-end"]!.encode("2024-05-31", ctx)).toBe("20240531235959");
    expect(portalCodecs.flag!.encode(true, ctx)).toBe(1);
    expect(portalCodecs.flag!.encode(0, ctx)).toBe(0);
    const order = portalCodecs["portal-date"]!.order!;
    expect(order("20240501", "end", ctx)).toBeGreaterThan(order("20240501120000", "start", ctx));
  });
});

describe("period helpers", () => {
  it("cover whole months, days and ranges, inclusive at both ends", () => {
    expect(period.month(2024, 2)).toEqual({ dateFrom: { year: 2024, month: 2, day: 1 }, dateTo: { year: 2024, month: 2, day: 29 } });
    expect(period.month(2023, 12).dateTo).toEqual({ year: 2023, month: 12, day: 31 });
    expect(period.day("2024-05-07")).toEqual({ dateFrom: { year: 2024, month: 5, day: 7 }, dateTo: { year: 2024, month: 5, day: 7 } });
    expect(period.days("2024-05-01", { year: 2024, month: 5, day: 7 }).dateTo.day).toBe(7);
    expect(() => period.days("2024-05-07", "2024-05-01")).toThrow(/after the last/);
    expect(() => period.month(2024, 13)).toThrow(InvalidArgumentError);
  });

  it("every month's period renders as its first and last second in the service's zone", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2000, max: 2100 }), fc.integer({ min: 1, max: 12 }), (y, m) => {
        const p = period.month(y, m);
        const from = formatPortalDate(p.dateFrom);
        const to = formatPortalDate(p.dateTo, { bound: "end" });
        expect(from.endsWith("01000000")).toBe(true);
        expect(to.endsWith("235959")).toBe(true);
        // The day after the end is the first day of the next month.
        const next = new Date(Date.UTC(y, m - 1, p.dateTo.day + 1));
        expect(next.getUTCDate()).toBe(1);
      }),
      { numRuns: 1000 },
    );
  });
});
