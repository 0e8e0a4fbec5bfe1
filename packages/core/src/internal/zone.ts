// Wall-clock time in a time zone, with Intl doing the arithmetic, so the host's own TZ never
// enters. Shared by the RFC 3339 codec here and the portal's date codec.

export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of an instant in a time zone. */
export function wallClock(date: Date, timeZone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(date)) {
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  }
  return parts as unknown as WallClock;
}

/** The zone's offset from UTC at an instant, in ms. */
export function offsetAt(instant: number, timeZone: string): number {
  const w = wallClock(new Date(instant), timeZone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(instant / 1000) * 1000;
}

/**
 * The instant a wall-clock time names in a zone. A time that occurs twice (a fall-back) gives the
 * earlier instant; one that does not occur (a spring-forward gap) gives the instant one gap later.
 */
export function instantOf(w: WallClock, timeZone: string): number {
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  // Zones change offset at most once in any two days, so the offsets a day before and a day after
  // are the only candidates; a candidate is exact when the zone really has that offset then.
  const DAY = 86_400_000;
  const before = offsetAt(asUtc - DAY, timeZone);
  const after = offsetAt(asUtc + DAY, timeZone);
  const exact = [asUtc - before, asUtc - after].filter((t) => offsetAt(t, timeZone) === asUtc - t).sort((a, b) => a - b);
  return exact[0] ?? asUtc - before;
}

export const pad = (n: number, width = 2): string => String(n).padStart(width, "0");
