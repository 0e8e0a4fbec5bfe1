// Node's builtins that its HTTP needs, when the runtime offers them (`process.getBuiltinModule`,
// Node 20.16+, so no bundler for a browser meets a `node:` import). Apart from http-node.ts so a
// client can tell at construction, without loading its HTTP, whether an `agent` can be used here.

/** The modules by their short names, or undefined when the runtime lacks one of them. */
export function nodeBuiltins(): Record<"http" | "https" | "stream" | "zlib" | "tls", unknown> | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  if (typeof get !== "function") return undefined;
  const [http, https, stream, zlib, tls] = ["node:http", "node:https", "node:stream", "node:zlib", "node:tls"].map((id) => get(id));
  return http && https && stream && zlib && tls ? { http, https, stream, zlib, tls } : undefined;
}
