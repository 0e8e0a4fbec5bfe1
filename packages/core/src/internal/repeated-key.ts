// A JSON answer that gives one key twice in an object: `JSON.parse` keeps the last value, so
// `{"id":"p-1","error":"declined","error":null}` reads as a payment made without an error. Which of
// the values the service meant is unknown, so the answers that are checked against the spec (those
// of money operations, by default) are refused when they repeat a key.

/**
 * The first key an object of a JSON text repeats (as `JSON.parse` reads keys: `"a"` and `"\u0061"`
 * are one), or undefined; `parsed` is what `JSON.parse` made of the text. Most texts repeat no key,
 * and that is known at a lower cost than naming one (0.9 of the parse's time against 1.3 on a
 * callback's body): every key of the text ends in a quote (not escaped) and a colon, so when the text
 * has no more such ends than the parsed value has keys, no key was given twice. A string value that
 * begins with a colon counts as an end too: then the text is read key by key, which names the key.
 */
export function repeatedKey(text: string, parsed: unknown): string | undefined {
  let ends = 0;
  KEY_END.lastIndex = 0;
  for (let m = KEY_END.exec(text); m; m = KEY_END.exec(text)) if (m[1]!.length % 2 === 0) ends++;
  return ends === keysIn(parsed) ? undefined : firstRepeatedKey(text);
}

/** A quote after a run of backslashes, then a colon: a key's end where the run is even (an odd run escapes the quote). */
const KEY_END = /(\\*)"[ \t\n\r]*:/g;

/** How many keys a parsed value's objects have, at any depth (without recursion: a deep text cannot overflow the stack). */
function keysIn(value: unknown): number {
  let keys = 0;
  const objects: object[] = [];
  const visit = (v: unknown) => {
    if (v !== null && typeof v === "object") objects.push(v);
  };
  visit(value);
  for (let o = objects.pop(); o !== undefined; o = objects.pop()) {
    if (Array.isArray(o)) for (const item of o) visit(item);
    else
      for (const k in o) {
        keys++;
        visit((o as Record<string, unknown>)[k]);
      }
  }
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
