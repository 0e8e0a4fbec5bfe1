// An answer that gives a key twice in one object is not taken for what JSON.parse makes of it (the
// last value) where answers are checked: `{"error":"declined","error":null}` read as no error.
import { describe, expect, it } from "vitest";
import { repeatedKey } from "../src/internal/repeated-key.js";

describe("repeatedKey", () => {
  it("finds a key given twice in one object, at any depth, as JSON.parse reads keys", () => {
    expect(repeatedKey('{"id":"p-1","error":"declined","error":null}')).toBe("error");
    expect(repeatedKey('{"a":[{"x":1},{"y":{"z":1,"z":2}}]}')).toBe("z");
    expect(repeatedKey('{"a":1,"\\u0061":2}')).toBe("a");
    expect(repeatedKey('[{"k":1,"k":1}]')).toBe("k");
  });

  it("finds none where every object names each key once: siblings, arrays, and braces, quotes or commas inside strings", () => {
    expect(repeatedKey('{"a":{"k":1},"b":{"k":2},"c":[{"k":3},{"k":4}]}')).toBeUndefined();
    expect(repeatedKey('{"a":"{\\"a\\":1,","b":"[\\"a\\"]","c":"a,b"}')).toBeUndefined();
    expect(repeatedKey('{"list":["a","a",{"a":1}],"a":2}')).toBeUndefined();
    expect(repeatedKey('"a"')).toBeUndefined();
    expect(repeatedKey("{}")).toBeUndefined();
  });
});
