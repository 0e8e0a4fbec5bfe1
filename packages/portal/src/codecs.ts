// The portal's codecs: dates in the service's zone (a calendar date is a whole day, so the end of a
// period is its last second) and v1's integer flags (`true`/`false` are sent as 1/0).
import type { Codec, CodecRegistry } from "@paysys/core/internal";
import { portalDateCodec } from "./dates.js";

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
