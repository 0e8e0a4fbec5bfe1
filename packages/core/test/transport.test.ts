// Unit tests of the transport with an injected `fetch` (the only tests that do not talk HTTP to
// the sandbox): which requests are retried, how often, how long each attempt may take, and that
// no secret leaks into a log line or an error.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AuthenticationError,
  BadRequestError,
  ConnectionError,
  InternalServerError,
  type LogEvent,
  RateLimitError,
  RedirectError,
  RequestAbortedError,
  ResponseTooLargeError,
  TimeoutError,
  UnexpectedResponseError,
} from "../src/index.js";
import { bearerScheme, type OperationSpec, TokenManager, Transport, type TransportOptions, type Validator } from "../src/internal/index.js";

const op = (extra: Partial<OperationSpec> = {}): OperationSpec => ({
  id: "test.op",
  method: "post",
  path: "/op",
  security: [],
  idempotent: true,
  movesMoney: false,
  body: true,
  envelope: { params: "", code: "/code", message: "/message" },
  unwrap: { at: [""] },
  ...extra,
});

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** A stub `fetch` answering from a script, recording what each attempt sent. */
function script(...answers: Array<Response | Error | ((r: Request) => Promise<Response>)>) {
  const seen: { url: string; body: string; headers: Headers }[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    const r = new Request(url, init);
    seen.push({ url: r.url, body: await r.clone().text(), headers: r.headers });
    const next = answers[Math.min(seen.length - 1, answers.length - 1)]!;
    if (next instanceof Error) throw next;
    if (typeof next === "function") return next(r);
    return next.clone();
  };
  return { fetch, seen };
}

const transport = (fetch: TransportOptions["fetch"], extra: Partial<TransportOptions> = {}) =>
  new Transport({ baseUrl: "http://sandbox.test", fetch, retry: { baseDelayMs: 1, maxDelayMs: 4 }, ...extra });

describe("retries", () => {
  it("retries an idempotent call on 5xx and re-sends the same body each time", async () => {
    const s = script(json({}, 503), json({}, 502), json({ ok: true }));
    const r = await transport(s.fetch).call(op(), { body: { params: { a: 1 } } });
    expect(r).toMatchObject({ kind: "json", body: { ok: true }, attempts: 3 });
    expect(s.seen.map((x) => x.body)).toEqual(Array(3).fill('{"params":{"a":1}}'));
  });

  /** A 200 whose body stops half-way with a reset. */
  const cutOff = async () =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"ok":'));
          c.error(new TypeError("terminated: other side closed"));
        },
      }),
      { headers: { "content-type": "application/json" } },
    );

  it("retries an idempotent call whose answer is cut off mid-body, within the same budget", async () => {
    const s = script(cutOff, cutOff, json({ ok: true }));
    const r = await transport(s.fetch).call(op(), { body: { params: {} } });
    expect(r).toMatchObject({ kind: "json", body: { ok: true }, attempts: 3 });
    // Three cuts use up the two retries: the third is the error.
    const always = script(cutOff);
    const e = await transport(always.fetch)
      .call(op(), { body: {} })
      .catch((x) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ attempts: 3, message: expect.stringContaining("the answer was cut off") });
    expect(always.seen).toHaveLength(3);
  });

  it("never re-sends a money operation whose answer is cut off: the outcome is unknown", async () => {
    const s = script(cutOff, json({ ok: true }));
    const e = await transport(s.fetch)
      .call(op({ idempotent: false, movesMoney: true }), { body: {} })
      .catch((x) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ attempts: 1, outcomeUnknown: true });
    expect(s.seen).toHaveLength(1);
  });

  it.each([408, 429, 500, 503])("retries %i", async (status) => {
    const s = script(json({}, status), json({ ok: 1 }));
    await transport(s.fetch).call(op(), {});
    expect(s.seen).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 409, 422])("does not retry %i", async (status) => {
    const s = script(json({ message: "no" }, status), json({ ok: 1 }));
    await expect(transport(s.fetch).call(op(), {})).rejects.toMatchObject({ status, attempts: 1 });
    expect(s.seen).toHaveLength(1);
  });

  it("gives up after maxRetries and reports every attempt", async () => {
    const s = script(json({}, 500));
    const err = await transport(s.fetch, { retry: { maxRetries: 3, baseDelayMs: 1 } })
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(InternalServerError);
    expect(err).toMatchObject({ status: 500, attempts: 4, operation: "test.op" });
    expect(s.seen).toHaveLength(4);
  });

  it("never retries an operation that moves money, and says the outcome is unknown", async () => {
    const s = script(new TypeError("socket hang up"), json({ id: "x" }));
    const err = await transport(s.fetch)
      .call(op({ idempotent: false, movesMoney: true }), { body: {} })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toMatch(/not idempotent.*outcome is unknown/);
    expect(err.attempts).toBe(1);
    expect(s.seen).toHaveLength(1);
  });

  it("does not retry a 503 of a non-idempotent operation", async () => {
    const s = script(json({}, 503), json({ id: "x" }));
    await expect(transport(s.fetch).call(op({ idempotent: false }), {})).rejects.toThrow(/not retried/);
    expect(s.seen).toHaveLength(1);
  });

  it("retries network errors of idempotent operations", async () => {
    const s = script(new TypeError("fetch failed"), json({ ok: 1 }));
    expect((await transport(s.fetch).call(op(), {})).attempts).toBe(2);
  });

  it("waits what Retry-After asks, up to the cap", async () => {
    const events: LogEvent[] = [];
    const s = script(json({}, 429, { "retry-after": "0.05" }), json({ ok: 1 }));
    await transport(s.fetch, { logger: (e) => events.push(e) }).call(op(), {});
    expect(events.find((e) => e.type === "retry")).toMatchObject({ delayMs: 50, reason: "HTTP 429" });
  });

  it("stops when Retry-After is longer than the cap", async () => {
    const s = script(json({ message: "slow down" }, 429, { "retry-after": "120" }), json({ ok: 1 }));
    const err = await transport(s.fetch, { retry: { retryAfterCapMs: 1000 } })
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(s.seen).toHaveLength(1);
  });
});

