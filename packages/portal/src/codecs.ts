// The portal's codecs: dates in the service's zone (a calendar date is a whole day, so the end of a
// period is its last second) and v1's integer flags (`true`/`false` are sent as 1/0). Here and not in
// dates.ts: the client's entry exports the date helpers, so dates.ts is in a page's first load;
// the codecs are only the runtime's.
import type { Codec, CodecRegistry } from "@paysys/core/internal";
import { DIGITS, formatPortalDate, type PortalDateInput } from "./dates.js";

/**
 * The codec of portal dates: `bound` is the end of a period the date stands for when it is a whole day.
 * Wire values are wall-clock digits in one zone, so they are ordered by their digits (a day alone
 * reaching to its first or last second): no time-zone arithmetic on every call.
 */
function portalDateCodec(bound: "start" | "end"): Codec {
  return {
    encode: (value, ctx) => formatPortalDate(value as PortalDateInput, { timeZone: ctx.timeZone, bound }),
    // Wire values come from encode, which checked them; a value the caller passed with the
    // validator switched off is at worst ordered by its digits.
    order: (wire, b) => {
      const text = String(wire);
      if (!DIGITS.test(text)) throw new RangeError(`not a portal date: ${JSON.stringify(text)}`);
      return Number(text.length === 8 ? `${text}${b === "end" ? "235959" : "000000"}` : text);
    },
  };
}

/** A v1 flag: a boolean, or the integer the service takes (1 yes, 0 no). */
export type FlagInput = boolean | 0 | 1;

const flagCodec: Codec = {
  encode: (value) => (typeof value === "boolean" ? (value ? 1 : 0) : value),
};

export const portalCodecs = {
  "portal-date": portalDateCodec("start"),
  "portal-date-end": portalDateCodec("end"),
  flag: flagCodec,
} satisfies CodecRegistry;
