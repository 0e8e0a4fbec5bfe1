// Security per operation from the spec: scheme names per row, none where the spec says `[]`, the
// sign-in operation marked, and a missing scheme refused when the client is made.
import { basicScheme, bearerScheme, createInvoker, TokenManager, Transport } from "@paysys/core/internal";
import { describe, expect, it } from "vitest";
import { json, stubFetch } from "../stub.js";
import { buildFixtureMethods } from "./generated/client.js";
import { operations } from "./generated/operations.js";

describe("security", () => {
  it("writes each operation's schemes, and marks the operation that obtains a token", () => {
    expect(operations["auth.login"]).toMatchObject({ security: [], signsIn: true, secretAnswer: true });
    expect(operations["auth.me"]).toMatchObject({ security: ["token"] });
    expect(operations["auth.public"].security).toEqual(["basic"]);
  });

  it("presents the scheme the operation names, and a refused sign-in is an AuthenticationError", async () => {
    const stub = stubFetch((s) => (s.url.endsWith("/login") ? json({ Status: 401, Message: "bad password" }) : json({ Status: 200, Data: { Name: "n" } })));
    const tokens = new TokenManager({ obtain: async () => ({ accessToken: "tok-1" }) });
    const transport = new Transport({ baseUrl: "http://fixture.test", fetch: stub.fetch, schemes: { token: bearerScheme(tokens), basic: basicScheme("shop", "pw") } });
    const m = buildFixtureMethods(createInvoker({ transport, operations }).invoke);
    expect(await m.auth.me()).toEqual({ Name: "n" });
    await m.auth.public();
    expect(stub.seen.map((s) => s.headers.get("authorization"))).toEqual(["Bearer tok-1", `Basic ${btoa("shop:pw")}`]);
    const err = await m.auth.login({ Password: "secret-pw" }).catch((e) => e);
    expect(err).toMatchObject({ name: "AuthenticationError", serviceCode: 401, serviceMessage: "bad password" });
    expect(stub.seen[2]!.headers.get("authorization")).toBeNull();
  });

  it("refuses to make a client without a scheme its operations need", () => {
    expect(() => createInvoker({ transport: new Transport({ baseUrl: "http://x" }), operations })).toThrow(
      /no security scheme token \(auth.me\); no security scheme basic \(auth.public\)/,
    );
  });
});