describe("timeouts and abort", () => {
  const hang = (r: Request) => new Promise<Response>((_, reject) => r.signal.addEventListener("abort", () => reject(r.signal.reason)));

  it("times out each attempt and retries idempotent calls with a fresh timer", async () => {
    const s = script(hang, hang, json({ ok: 1 }));
    const r = await transport(s.fetch, { timeoutMs: 30 }).call(op(), {});
    expect(r.attempts).toBe(3);
  });

  it("throws TimeoutError when every attempt times out", async () => {
    const s = script(hang);
    const err = await transport(s.fetch, { timeoutMs: 20 })
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.attempts).toBe(3);
  });

  it("stops at once when the caller aborts, with no further attempt", async () => {
    const s = script(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const err = await transport(s.fetch, { timeoutMs: 10_000 })
      .call(op(), {}, { signal: controller.signal })
      .catch((e) => e);
    expect(err).toBeInstanceOf(RequestAbortedError);
    expect(s.seen).toHaveLength(1);
  });

  /** An answer whose headers arrive at once and whose body stalls until the request is aborted. */
  const stalledBody = async (r: Request) =>
    new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode('{"code":0,'));
          r.signal.addEventListener("abort", () => c.error(r.signal.reason));
        },
      }),
      { headers: { "content-type": "application/json" } },
    );

  it("an abort while the body arrives is a RequestAbortedError", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const err = await transport(script(stalledBody).fetch, { timeoutMs: 10_000 })
      .call(op(), {}, { signal: controller.signal })
      .catch((e) => e);
    expect(err).toBeInstanceOf(RequestAbortedError);
  });

  it("a body that stalls past the attempt's timeout is a TimeoutError", async () => {
    const err = await transport(script(stalledBody).fetch, { timeoutMs: 30 })
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toContain("timed out reading the answer");
  });

  it("stops during the backoff wait when the caller aborts", async () => {
    const s = script(json({}, 503));
    const controller = new AbortController();
    const t = transport(s.fetch, { retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 } });
    setTimeout(() => controller.abort(), 30);
    const started = Date.now();
    await expect(t.call(op(), {}, { signal: controller.signal })).rejects.toBeInstanceOf(RequestAbortedError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("answers that are not what the spec says", () => {
  it("HTML instead of JSON is an UnexpectedResponseError with an excerpt", async () => {
    const s = script(new Response("<html><body>502 Bad Gateway</body></html>", { status: 200, headers: { "content-type": "text/html" } }));
    const err = await transport(s.fetch)
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.bodyExcerpt).toContain("<html><body>502");
  });

  it("truncated JSON is an UnexpectedResponseError", async () => {
    const s = script(new Response('{"code":0,"data":[{"a":', { headers: { "content-type": "application/json" } }));
    await expect(transport(s.fetch).call(op(), {})).rejects.toBeInstanceOf(UnexpectedResponseError);
  });

  it("an answer that fails the spec's validator is refused unless response validation is off (and then only on reads)", async () => {
    const validate: Validator = Object.assign((d: unknown) => typeof (d as { code?: unknown }).code === "number", {
      errors: [{ instancePath: "/code", message: "must be integer" }],
    });
    const s = script(json({ code: "0" }));
    await expect(transport(s.fetch).call(op({ validateResponse: validate }), {})).rejects.toThrow(/\/code must be integer/);
    await expect(transport(s.fetch, { validateResponses: false }).call(op({ validateResponse: validate }), {})).resolves.toMatchObject({ body: { code: "0" } });
    // An operation that moves money has its answers checked regardless: an empty 200 is no payment made.
    const money = op({ validateResponse: validate, movesMoney: true, idempotent: false });
    await expect(transport(s.fetch, { validateResponses: false }).call(money, {})).rejects.toThrow(/\/code must be integer/);
  });

  it("an HTTP error carries the service's code and message", async () => {
    const s = script(json({ code: 17, message: "bad period" }, 400));
    const err = await transport(s.fetch)
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, serviceCode: 17, serviceMessage: "bad period" });
  });
});

