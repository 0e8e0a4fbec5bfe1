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

/**
 * RFC 3339 date-times: a `Date` is written in the service's time zone with its offset
 * (2024-05-31T12:00:00+05:00). A string goes as given: the spec's validator checks its shape, and
 * that it names a time that exists (`x-calendar`).
 */
export const rfc3339Codec: Codec = {
  encode(value, ctx) {
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
