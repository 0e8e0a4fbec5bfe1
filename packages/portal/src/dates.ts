// Portal dates: `yyyyMMddHHmmss` / `yyyyMMdd` on the wire, in the service's time zone (an option;
// Asia/Almaty by default), never the host's zone by accident.
//
// Callers say what they mean:
// - a calendar date (`"2024-05-01"` or `{ year: 2024, month: 5, day: 1 }`) is a whole day in the
//   service's zone: as the start of a period it is 00:00:00, as the end 23:59:59;
// - a `Date` is an instant, written as the wall-clock time it is in the service's zone;
// - a string of 8 or 14 digits is already the service's own form and is sent as it is.
// `new Date("2024-05-01")` is UTC midnight, 05:00 in Almaty: a period built from it silently drops
// the first hours of the day, which is why calendar dates exist.
import { InvalidArgumentError } from "@paysys/core/calls";
import { instantOf, pad, shownValue, wallClock } from "@paysys/core/helpers";

export const DEFAULT_TIME_ZONE = "Asia/Almaty";

/** A day of the calendar, in the service's time zone. */
export interface CalendarDate {
  year: number;
  /** 1–12. */
  month: number;
  /** 1–31. */
  day: number;
}

/**
 * What callers may pass for a portal date: a calendar date (`"2024-05-01"` or `{ year, month, day }`,
 * the whole day), a `Date` (an instant), or the service's own `yyyyMMdd` / `yyyyMMddHHmmss` digits.
 */
export type PortalDateInput = CalendarDate | Date | string;

/** The service's own form: `yyyyMMdd` or `yyyyMMddHHmmss`. */
export const DIGITS = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?$/;
const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const EXPECTED = 'expected yyyyMMdd or yyyyMMddHHmmss digits, a calendar date ("2024-05-01" or { year, month, day }) or a Date';

/**
 * The years a portal date can carry: the wire writes four digits, so not past 9999; and not below
 * 100, where a two-digit year is a mistake (24 is not 2024).
 */
const inYears = (year: number) => year >= 100 && year <= 9999;
/** A month's last day (month 1–12): its length in days, by the calendar's own rules (years from 100) and without a `Date` made. */
const lastDay = (year: number, month: number) => (Date.UTC(year, month, 1) - Date.UTC(year, month - 1, 1)) / 864e5;

/** A date and time that exist on the calendar, in the years a portal date carries (this runs for every date of every call). */
function isRealTime(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  // Hours, minutes and seconds come from digits or are 0: only their upper bounds can fail.
  return inYears(y) && mo >= 1 && mo <= 12 && d >= 1 && d <= lastDay(y, mo) && h <= 23 && mi <= 59 && s <= 59;
}

/** True when the string is a valid `yyyyMMddHHmmss` or `yyyyMMdd` calendar value. */
export function isPortalDate(value: string): boolean {
  const m = typeof value === "string" ? DIGITS.exec(value) : null;
  if (!m) return false;
  const n = (i: number) => (m[i] === undefined ? undefined : Number(m[i]));
  return isRealTime(Number(m[1]), Number(m[2]), Number(m[3]), n(4), n(5), n(6));
}

/** Reads `"2024-05-01"` or `{ year, month, day }` as a calendar date; undefined for anything else. */
function calendarDate(value: unknown): CalendarDate | undefined {
  if (typeof value === "string") {
    const m = ISO_DAY.exec(value);
    return m ? { year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) } : undefined;
  }
  if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    const { year, month, day } = value as Partial<CalendarDate>;
    // Three integers and no other key: another (`hour`) is a time the caller meant, which a whole day would silently widen.
    if (Number.isInteger(year) && Number.isInteger(month) && Number.isInteger(day) && Object.keys(value).length === 3) return { year: year!, month: month!, day: day! };
  }
  return undefined;
}

/** Runs `f` in the time zone a helper was given: an unknown zone is an InvalidArgumentError that names the helper, never a bare RangeError from Intl. */
function inZone<T>(helper: string, timeZone: unknown, f: (zone: string) => T): T {
  const refuse = () => new InvalidArgumentError(helper, `not an IANA time zone: ${shownValue(timeZone)}`, "/timeZone");
  if (timeZone !== undefined && typeof timeZone !== "string") throw refuse();
  try {
    return f(timeZone ?? DEFAULT_TIME_ZONE);
  } catch (e) {
    throw e instanceof RangeError ? refuse() : e;
  }
}

