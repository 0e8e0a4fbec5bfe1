// The client shell (lazy.ts) over a small runtime of this test's own: what the shell promises
// whatever the runtime is. Options are checked at construction, the runtime is loaded once at the
// first call, values and middleware wait for it, a failed load is tried again, and closing a
// shell that was never called loads nothing. The clients' own runtimes are tested over HTTP
// against the sandbox (packages/integration-tests).
import type { Middleware } from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { ClientClosedError, ConfigurationError } from "../src/index.js";
import { asyncDispose, lazyClient, settingsValidator } from "../src/shell.js";

interface Options {
  baseUrl: string;
}

/** A runtime that answers `ping` with its options' address, counts its builds and remembers its middleware. */
function runtime() {
  const made = { builds: 0, closes: 0, middleware: [] as Middleware[] };
  const build = async (options: Options) => {
    made.builds++;
    let closed = false;
    return {
      thing: {
        async ping(n: number) {
          if (closed) throw new ClientClosedError("closed");
          return `${options.baseUrl} ${n}`;
        },
      },
      get signedIn() {
        return true;
      },
      async close() {
        made.closes++;
        closed = true;
      },
      raw: {
        use: (...m: Middleware[]) => made.middleware.push(...m),
        eject: (..._m: Middleware[]) => {},
      },
    };
  };
  return { made, build };
}

const settings = settingsValidator({ type: "object", properties: { baseUrl: { type: "string" } }, required: ["baseUrl"], additionalProperties: false });

type Built = Awaited<ReturnType<ReturnType<typeof runtime>["build"]>> & { [asyncDispose](): Promise<void> };

function shell(options: Options, load: (o: Options) => Promise<object>) {
  return lazyClient<Built, Options>({
    client: "createTestClient",
    options,
    settings,
    functionKeys: {},
    routes: { "thing.ping": {}, "auth.login": {} },
    omitted: ["auth.login"],
    methods: ["close", asyncDispose],
    values: { signedIn: false },
    load: load as (o: Options) => Promise<Built>,
  });
}

describe("lazyClient", () => {
  it("refuses wrong options at construction, before anything is loaded", () => {
    const { made, build } = runtime();
    expect(() => shell({ baseUrl: 1 } as unknown as Options, build)).toThrow(ConfigurationError);
    expect(() => shell({ baseUrl: "x", basUrl: "y" } as unknown as Options, build)).toThrow(/basUrl/);
    expect(made.builds).toBe(0);
  });

  it("loads the runtime once for parallel first calls, with the options as they were given", async () => {
    const { made, build } = runtime();
    const options = { baseUrl: "https://a.example" };
    const c = shell(options, build);
    options.baseUrl = "https://changed.example";
    expect(c.signedIn).toBe(false);
    expect(made.builds).toBe(0);
    expect(await Promise.all([c.thing.ping(1), c.thing.ping(2)])).toEqual(["https://a.example 1", "https://a.example 2"]);
    expect(made.builds).toBe(1);
    expect(c.signedIn).toBe(true);
    expect(Object.keys(c.thing)).toEqual(["ping"]);
    expect("auth" in c).toBe(false); // an operation the client has no method for
  });

  it("keeps middleware added before the first call, less what was ejected", async () => {
    const { made, build } = runtime();
    const c = shell({ baseUrl: "https://u.example" }, build);
    const kept: Middleware = { onRequest: () => undefined };
    const ejected: Middleware = { onResponse: () => undefined };
    c.raw.use(kept, ejected);
    c.raw.eject(ejected);
    await c.thing.ping(1);
    expect(made.middleware).toEqual([kept]);
  });

  it("tries the load again at the next call when it failed (a chunk the browser could not fetch)", async () => {
    const { made, build } = runtime();
    let fail = true;
    const c = shell({ baseUrl: "https://u.example" }, async (o) => {
      if (fail) {
        fail = false;
        throw new TypeError("Failed to fetch dynamically imported module");
      }
      return build(o);
    });
    await expect(c.thing.ping(1)).rejects.toThrow(/dynamically imported/);
    expect(await c.thing.ping(2)).toBe("https://u.example 2");
    expect(made.builds).toBe(1);
  });

  it("closing a shell never called loads nothing; a call after it meets a closed client", async () => {
    const { made, build } = runtime();
    const c = shell({ baseUrl: "https://u.example" }, build);
    await c.close();
    await c[asyncDispose]();
    expect(made.builds).toBe(0);
    await expect(c.thing.ping(1)).rejects.toBeInstanceOf(ClientClosedError);
    expect(made).toMatchObject({ builds: 1, closes: 1 });
  });

  it("closing a shell in use closes its runtime", async () => {
    const { made, build } = runtime();
    const c = shell({ baseUrl: "https://u.example" }, build);
    await c.thing.ping(1);
    await c.close();
    expect(made.closes).toBe(1);
    await expect(c.thing.ping(2)).rejects.toBeInstanceOf(ClientClosedError);
  });
});
