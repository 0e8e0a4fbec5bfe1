// `await using` support. Node 20.19 has Symbol.asyncDispose; where a runtime lacks it, the
// registered symbol is the one TypeScript's lowered `using` looks for.
export const asyncDispose: typeof Symbol.asyncDispose = Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");