export interface DateFormatOptions {
  timeZone?: string;
  /** For a calendar date: the start of the day (00:00:00, default) or its end (23:59:59). */
  bound?: "start" | "end";
}

/**
 * Renders a date for the portal: a calendar date as the start (or end) of that day, a `Date` as
 * its wall-clock time in the service's zone, the service's own digits unchanged (after checking).
 */
export function formatPortalDate(value: PortalDateInput, options: DateFormatOptions = {}): string {
  const fail = (message: string) => new InvalidArgumentError("formatPortalDate", message);
  if (typeof value === "string" && isPortalDate(value)) return value;
  if (typeof value === "string" && DIGITS.test(value)) throw fail(`not a real date or time: ${JSON.stringify(value)}`);
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw fail("an invalid Date");
    const w = inZone("formatPortalDate", options?.timeZone, (zone) => wallClock(value, zone));
    // Before year 1 the zone's calendar counts years of an era backwards (1 BC is "1"): refused, not misread.
    if (value.getUTCFullYear() < 1 || !inYears(w.year)) throw fail("a Date outside the years 100–9999");
    return `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
  }
  const day = calendarDate(value);
  if (!day) throw fail(`${EXPECTED} (got ${shownValue(value)})`);
  if (!isRealTime(day.year, day.month, day.day)) throw fail(`not a real day: ${day.year}-${pad(day.month)}-${pad(day.day)}`);
  return `${pad(day.year, 4)}${pad(day.month)}${pad(day.day)}${options?.bound === "end" ? "235959" : "000000"}`;
}

/**
 * Reads a portal date as the instant it names in the service's time zone. A day without a time is
 * its first second, or with `bound: "end"` its last (the second before the next day begins). For a
 * wall-clock time that occurs twice (a DST fall-back), the earlier instant; for one that does not
 * occur, the instant one gap later.
 */
export function parsePortalDate(value: string, timeZone: string = DEFAULT_TIME_ZONE, bound: "start" | "end" = "start"): Date {
  const m = typeof value === "string" ? DIGITS.exec(value) : null;
  if (!m || !isPortalDate(value)) throw new InvalidArgumentError("parsePortalDate", `not a yyyyMMddHHmmss or yyyyMMdd date: ${shownValue(value)}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // A day's end is the second before the next day begins (Date.UTC carries the day over): where
  // clocks go back at midnight, 23:59:59 comes twice, and the later one ends the day (Almaty's
  // 29 February 2024 had 25 hours).
  const end = m[4] === undefined && bound === "end" ? 1 : 0;
  const [hour, minute, second] = m[4] === undefined ? [0, 0, 0] : [Number(m[4]), Number(m[5]), Number(m[6])];
  return new Date(inZone("parsePortalDate", timeZone, (zone) => instantOf({ year, month, day: day + end, hour, minute, second }, zone)) - end * 1000);
}

/** A period of whole days, inclusive at both ends, in the service's time zone. */
export interface Period {
  dateFrom: CalendarDate;
  dateTo: CalendarDate;
}

function day(helper: string, value: CalendarDate | string): CalendarDate {
  const d = calendarDate(value);
  if (!d || !isRealTime(d.year, d.month, d.day)) throw new InvalidArgumentError(helper, `not a calendar date: ${shownValue(value)}`);
  return d;
}

/**
 * Periods of whole days, to spread into report parameters:
 * `portal.reports.payments({ ...period.month(2024, 5), subOn: true })`.
 */
export const period = {
  /** One calendar month: its first day to its last. */
  month(year: number, month: number): Period {
    if (!Number.isInteger(year) || !inYears(year) || !Number.isInteger(month) || month < 1 || month > 12)
      throw new InvalidArgumentError("period.month", `not a month: ${shownValue(year)}-${shownValue(month)}`);
    return { dateFrom: { year, month, day: 1 }, dateTo: { year, month, day: lastDay(year, month) } };
  },
  /** One day, whole. */
  day(date: CalendarDate | string): Period {
    const d = day("period.day", date);
    return { dateFrom: d, dateTo: d };
  },
  /** From the first day to the last, both whole. Refuses a reversed range. */
  days(from: CalendarDate | string, to: CalendarDate | string): Period {
    const a = day("period.days", from);
    const b = day("period.days", to);
    if (Date.UTC(a.year, a.month - 1, a.day) > Date.UTC(b.year, b.month - 1, b.day)) throw new InvalidArgumentError("period.days", "the first day is after the last");
    return { dateFrom: a, dateTo: b };
  },
};
