// The order state machine of callbacks. No source shows the transitions between the callback
// statuses (spec `CallbackStatus`: 0 unsuccessful, 1 successful, 2 amount blocked, 3 cancelled or
// refunded), so this is the SDK's own reading of the flows the sources describe, written down in
// the spec's note: a blocked amount is approved, cancelled or refused; a payment is refunded; an
// unsuccessful attempt may be followed by another attempt; a cancellation is final. Unknown
// statuses (4, 5, 31 were seen) are never judged.

/** What each known status may become. A status may always repeat (a delivery again). */
const NEXT: Readonly<Record<number, readonly number[]>> = {
  0: [0, 1, 2],
  1: [1, 3],
  2: [0, 1, 2, 3],
  3: [3],
};

const FAILED = 0;

/** Whether the SDK knows the status (and so keeps it as an order's state). */
export const isKnownStatus = (status: number): boolean => Object.hasOwn(NEXT, status);

/** Whether an order whose last known status is `previous` (undefined: none) can report `status`. */
export function canFollow(previous: number | undefined, status: number): boolean {
  if (previous === undefined || !isKnownStatus(previous) || !isKnownStatus(status)) return true;
  return NEXT[previous]!.includes(status);
}

/**
 * Whether the status query's answer bears a callback out: it reports the callback's status, or one
 * the callback's status can become without a new attempt (a "paid" callback delivered after the
 * refund still happened). An unsuccessful attempt is borne out only by itself: what follows it is
 * another attempt, which says nothing of the earlier one.
 */
export function confirms(reported: number | undefined, callback: number): boolean {
  if (reported === callback) return true;
  return reported !== undefined && callback !== FAILED && isKnownStatus(callback) && isKnownStatus(reported) && NEXT[callback]!.includes(reported);
}
