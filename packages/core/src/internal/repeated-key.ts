// A JSON answer that gives one key twice in an object: `JSON.parse` keeps the last value, so
// `{"id":"p-1","error":"declined","error":null}` reads as a payment made without an error. Which of
// the values the service meant is unknown, so the answers that are checked against the spec (those
// of money operations, by default) are refused when they repeat a key.

/** The first key an object of a JSON text repeats (as `JSON.parse` reads keys: `"a"` and `"\u0061"` are one), or undefined. The text is JSON. */
export function repeatedKey(text: string): string | undefined {
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
