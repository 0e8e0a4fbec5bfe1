// Codecs more than one interface needs. Each turns a caller's value into the wire form and
// refuses, with a reason, what it cannot turn; values already in wire form pass through to the
// spec's validator, which then names any problem with its path.
import { hasAtMostDecimals } from "../decimal.js";
import type { Codec } from "./codecs.js";
import { pad, wallClock } from "./zone.js";

/** Tenge with at most two decimals: a number or a decimal string ("100.50") becomes a JSON number. */
export const tengeCodec: Codec = {
  encode(value) {
    if (typeof value !== "number" && typeof value !== "string") return value;
    if (!hasAtMostDecimals(value, 2)) {
      throw new RangeError(
        `must be an amount in tenge with at most 2 decimal places (got ${JSON.stringify(typeof value === "number" ? String(value) : value)}); compute totals in tiyn`,
      );
    }
    // From 2^46 tenge on, neighbouring doubles are 1/64 apart, more than a tiyn: "80000000000000.01"
    // (or that number) would be sent as 80000000000000.02. Below it they are at most 1/128 apart, so
    // every amount of at most two decimals has a JSON number of its own, written back as given.
    const amount = typeof value === "number" ? value : Number(value);
    if (Math.abs(amount) >= 2 ** 46) throw new RangeError(`must be an amount a JSON number carries to the tiyn, below 2^46 tenge (got ${JSON.stringify(String(value))})`);
    return amount;
  },
};

/** An RFC 3339 date-time's fields (the spec's pattern is its shape, the validator checks that). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** True when the fields name a time that exists: no 30 February, no 24:00, no month 13 (the pattern lets them all through, and a service reading them with a lenient parser moves the date). */
function isRealDateTime(m: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second, offsetHours = 0, offsetMinutes = 0] = m.slice(1).map((v) => (v === undefined ? undefined : Number(v))) as number[];
  const leap = year! % 4 === 0 && (year! % 100 !== 0 || year! % 400 === 0);
  const daysInMonth = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month!) ? 30 : 31;
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour! <= 23 && minute! <= 59 && second! <= 59 && offsetHours <= 23 && offsetMinutes <= 59;
}

/** RFC 3339 date-times: a `Date` is written in the service's time zone with its offset (2024-05-31T12:00:00+05:00); a string must name a time that exists. */
export const rfc3339Codec: Codec = {
  encode(value, ctx) {
    if (typeof value === "string") {
      const m = RFC3339.exec(value);
      if (m && !isRealDateTime(m)) throw new RangeError(`is not a date and time that exists: ${JSON.stringify(value)}`);
      return value;
    }
    if (!(value instanceof Date)) return value;
    if (Number.isNaN(value.getTime())) throw new RangeError("is an invalid Date");
    const w = wallClock(value, ctx.timeZone);
    const offsetMin = Math.round((Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(value.getTime() / 1000) * 1000) / 60_000);
    const sign = offsetMin < 0 ? "-" : "+";
    const abs = Math.abs(offsetMin);
    return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
  },
  order(wire) {
    const t = typeof wire === "string" ? Date.parse(wire) : Number.NaN;
    if (Number.isNaN(t)) throw new RangeError("not a date");
    return t;
  },
};

/** A list sent as one comma-separated value (`companies=1,2,3`): an array becomes "1,2,3". */
export const commaListCodec: Codec = {
  encode(value) {
    if (!Array.isArray(value)) return value;
    for (const item of value) {
      if ((typeof item !== "number" && typeof item !== "string") || String(item).includes(",")) throw new TypeError("must list numbers or strings without commas");
    }
    return value.join(",");
  },
};
