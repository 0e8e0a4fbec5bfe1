// The caller's logger, made unable to change what it watches.
import type { LogEvent } from "../call.js";

/**
 * The caller's logger with what it throws dropped, and what an async one rejects with too (an
 * unhandled rejection would end a Node process). A logger that threw had failed calls it only
 * watched, after their request was sent and answered (an idempotent one was even sent again, as if
 * the answer had been lost), and a callback receiver's acknowledgement, so the event came again.
 */
export function harmless(logger: (event: LogEvent) => void): (event: LogEvent) => void {
  return (event) => {
    try {
      const answer: unknown = logger(event);
      if (answer instanceof Promise) answer.catch(dropped);
    } catch {
      // The logger's own failure: nothing of the call's.
    }
  };
}
const dropped = () => {};
