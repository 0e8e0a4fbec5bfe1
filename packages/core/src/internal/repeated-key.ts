// A JSON answer that gives one key twice in an object: `JSON.parse` keeps the last value, so
// `{"id":"p-1","error":"declined","error":null}` reads as a payment made without an error. Which of
// the values the service meant is unknown, so the answers that are checked against the spec (those
// of money operations, by default) are refused when they repeat a key.

/** Strings to bytes for the scan, where a caller has only the text (a callback's body given as a string). */
const utf8 = new TextEncoder();

/**
 * What a JSON text says that the value `JSON.parse` made of it hides: a key given twice in one
 * object (as `JSON.parse` reads keys: `"a"` and `"\u0061"` are one), or a number it could not read exactly: an integer past 2^53 rounded (an
 * id of 9007199254740993 read as ...992: another payment's), `1e400` read as Infinity, `1e-400` as 0.
 * Both are found with the text's strings taken out, in one pass for most texts: a text has one
 * colon per key it writes, so when the parsed value has as many keys, no key was given twice;
 * otherwise the text is read key by key, which names the key. `bytes`: the text as UTF-8, where the
 * caller has it (an answer's body), else it is encoded here.
 */
export function hiddenInText(text: string, parsed: unknown, bytes: Uint8Array = utf8.encode(text)): { key?: string; number?: string } | undefined {
  const { keys, suspect } = scanOutsideStrings(bytes);
  const key = keys === keysIn(parsed) ? undefined : firstRepeatedKey(text);
  const number = suspect ? inexactNumber(textOutsideStrings(text)) : undefined;
  return key === undefined && number === undefined ? undefined : { key, number };
}

/**
 * One pass over a JSON text (one `JSON.parse` took), as its UTF-8 bytes, its strings skipped: the
 * colons outside them (one per key written) and whether a number there looks as `SUSPECT` says. A
 * text's strings never touch a digit in valid JSON, so skipping them finds what the pattern finds on
 * the text without them; and it makes no copy of the text (the copy was a fifth of what a callback's
 * checks cost). Bytes, not `charCodeAt`: every character the scan looks for is ASCII, which UTF-8
 * writes as itself and never inside another character's bytes; and a string loop slows down six to
 * ten times in a process where any class extends `String` (node-redis's client has one: a user of
 * @paysys/store-redis), a byte loop does not.
 */
function scanOutsideStrings(text: Uint8Array): { keys: number; suspect: boolean } {
  let keys = 0;
  let digits = 0;
  let suspect = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text[i]!;
    if (c === 0x22) {
      for (i++; i < n && text[i] !== 0x22; i++) if (text[i] === 0x5c) i++;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (++digits >= 16) suspect = true;
    } else {
      if ((c === 0x65 || c === 0x45) && digits > 0) suspect = true;
      else if (c === 0x3a) keys++;
      digits = 0;
    }
  }
  return { keys, suspect };
}

/** The text with its strings taken out, for the numbers in it; a string of more escapes than the pattern's stack holds leaves the whole text. */
function textOutsideStrings(text: string): string {
  try {
    return text.replace(STRING, "");
  } catch {
    return text;
  }
}

/** A number JSON writes with an exponent or with 16 digits in a row: only such a one can be read inexactly. */
const SUSPECT = /\d[eE]|\d{16}/;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** The first number of a text (its strings taken out) that `JSON.parse` reads as another: past 2^53 in digits, out of range with an exponent. */
function inexactNumber(outside: string): string | undefined {
  if (!SUSPECT.test(outside)) return undefined;
  for (const [token] of outside.matchAll(NUMBER)) {
    const n = Number(token);
    const exponent = /[eE]/.test(token);
    if (!Number.isFinite(n) || (!exponent && Math.abs(n) > Number.MAX_SAFE_INTEGER) || (exponent && n === 0 && /[1-9]/.test(token.split(/[eE]/)[0]!))) return token;
  }
  return undefined;
}

/**
 * A JSON string, whole: runs of plain characters between escapes, so a match never backtracks (a
 * pattern that did took 5 s on 80 kB of backslashes: any sender's callback) and a long string is
 * one loop, not one step per character. Outside the strings, a JSON text's colons are its keys'.
 */
const STRING = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

/**
 * How many keys a parsed value's objects have, at any depth: their own (one an extension of
 * Object.prototype adds is none). Past a depth no answer nests to, NaN: the text is read key by
 * key then (which recurses nowhere), not the stack overflowed.
 */
function keysIn(value: unknown, depth = 0): number {
  if (value === null || typeof value !== "object") return 0;
  if (depth > 256) return Number.NaN;
  let keys = 0;
  if (Array.isArray(value)) {
    for (const item of value) keys += keysIn(item, depth + 1);
    return keys;
  }
  for (const k in value) if (Object.hasOwn(value, k)) keys += 1 + keysIn((value as Record<string, unknown>)[k], depth + 1);
  return keys;
}

/** The first repeated key, read key by key: one set of names per object open. */
function firstRepeatedKey(text: string): string | undefined {
  // One set of keys per object open at this point of the text; undefined for an array.
  const open: (Set<string> | undefined)[] = [];
  let atKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i + 1;
      let escaped = false;
      for (; text.charCodeAt(end) !== 0x22; end++) {
        if (text.charCodeAt(end) === 0x5c) {
          end++;
          escaped = true;
        }
      }
      if (atKey) {
        const key: string = escaped ? JSON.parse(text.slice(i, end + 1)) : text.slice(i + 1, end);
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return key;
        keys.add(key);
        atKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      open.push(new Set());
      atKey = true;
    } else if (c === 0x5b) open.push(undefined);
    else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x2c) atKey = open[open.length - 1] !== undefined;
  }
  return undefined;
}