describe("tokens", () => {
  it("presents the token, and after a 401 renews it once and re-sends once (even a money operation)", async () => {
    let n = 0;
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: `tok-${++n}` }) });
    const s = script(json({}, 401), json({ id: "p1" }));
    const t = transport(s.fetch, { schemes: { token: bearerScheme(tokens) } });
    const r = await t.call(op({ security: ["token"], idempotent: false, movesMoney: true }), { body: {} });
    expect(r).toMatchObject({ kind: "json", body: { id: "p1" } });
    expect(s.seen.map((x) => x.headers.get("authorization"))).toEqual(["Bearer tok-1", "Bearer tok-2"]);
  });

  it("a second 401 is an AuthenticationError, not a loop", async () => {
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "t" }) });
    const s = script(json({}, 401));
    const t = transport(s.fetch, { schemes: { token: bearerScheme(tokens, (tok) => ({ Authorization: tok })) } });
    await expect(t.call(op({ security: ["token"] }), {})).rejects.toBeInstanceOf(AuthenticationError);
    expect(s.seen).toHaveLength(2);
  });
});

describe("redaction", () => {
  const password = "Sup3r-Secret-Pa55";
  const token = "tok-VERY-SECRET-123";

  it("no password or token in any log line or error message", async () => {
    const lines: string[] = [];
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: token }) });
    // The server echoes the password in its error text and the token in an HTML page.
    const s = script(json({ message: `wrong psw ${password}` }, 400), new Response(`<p>token ${token} expired</p>`, { headers: { "content-type": "text/html" } }));
    const t = transport(s.fetch, {
      schemes: { token: bearerScheme(tokens) },
      sensitiveKeys: ["psw"],
      logger: (e) => lines.push(JSON.stringify(e)),
    });
    const errors: string[] = [];
    for (let i = 0; i < 2; i++) {
      const e = await t.call(op({ security: ["token"] }), { body: { params: { lgn: "dealer01", psw: password } } }).catch((err) => err);
      errors.push(String(e), e.message, JSON.stringify(e), e.bodyExcerpt ?? "", e.serviceMessage ?? "");
    }
    const everything = [...lines, ...errors].join("\n");
    expect(lines.some((l) => l.includes('"psw":"[REDACTED]"'))).toBe(true);
    expect(lines.some((l) => l.includes('"authorization":"[REDACTED]"'))).toBe(true);
    expect(everything).toContain("dealer01");
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(token);
  });
});

describe("hooks", () => {
  it("runs beforeRequest and afterResponse around every attempt", async () => {
    const calls: string[] = [];
    const s = script(json({}, 503), json({ ok: 1 }));
    const t = transport(s.fetch, {
      hooks: {
        beforeRequest: ({ operation, request }) => {
          calls.push(`before ${operation}`);
          const r = new Request(request);
          r.headers.set("x-trace", "abc");
          return r;
        },
        afterResponse: ({ response }) => {
          calls.push(`after ${response.status}`);
        },
      },
    });
    await t.call(op(), {});
    expect(calls).toEqual(["before test.op", "after 503", "before test.op", "after 200"]);
    expect(s.seen.every((x) => x.headers.get("x-trace") === "abc")).toBe(true);
  });
});

