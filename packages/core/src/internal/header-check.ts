// What a caller may put in `headers` (the client's or a call's). Checked before anything is sent,
// since both HTTP stacks refuse a header they cannot carry only when they send, after a journaled
// call's intent is written: a call believed perhaps sent that never was.

/** A header name is an HTTP token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A value is one line in Latin-1 without the C0 controls (tabs aside) and DEL: what HTTP can carry at all (0x80–0xFF are its obs-text). */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * Headers that frame the message or speak to the connection, which the HTTP stack sets: given by a
 * caller, a money call went out with `transfer-encoding: chunked` beside a `content-length`, the
 * shape of request smuggling (RFC 9112 §6.1), or to another `host` than its address, or asking a
 * proxy on the way to `upgrade` the connection.
 */
const STACK_MESSAGE = "is set by the HTTP stack, never by a caller";
const STACK_HEADERS = new Set([
  "connection",
  "content-length",
  "expect",
  "host",
  "http2-settings",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** What is wrong with each of `headers` (keyed by its name), none if all is well. */
export function headerIssues(headers: Record<string, unknown>): { name: string; message: string }[] {
  const issues: { name: string; message: string }[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || typeof value !== "string" || !HEADER_VALUE.test(value))
      issues.push({ name, message: "must be a header name with a value of one line of Latin-1 text" });
    else if (STACK_HEADERS.has(name.toLowerCase())) issues.push({ name, message: STACK_MESSAGE });
  }
  return issues;
}

/** Throws `error` for the first header the HTTP stack sets itself: in a hook's or a raw call's request, which no option check saw. */
export function refuseStackHeaders(headers: Record<string, string>, error: (name: string, message: string) => Error): void {
  for (const name of Object.keys(headers)) if (STACK_HEADERS.has(name.toLowerCase())) throw error(name, STACK_MESSAGE);
}
