// Redaction: secrets never reach a log line or an error message. Two complementary ways:
// by key (a structured value: any property whose name the spec marks x-sensitive) and by value
// (free text such as a body excerpt: every secret string known to be in play is cut out).

export const REDACTED = "[REDACTED]";

/** Header names that always carry credentials. */
const sensitiveHeaders = new Set(["authorization", "cookie", "set-cookie", "proxy-authorization"]);

/** Returns a deep copy with the values of sensitive keys replaced. */
export function redactValue(value: unknown, sensitiveKeys: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) return value.map((v) => redactValue(v, sensitiveKeys));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = sensitiveKeys.has(k) ? REDACTED : redactValue(v, sensitiveKeys);
  }
  return out;
}

/** Returns the headers as a plain object with credential headers replaced. */
export function redactHeaders(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((v, k) => {
    out[k] = sensitiveHeaders.has(k.toLowerCase()) ? REDACTED : v;
  });
  return out;
}

/** Collects the string values of sensitive keys anywhere in a value (to scrub them from text later). */
export function collectSecrets(value: unknown, sensitiveKeys: ReadonlySet<string>, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const v of value) collectSecrets(v, sensitiveKeys, into);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (sensitiveKeys.has(k) && typeof v === "string" && v.length > 0) into.add(v);
      else collectSecrets(v, sensitiveKeys, into);
    }
  }
  return into;
}

/** Cuts every known secret out of a text. Short values (< 4 chars) are cut too: a captcha is short. */
export function scrub(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) {
    if (s) out = out.split(s).join(REDACTED);
  }
  return out;
}
