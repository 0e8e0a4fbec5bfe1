// Encoding of caller parameters into wire values, driven by the codecs of the operation table:
// `Date` → the service's date string, `true`/`false` → 1/0 where the spec says the flag is an integer.
import { type DateInput, formatPortalDate } from "./dates.js";
import { RequestValidationError } from "./errors.js";
import type { Codec } from "./operation.js";

/**
 * The caller-facing type of wire parameters `T`: date keys also take a `Date`, flag keys also take
 * `true`/`false`. Optional keys stay optional; open objects stay open.
 */
export type WithCodecs<T, DateKeys extends PropertyKey, FlagKeys extends PropertyKey> = {
  [K in keyof T]: K extends DateKeys ? DateInput : K extends FlagKeys ? boolean | T[K] : T[K];
};

export interface EncodeOptions {
  timeZone?: string;
}

/** Returns a copy of `params` with codecs applied; values that are already wire values pass through. */
export function encodeParams(operation: string, params: Record<string, unknown>, codecs: Readonly<Record<string, Codec>>, options: EncodeOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = { ...params };
  for (const [key, codec] of Object.entries(codecs)) {
    const value = out[key];
    if (value === undefined) continue;
    if (codec === "flag" && typeof value === "boolean") out[key] = value ? 1 : 0;
    if (codec === "portal-date" && (value instanceof Date || typeof value === "string")) {
      try {
        out[key] = formatPortalDate(value as DateInput, { timeZone: options.timeZone });
      } catch (e) {
        throw new RequestValidationError(operation, [{ path: `/${key}`, message: (e as Error).message }]);
      }
    }
  }
  return out;
}
