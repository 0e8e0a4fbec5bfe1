// Every attempt's timeout on one timer of the runtime. A timer per attempt was the largest cost of
// the SDK's own on a call outside the HTTP: about 0.8 µs on Node, 2 µs on Deno (whose npm code gets
// Node's timers), against about 0.15 µs to add and remove a deadline here. The timer is armed for
// the earliest deadline waiting; when it fires, the deadlines due are fired and it is armed for the
// next. It keeps the process alive as each attempt's own timer did, while a deadline waits, and no
// longer: with nothing waiting it stays armed, unreferenced, for the next attempt.

/** A deadline waiting: `fire` runs once its time has come, unless it was stopped before. */
export interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

/** Node's and Bun's timers are objects with `ref`/`unref`; Deno's own are numbers it refs by id; a browser's need neither. */
type Timer = ReturnType<typeof setTimeout>;
type DenoTimers = { refTimer?(id: number): void; unrefTimer?(id: number): void };

const waiting = new Set<Deadline>();
let timer: Timer | undefined;
/** When the timer fires (Infinity when it is not armed). */
let armedAt = Number.POSITIVE_INFINITY;
let referenced = false;
/**
 * The `setTimeout` and `clearTimeout` the timer was armed with. Test code swaps them (fake timers):
 * a timer armed on a fake one never fires once the real ones are back, so a deadline started under
 * other timers than the armed one's arms the timer again, on them.
 */
let armedWith: { set: typeof setTimeout; clear: typeof clearTimeout } | undefined;

/** Runs `fire` after `ms`, unless `stopDeadline` comes first. */
export function startDeadline(ms: number, fire: () => void): Deadline {
  const deadline = { at: performance.now() + ms, fire };
  waiting.add(deadline);
  if (deadline.at < armedAt) arm(deadline.at, ms);
  else if (armedWith?.set !== setTimeout) arm(armedAt, Math.max(0, armedAt - performance.now()));
  else if (!referenced) reference(true);
  return deadline;
}

/** The deadline will not fire (if it has not already). */
export function stopDeadline(deadline: Deadline): void {
  if (waiting.delete(deadline) && waiting.size === 0) reference(false);
}

function arm(at: number, ms: number): void {
  if (timer !== undefined) armedWith!.clear(timer);
  armedAt = at;
  armedWith = { set: setTimeout, clear: clearTimeout };
  timer = setTimeout(expire, ms);
  referenced = true;
}

function reference(on: boolean): void {
  referenced = on;
  if (typeof timer === "object") {
    const t = timer as { ref?(): void; unref?(): void };
    if (on) t.ref?.();
    else t.unref?.();
  } else if (typeof timer === "number") {
    const deno = (globalThis as { Deno?: DenoTimers }).Deno;
    if (on) deno?.refTimer?.(timer);
    else deno?.unrefTimer?.(timer);
  }
}

function expire(): void {
  // Whatever the timer was armed for is due, by the timer's own account: a clock that lags it (one
  // frozen between a worker's I/O, a timer a fraction of a millisecond early) delays nothing.
  const now = Math.max(performance.now(), armedAt);
  timer = undefined;
  armedAt = Number.POSITIVE_INFINITY;
  referenced = false;
  const due: Deadline[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const deadline of waiting) {
    if (deadline.at <= now) due.push(deadline);
    else if (deadline.at < next) next = deadline.at;
  }
  // Armed before any fires: a deadline fired runs the caller's abort listeners, which may start or stop others.
  if (next !== Number.POSITIVE_INFINITY) arm(next, next - now);
  // One stopped by an earlier one's listeners (a late timer found both due) does not fire, as a cleared timer would not.
  for (const deadline of due) if (waiting.delete(deadline)) deadline.fire();
}
