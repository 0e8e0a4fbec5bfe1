// `await using` support. Node 20.19 has Symbol.asyncDispose; where a runtime lacks it, the
// registered symbol is the one TypeScript's lowered `using` looks for.
// Marked pure so a bundle that never uses it drops it (core's first layer is one file: src/first-load.ts).
export const asyncDispose: typeof Symbol.asyncDispose = /* @__PURE__ */ ((): typeof Symbol.asyncDispose =>
  (Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose")) as typeof Symbol.asyncDispose)();