describe("headers a security scheme sets", () => {
  it("are redacted from the log whatever their name", async () => {
    const lines: string[] = [];
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "tok-in-a-custom-header" }) });
    const t = transport(script(json({ ok: 1 })).fetch, { schemes: { token: bearerScheme(tokens, (tok) => ({ "x-token": tok })) }, logger: (e) => lines.push(JSON.stringify(e)) });
    await t.call(op({ security: ["token"] }), {});
    expect(lines.join("\n")).not.toContain("tok-in-a-custom-header");
    expect(lines.join("\n")).toContain('"x-token":"[REDACTED]"');
  });

  it("reach the wire under names that are special on plain objects, from the client, the call and the scheme", async () => {
    const s = script(json({ ok: 1 }));
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "t" }) });
    const t = transport(s.fetch, { headers: { hasOwnProperty: "c" }, schemes: { token: bearerScheme(tokens, (tok) => ({ toString: tok })) } });
    await t.call(op({ security: ["token"] }), { header: { constructor: "h" } }, { headers: { valueOf: "x" } });
    const sent = s.seen[0]!.headers;
    expect(["hasownproperty", "valueof", "constructor", "tostring"].map((n) => sent.get(n))).toEqual(["c", "x", "h", "t"]);
  });
});

describe("answer size and content", () => {
  it("refuses a JSON answer larger than maxResponseBytes without reading it whole", async () => {
    let pulled = 0;
    const huge = () =>
      new Response(
        new ReadableStream({
          pull(c) {
            pulled++;
            c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
          },
        }),
        { headers: { "content-type": "application/json" } },
      );
    const err = await transport(async () => huge(), { maxResponseBytes: 256 * 1024 })
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect(pulled).toBeLessThan(10);
  });

  it("refuses at once when Content-Length says the answer is too large", async () => {
    const s = script(new Response("{}", { headers: { "content-type": "application/json", "content-length": "999999999" } }));
    await expect(transport(s.fetch, { maxResponseBytes: 1024 }).call(op(), {})).rejects.toBeInstanceOf(ResponseTooLargeError);
  });

  it("describes a binary error body instead of printing it", async () => {
    const bytes = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x01, 0xff, 0xfe, 0x00]);
    const err = await transport(async () => new Response(bytes, { status: 500, headers: { "content-type": "application/octet-stream" } }), { retry: { maxRetries: 0 } })
      .call(op(), {})
      .catch((e) => e);
    expect(err.message).toMatch(/\[binary content, 9 bytes, content-type application\/octet-stream\]/);
    expect(err.message).not.toMatch(/PK/);
  });

  it("invalid UTF-8 is an UnexpectedResponseError, never replacement characters in the data", async () => {
    // A cut multi-byte sequence, then a good answer: the strict decoder is shared, and keeps nothing from the bad one.
    const bytes = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d, 0xe2, 0x82]);
    const good = new TextEncoder().encode('{"a":"€ü"}');
    let calls = 0;
    const t = transport(async () => new Response(calls++ === 0 ? bytes : good, { headers: { "content-type": "application/json" } }));
    const err = await t.call(op(), {}).catch((e) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.message).toContain("not valid UTF-8");
    expect(await t.call(op(), {})).toMatchObject({ kind: "json", body: { a: "€ü" } });
  });

  it("a real U+FFFD in valid UTF-8 is kept; the same character made of invalid bytes is refused", async () => {
    // The text is read by a replacing decoder first: its replacement character alone must not decide.
    const real = new TextEncoder().encode('{"a":"x\uFFFDy"}'); // EF BF BD: valid UTF-8
    const invalid = new Uint8Array([...new TextEncoder().encode('{"a":"x'), 0xff, ...new TextEncoder().encode('y"}')]);
    const answer = (bytes: Uint8Array<ArrayBuffer>) => transport(async () => new Response(bytes, { headers: { "content-type": "application/json" } }));
    expect(await answer(real).call(op(), {})).toMatchObject({ kind: "json", body: { a: "x\uFFFDy" } });
    const err = await answer(invalid)
      .call(op(), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.message).toContain("not valid UTF-8");
  });
});

