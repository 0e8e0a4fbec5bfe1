// Writing a JSON pointer, apart from pointer.ts (reading and placing by pointers, the runtime's) so
// the checks a client makes at construction can name a path without loading the rest.

/** A JSON pointer (RFC 6901) from its keys: `["params", "a/b"]` → `/params/a~1b`. */
export const pointerOf = (keys: readonly PropertyKey[]): string => keys.map((k) => `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
