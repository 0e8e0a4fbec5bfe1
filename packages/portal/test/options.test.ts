// Options from plain JavaScript are checked by the validator generated from PortalClientSettings.
import { describe, expect, it } from "vitest";
import { ConfigurationError, createPortalClient, defaultExtractTokens, UnexpectedResponseError } from "../src/index.js";

const make = (options: unknown) => () => createPortalClient(options as never);

describe("client options", () => {
  it("names a misspelt option", () => {
    expect(make({ baseUrl: "http://x", timeout: 5000 })).toThrow(/\/timeout is not a known name here/);
  });
  it("names a wrong type and a wrong enum value", () => {
    expect(make({ baseUrl: "http://x", timeoutMs: "5s" })).toThrow(/\/timeoutMs must be number/);
    expect(make({ baseUrl: "http://x", version: "v3" })).toThrow(/\/version must be equal to one of the allowed values/);
    expect(make({ baseUrl: "http://x", retry: { maxRetries: "2" } })).toThrow(/\/retry\/maxRetries must be integer/);
  });
  it("wants a baseUrl, an object, and functions where functions go", () => {
    expect(make({})).toThrow(ConfigurationError);
    expect(make(null)).toThrow(/options must be an object/);
    expect(make({ baseUrl: "http://x", fetch: "fetch" })).toThrow(/\/fetch must be a function/);
  });
  it("accepts a full set of good options", () => {
    expect(
      make({
        baseUrl: "http://x",
        version: "v1",
        timeoutMs: 1000,
        retry: { maxRetries: 0 },
        timeZone: "UTC",
        credentials: { lgn: "a", psw: "b" },
        solveCaptcha: async () => "x",
        hooks: {},
        headers: { "x-partner": "p1" },
        maxResponseBytes: 1024,
      }),
    ).not.toThrow();
  });
});

describe("reading the token answer (its fields are not shown in the document)", () => {
  it("reads accessToken or token, refreshToken and expiresIn", () => {
    expect(defaultExtractTokens({ accessToken: "a", refreshToken: "r", expiresIn: 60 }, 1000)).toEqual({ accessToken: "a", refreshToken: "r", expiresAt: 61_000 });
    expect(defaultExtractTokens({ token: "t" })).toEqual({ accessToken: "t", refreshToken: undefined, expiresAt: undefined });
  });
  it("says which fields it found, never their values", () => {
    const err = (() => {
      try {
        defaultExtractTokens({ jwt: "secret-value-1", refresh: "secret-value-2" });
      } catch (e) {
        return e as UnexpectedResponseError;
      }
    })();
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect(err?.message).toContain("fields: jwt, refresh");
    expect(JSON.stringify(err) + err?.message).not.toContain("secret-value");
  });
});
