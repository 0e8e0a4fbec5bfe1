// What callers may pass where a spec names a codec. The generated parameter types use these
// names, so they read the same in every client and in the API reference.

/** An amount in tenge: a number or a decimal string with at most two decimals ("100.50"). */
export type TengeInput = number | string;

/** A date-time: a `Date` (written in the service's time zone) or an RFC 3339 string. */
export type DateTimeInput = Date | string;

/** A list the service takes as one comma-separated value: an array, or the string itself. */
export type ListInput = readonly (number | string)[] | string;
