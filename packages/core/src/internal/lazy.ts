// A client as a thin shell over its runtime. A page that makes a client and calls it later should
// not load the invoker, the codecs, openapi-fetch and the operation tables before that first call
// (they were ~30 kB min+gz of a fiscal page's first load; the shell is a few kB). So the client's
// factory checks the options at once (construction.ts: the same errors as ever, at construction)
// and returns this shell; its first call `import()`s the runtime, builds the real client once and
// every call after that goes straight to it. What is synchronous on a client stays so: values
// (`version`) and getters (`signedIn`) answer what the shell knows until the runtime is there,
// `raw.use`/`raw.eject` keep the middleware until then, and the rest are methods returning promises.
// Closing a shell that was never called loads nothing: there is nothing to release yet, and a call
// after it builds the runtime closed, so it answers as a closed client always did.
import type { Middleware } from "openapi-fetch";
import type { ClientJournal, JournalRef } from "./client-journal.js";
import { type ClientChecks, checkConstruction } from "./construction.js";
import { asyncDispose } from "./dispose.js";
import { snapshotCall } from "./snapshot.js";

/** What a shell needs of its client. */
export interface ShellParts<C extends object, O extends object> extends ClientChecks {
  /** The options as the caller gave them. */
  options: O;
  /** Runs after the common checks: what the client's own options must be (also at construction). */
  check?: (options: O) => void;
  /** The client's own methods beside the generated ones (`close`, `signIn`, `Symbol.asyncDispose`). */
  methods: readonly PropertyKey[];
  /** Operation ids whose method is there but not listed (portal v1's `user.me`, which says why it refuses). */
  hidden?: readonly string[];
  /** Operation ids the client has no method for (cash-out's `auth.authorize`: the client authorizes by itself). */
  omitted?: readonly string[];
  /** Its values and getters, with what they read before the runtime is loaded (`signedIn: false`). */
  values?: Readonly<Record<string, unknown>>;
  /** Whether it has a `journal` (every client whose spec journals an operation). */
  journal?: boolean;
  /** Imports the runtime and builds the real client over the checked options. */
  load: (options: O) => Promise<C>;
}

type Any = Record<PropertyKey, (...args: unknown[]) => unknown>;

const journalMethods: readonly (keyof ClientJournal)[] = ["get", "pending", "recover", "settle"];
const rawMethods = ["request", "GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"] as const;

type Copy = "call" | "ref";

/**
 * The arguments of a call the shell passes on once the client is loaded. Those of an operation (as
 * its call reads them) and of the journal's methods (the references of intents: operation and key)
 * are copied now: the call is the one asked, whatever the caller does with its objects meanwhile (snapshot.ts).
 * `raw` takes fetch's own objects (a signal, Headers), used as they are.
 */
function taken(args: unknown[], copy: Copy | undefined, name: PropertyKey): unknown[] {
  if (copy === "call") return snapshotCall(args[0], args[1], String(name));
  // A reference is read by name: the OutcomeUnknownError itself is one, and its toJSON has no key.
  return copy === "ref" ? args.map((a) => (a !== null && typeof a === "object" ? { operation: (a as JournalRef).operation, key: (a as JournalRef).key } : a)) : args;
}

/** The shell of a client: its options checked now, its runtime loaded at its first call. */
export function lazyClient<C extends object, O extends object>(parts: ShellParts<C, O>): C {
  checkConstruction(parts.options, parts);
  // A copy, so the client is the one these options made, whatever the caller changes before its first call.
  const options = { ...parts.options };
  parts.check?.(options);
  let client: Any | undefined;
  let loading: Promise<Any> | undefined;
  let middleware: Middleware[] = [];
  let closedUnused = false;
  const load = (): Promise<Any> => {
    loading ??= parts.load(options).then(
      async (made) => {
        const built = made as unknown as Any;
        (built.raw as unknown as { use(...m: Middleware[]): void }).use(...middleware);
        // Closed before its first call: closed before any call reaches it.
        if (closedUnused) await built.close!();
        client = built;
        return client;
      },
      (e: unknown) => {
        // A chunk the browser could not fetch is tried again at the next call.
        loading = undefined;
        throw e;
      },
    );
    return loading;
  };
  /** A method that calls `name` on what `of` picks from the real client (its arguments taken as `taken` says). */
  const delegate =
    (of: (c: Any) => Any, name: PropertyKey, copy?: Copy) =>
    (...args: unknown[]) => {
      if (client) return of(client)[name]!(...args);
      try {
        args = taken(args, copy, name);
      } catch (e) {
        return Promise.reject(e); // a getter that throws while it is copied, or a value nested too deep: RequestValidationError
      }
      return load().then((c) => of(c)[name]!(...args));
    };
  const group = (c: Any, name: string) => c[name] as unknown as Any;

  const base: Record<PropertyKey, unknown> = {};
  for (const name of parts.methods) {
    const call = delegate((c) => c, name);
    // Closing a shell never called only takes note (see the top).
    const closes = name === "close" || name === asyncDispose;
    base[name] = !closes
      ? call
      : () => {
          if (client || loading) return call();
          closedUnused = true;
          return Promise.resolve();
        };
  }
  for (const [name, before] of Object.entries(parts.values ?? {})) Object.defineProperty(base, name, { get: () => (client ? client[name] : before) });
  if (parts.journal) base.journal = Object.fromEntries(journalMethods.map((m) => [m, delegate((c) => group(c, "journal"), m, "ref")]));
  base.raw = {
    ...Object.fromEntries(rawMethods.map((m) => [m, delegate((c) => group(c, "raw"), m)])),
    use(...m: Middleware[]) {
      if (client) group(client, "raw").use!(...m);
      else middleware.push(...m);
    },
    eject(...m: Middleware[]) {
      if (client) group(client, "raw").eject!(...m);
      else middleware = middleware.filter((x) => !m.includes(x));
    },
  };

  const shell = Object.create(base) as Record<string, Record<string, unknown>>;
  const hidden = new Set(parts.hidden);
  const omitted = new Set(parts.omitted);
  for (const id of [...Object.keys(parts.routes), ...hidden]) {
    if (omitted.has(id)) continue;
    const [g, m] = id.split(".") as [string, string];
    const method = delegate((c) => group(c, g), m, "call");
    shell[g] ??= {};
    Object.defineProperty(shell[g], m, { value: method, enumerable: !hidden.has(id), writable: true, configurable: true });
  }
  return shell as unknown as C;
}
