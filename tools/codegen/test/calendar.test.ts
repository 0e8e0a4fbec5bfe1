// Dates that exist, one rule in requests and answers: the `x-calendar` keyword the generated
// validators compile accepts a date exactly when the calendar has that day and the clock that time.
// Held against an independent reading (a UTC Date made of the fields, read back unchanged) over
// every month-day from 0 to 32 of every month from 0 to 13 of four centuries, in both shapes the
// specs use, and against times and offsets at and past their bounds.
import { describe, expect, it } from "vitest";
import { compileValidators } from "../src/validators.js";

async function validator(schema: object) {
  const code = compileValidators({}, { v: schema });
  return (await import(`data:text/javascript;base64,${Buffer.from(code).toString("base64")}`)).v as (d: unknown) => boolean;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");
/** The reference: the day exists when a Date made of it reads back as the same year, month and day. */
function exists(year: number, month: number, day: number): boolean {
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

describe("x-calendar", () => {
  it("accepts exactly the days that exist, 1900 to 2299, as digits and as RFC 3339", async () => {
    const v = await validator({ type: "string", "x-calendar": true });
    const wrong: string[] = [];
    for (let year = 1900; year < 2300; year++) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          const expected = exists(year, month, day);
          const digits = `${year}${pad(month)}${pad(day)}`;
          const rfc = `${year}-${pad(month)}-${pad(day)}T10:00:00+05:00`;
          if (v(digits) !== expected) wrong.push(digits);
          if (v(`${digits}235959`) !== expected) wrong.push(`${digits}235959`);
          if (v(rfc) !== expected) wrong.push(rfc);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("refuses an hour, minute, second or offset past its bound, and accepts each at it", async () => {
    const v = await validator({ type: "string", "x-calendar": true });
    for (const ok of ["2024-02-29T23:59:59Z", "2024-02-29T00:00:00.123+23:59", "2024-02-29T12:00:00-05:30", "20240229235959"]) expect(v(ok), ok).toBe(true);
    for (const bad of [
      "2024-05-31T24:00:00Z",
      "2024-05-31T10:60:00Z",
      "2024-05-31T10:00:60Z",
      "2024-05-31T10:00:00+24:00",
      "2024-05-31T10:00:00+05:60",
      "20240531240000",
      "20240531106000",
    ]) {
      expect(v(bad), bad).toBe(false);
    }
  });

  it("leaves shapes it does not know to the pattern, and names the path and the reason", async () => {
    const v = await validator({ type: "object", properties: { at: { type: "string", "x-calendar": true } } });
    for (const other of ["tomorrow", "", "2024/05/31"]) expect(v({ at: other }), other).toBe(true);
    expect(v({ at: "2099-02-30T10:00:00+05:00" })).toBe(false);
    expect((v as unknown as { errors: { instancePath: string; message: string }[] }).errors).toEqual([
      expect.objectContaining({ instancePath: "/at", message: expect.stringContaining("exists") }),
    ]);
  });
});
