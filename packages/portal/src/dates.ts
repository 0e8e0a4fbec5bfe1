// Portal dates: `yyyyMMddHHmmss` / `yyyyMMdd` on the wire, rendered in the service's time zone
// (an option; Asia/Almaty by default), never in the host's zone by accident. Intl does the
// time-zone arithmetic, so the host's own TZ setting never enters.

export const DEFAULT_TIME_ZONE = "Asia/Almaty";

/** What callers may pass for a portal date: a `Date` or an already formatted string. */
export type DateInput = Date | string;

const DATE_TIME = /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?$/;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Wall-clock fields of an instant in a time zone. */
function wallClock(date: Date, timeZone: string): Record<"year" | "month" | "day" | "hour" | "minute" | "second", number> {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(date)) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return parts as ReturnType<typeof wallClock>;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** True when the string is a valid `yyyyMMddHHmmss` or `yyyyMMdd` calendar value. */
export function isPortalDate(value: string): boolean {
  const m = DATE_TIME.exec(value);
  if (!m) return false;
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const probe = new Date(Date.UTC(y!, mo! - 1, d!, h, mi, s));
  return (
    probe.getUTCFullYear() === y &&
    probe.getUTCMonth() === mo! - 1 &&
    probe.getUTCDate() === d &&
    probe.getUTCHours() === h &&
    probe.getUTCMinutes() === mi &&
    probe.getUTCSeconds() === s
  );
}

export interface DateFormatOptions {
  timeZone?: string;
  /** `second` → yyyyMMddHHmmss (default), `day` → yyyyMMdd. */
  precision?: "second" | "day";
}

/**
 * Renders a date for the portal. A string is checked and passed through unchanged, so a caller
 * who already holds a service-formatted value keeps full control.
 */
export function formatPortalDate(value: DateInput, options: DateFormatOptions = {}): string {
  if (typeof value === "string") {
    if (!isPortalDate(value)) throw new RangeError(`not a yyyyMMddHHmmss or yyyyMMdd date: ${JSON.stringify(value)}`);
    return value;
  }
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new RangeError("not a valid Date");
  const w = wallClock(value, options.timeZone ?? DEFAULT_TIME_ZONE);
  const day = `${pad(w.year, 4)}${pad(w.month)}${pad(w.day)}`;
  return options.precision === "day" ? day : `${day}${pad(w.hour)}${pad(w.minute)}${pad(w.second)}`;
}

/**
 * Reads a portal date as the instant it names in the service's time zone. For a wall-clock time
 * that occurs twice (a DST fall-back), the earlier instant is returned; for one that does not
 * occur (a spring-forward gap), the instant one gap later.
 */
export function parsePortalDate(value: string, timeZone: string = DEFAULT_TIME_ZONE): Date {
  const m = DATE_TIME.exec(value);
  if (!m || !isPortalDate(value)) throw new RangeError(`not a yyyyMMddHHmmss or yyyyMMdd date: ${JSON.stringify(value)}`);
  const [y, mo, d, h = 0, mi = 0, s = 0] = m.slice(1).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const asUtc = Date.UTC(y!, mo! - 1, d!, h, mi, s);
  const offsetAt = (t: number) => {
    const w = wallClock(new Date(t), timeZone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - t;
  };
  // Zones change offset at most once in any two days, so the offsets a day before and a day
  // after are the only candidates; a candidate is exact when the zone really has that offset then.
  const DAY = 86_400_000;
  const before = offsetAt(asUtc - DAY);
  const after = offsetAt(asUtc + DAY);
  const exact = [asUtc - before, asUtc - after].filter((t) => offsetAt(t) === asUtc - t).sort((a, b) => a - b);
  // No exact candidate: the wall time falls in a spring-forward gap; take the offset before it.
  return new Date(exact[0] ?? asUtc - before);
}