describe("an answer that gives a key twice", () => {
  const twice = () => new Response('{"id":"p-1","error":"declined","error":null}', { headers: { "content-type": "application/json" } });
  it("of an operation that moves money: an UnexpectedResponseError, not the last value JSON.parse keeps", async () => {
    const err = await transport(script(twice()).fetch)
      .call(op({ idempotent: false, movesMoney: true }), { body: { amount: 1 } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.message).toContain('the key "error" twice');
  });

  it("of a read, refused by default; read as JSON.parse reads it only when answers are not checked", async () => {
    const checked = await transport(script(twice()).fetch)
      .call(op(), { body: {} })
      .catch((e) => e);
    expect(checked).toBeInstanceOf(UnexpectedResponseError);
    expect(await transport(script(twice()).fetch, { validateResponses: false }).call(op(), { body: {} })).toMatchObject({ body: { id: "p-1", error: null } });
  });
});

describe("redirects", () => {
  it("follows a 307 on the same origin with the same method, body and credentials", async () => {
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "t1" }) });
    const s = script(new Response(null, { status: 307, headers: { location: "/moved" } }), json({ ok: 1 }));
    const r = await transport(s.fetch, { schemes: { token: bearerScheme(tokens) } }).call(op({ security: ["token"] }), { body: { a: 1 } });
    // Every request sent counts as an attempt, a redirect followed too.
    expect(r).toMatchObject({ body: { ok: 1 }, attempts: 2 });
    expect(s.seen.map((x) => [x.url, x.body, x.headers.get("authorization")])).toEqual([
      ["http://sandbox.test/op", '{"a":1}', "Bearer t1"],
      ["http://sandbox.test/moved", '{"a":1}', "Bearer t1"],
    ]);
  });

  it("never follows to another origin, so credentials stay", async () => {
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "t1" }) });
    const s = script(new Response(null, { status: 302, headers: { location: "https://elsewhere.example/steal" } }), json({ ok: 1 }));
    const err = await transport(s.fetch, { schemes: { token: bearerScheme(tokens) } })
      .call(op({ security: ["token"], method: "get" }), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err.message).toContain("another origin (https://elsewhere.example)");
    expect(s.seen.map((x) => x.url)).toEqual(["http://sandbox.test/op"]);
  });

  it("refuses a 302 of a POST, which would turn it into a GET", async () => {
    const s = script(new Response(null, { status: 302, headers: { location: "/other" } }));
    await expect(transport(s.fetch).call(op(), { body: {} })).rejects.toThrow(/would turn the POST into a GET/);
  });

  it("never follows any redirect of a request that moves money: one request, a RedirectError naming where", async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const s = script(new Response(null, { status, headers: { location: "/moved" } }), json({ ok: 1 }));
      const err = await transport(s.fetch)
        .call(op({ idempotent: false, movesMoney: true }), { body: { amount: 1 } })
        .catch((e) => e);
      expect(err).toBeInstanceOf(RedirectError);
      expect(err).toMatchObject({ status, attempts: 1, location: "/moved" });
      expect(err.message).toMatch(/Location "\/moved".*sent once/);
      expect(s.seen).toHaveLength(1);
    }
  });

  it("a redirect loop stops after 5 redirects, and counts the 6 requests it sent", async () => {
    const loop = () => new Response(null, { status: 307, headers: { location: "/op" } });
    const s = script(loop(), loop(), loop(), loop(), loop(), loop(), loop());
    const err = await transport(s.fetch)
      .call(op({ method: "get", body: false }), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(RedirectError);
    expect(err).toMatchObject({ attempts: 6 });
    expect(s.seen).toHaveLength(6);
  });

  it("a redirect loop that echoes the token in its Location: the token is in neither the message nor the error's location", async () => {
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "loop-token-7731" }) });
    const loop = () => new Response(null, { status: 307, headers: { location: "/op?t=loop-token-7731" } });
    const s = script(loop(), loop(), loop(), loop(), loop(), loop(), loop());
    const err = await transport(s.fetch, { schemes: { token: bearerScheme(tokens) } })
      .call(op({ method: "get", body: false, security: ["token"] }), {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(RedirectError);
    expect(`${err.message} ${err.location} ${JSON.stringify(err)}`).not.toContain("loop-token-7731");
    expect(err.location).toBe("http://sandbox.test/op?t=[REDACTED]");
  });
});

describe("paths", () => {
  it("places parameters exactly as openapi-fetch's path serializer does, for any name, style and value", async () => {
    const { defaultPathSerializer } = await import("openapi-fetch");
    const { pathOf } = await import("../src/internal/path-template.js");
    const name = fc.constantFrom("id", "idKkm", "a-b", "x_1", ".label", ";matrix", "star*", ".both*");
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double(),
      fc.constant(undefined),
      fc.constant(null),
      fc.array(fc.integer(), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { minLength: 1, maxLength: 3 }), fc.string({ maxLength: 5 }), (placed, literal) => {
        const template = `/t${placed.map(([n], i) => `/${literal.replace(/[{}]/g, "")}${i}/{${n}}`).join("")}`;
        const params = Object.fromEntries(placed.map(([n, v]) => [n.replace(/^[.;]/, "").replace(/\*$/, ""), v]));
        expect(pathOf(template, params)).toBe(defaultPathSerializer(template, params));
      }),
      { numRuns: 3000 },
    );
  });
});
