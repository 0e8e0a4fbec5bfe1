// An answer that gives a key twice in one object is not taken for what JSON.parse makes of it (the
// last value) where answers are checked: `{"error":"declined","error":null}` read as no error.
import { describe, expect, it } from "vitest";
import { hiddenInText } from "../src/internal/repeated-key.js";

const repeated = (text: string) => hiddenInText(text, JSON.parse(text))?.key;

describe("repeatedKey", () => {
  it("finds a key given twice in one object, at any depth, as JSON.parse reads keys", () => {
    expect(repeated('{"id":"p-1","error":"declined","error":null}')).toBe("error");
    expect(repeated('{"a":[{"x":1},{"y":{"z":1,"z":2}}]}')).toBe("z");
    expect(repeated('{"a":1,"\\u0061":2}')).toBe("a");
    expect(repeated('[{"k":1,"k":1}]')).toBe("k");
    expect(repeated('{"__proto__":1,"__proto__":2}')).toBe("__proto__");
    expect(repeated('{"s" : "\\\\", "s" :1}')).toBe("s");
  });

  it("finds none where every object names each key once: siblings, arrays, and braces, quotes, colons or commas inside strings", () => {
    expect(repeated('{"a":{"k":1},"b":{"k":2},"c":[{"k":3},{"k":4}]}')).toBeUndefined();
    expect(repeated('{"a":"{\\"a\\":1,","b":"[\\"a\\"]","c":"a,b"}')).toBeUndefined();
    expect(repeated('{"list":["a","a",{"a":1}],"a":2}')).toBeUndefined();
    expect(repeated('"a"')).toBeUndefined();
    expect(repeated("{}")).toBeUndefined();
    // A value that begins with a colon looks like a key's end to the count: the text is then read key by key.
    expect(repeated('{"a":":","b":" :"}')).toBeUndefined();
    expect(repeated('{"a":"\\\\\\":x","b":1}')).toBeUndefined();
  });

  it("reads long strings in one pass: 256 kB of escaped backslashes (a callback's limit; a backtracking pattern took seconds) and a 20 MB string", () => {
    const escapes = `{"a":"${"\\\\".repeat(128 * 1024)}","a":1}`;
    expect(repeated(escapes)).toBe("a");
    expect(repeated(`{"a":"${"x".repeat(20_000_000)}","b":1}`)).toBeUndefined();
  });

  it("counts a parsed object's own keys only: an enumerable key added to Object.prototype hides no repeated key", () => {
    Object.defineProperty(Object.prototype, "polluted", { value: 1, enumerable: true, configurable: true, writable: true });
    let found: string | undefined;
    try {
      found = repeated('{"status":"declined","status":"paid"}');
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
    expect(found).toBe("status");
  });

  it("reads a text nested deeper than the stack allows a recursion", () => {
    const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    expect(repeated(deep)).toBeUndefined();
    expect(repeated(`{"b":1,"x":${deep},"b":2}`)).toBe("b");
  });
});

describe("hiddenInText: numbers JSON.parse cannot read exactly", () => {
  const hidden = (text: string) => hiddenInText(text, JSON.parse(text));
  it("names an integer past 2^53, a number out of range and one that underflows; strings and exact numbers pass", () => {
    expect(hidden('{"id":9007199254740993}')?.number).toBe("9007199254740993");
    expect(hidden('{"a":[1,-12345678901234567891]}')?.number).toBe("-12345678901234567891");
    expect(hidden('{"amount":1e400}')?.number).toBe("1e400");
    expect(hidden('{"amount":1.5e-400}')?.number).toBe("1.5e-400");
    for (const fine of ['{"id":9007199254740991}', '{"x":1e20,"y":0e5,"z":0.1234567890123456789}', '{"s":"9007199254740993 1e400"}', '{"t":true,"f":false}']) {
      expect(hidden(fine), fine).toBeUndefined();
    }
  });
});

describe("hiddenInText reads the text's UTF-8 bytes as it reads the text", () => {
  const utf8 = new TextEncoder();
  const cases = [
    '{"сообщение":"Заголовок не содержит Uid","Σ":1}',
    '{"Σ":1,"Σ":2}',
    '{"ключ":"€","n":9007199254740993}',
    '{"a":"😀\\"","b":1e400,"c":"9007199254740993"}',
    '["€1","€",12345678901234567890]',
  ];
  it.each(cases)("%s: the same answer from the text alone, its bytes, and its bytes after a byte-order mark", (text) => {
    const parsed = JSON.parse(text);
    const alone = hiddenInText(text, parsed);
    expect(hiddenInText(text, parsed, utf8.encode(text))).toEqual(alone);
    expect(hiddenInText(text, parsed, new Uint8Array([0xef, 0xbb, 0xbf, ...utf8.encode(text)]))).toEqual(alone);
  });
  it("finds what is there in them", () => {
    expect(hiddenInText(cases[1]!, JSON.parse(cases[1]!))?.key).toBe("Σ");
    expect(hiddenInText(cases[2]!, JSON.parse(cases[2]!))?.number).toBe("9007199254740993");
    expect(hiddenInText(cases[3]!, JSON.parse(cases[3]!))?.number).toBe("1e400");
    expect(hiddenInText(cases[0]!, JSON.parse(cases[0]!))).toBeUndefined();
  });
});
