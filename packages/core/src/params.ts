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

/** Pattern codecs compiled once per operation table entry: encoding runs on every call. */
const compiledPatterns = new WeakMap<object, ReadonlyArray<readonly [RegExp, Codec]>>();
function compiled(patternCodecs: Readonly<Record<string, Codec>>): ReadonlyArray<readonly [RegExp, Codec]> {
  let list = compiledPatterns.get(patternCodecs);
  if (!list) {
    list = Object.entries(patternCodecs).map(([source, codec]) => [new RegExp(source), codec] as const);
    compiledPatterns.set(patternCodecs, list);
  }
  return list;
}

/**
 * Returns a copy of `params` with codecs applied. Only `Date` and boolean values are converted;
 * strings and numbers pass through, and the spec's validator then checks them with their full path.
 */
export function encodeParams(
  operation: string,
  params: Record<string, unknown>,
  codecs: Readonly<Record<string, Codec>>,
  options: EncodeOptions = {},
  patternCodecs?: Readonly<Record<string, Codec>>,
): Record<string, unknown> {
  const patterns = patternCodecs ? compiled(patternCodecs) : [];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) {
    const codec = codecs[key] ?? patterns.find(([re]) => re.test(key))?.[1];
    if (codec === "flag" && typeof value === "boolean") out[key] = value ? 1 : 0;
    else if (codec === "portal-date" && value instanceof Date) {
      try {
        out[key] = formatPortalDate(value, { timeZone: options.timeZone });
      } catch (e) {
        throw new RequestValidationError(operation, [{ path: `/${key}`, message: (e as Error).message }]);
      }
    } else out[key] = value;
  }
  return out;
}
