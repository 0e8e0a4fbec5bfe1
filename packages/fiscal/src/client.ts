// The fiscal client itself, which `createFiscalClient` (create.ts) loads at its first call: the
// generated methods over the shared invoker. What the spec cannot say is written here: signing in
// with the phone number (the token lives one day; the spec says so and the manager renews it when
// it has expired), the receipt rules the service applies, and where the registers' `Uid`s are kept.

import type { ClientJournal } from "@paysys/core/calls";
import { APIError, type CallOptions, UnexpectedResponseError } from "@paysys/core/calls";
import { asyncDispose, bearerScheme, commaListCodec, defineClient, rfc3339Codec, SecretSet, TokenManager, tengeCodec } from "@paysys/core/internal";
import type { Client } from "openapi-fetch";
import { autonomousReceipt, receiptLines, receiptTotals } from "./checks.js";
import { ShiftAlreadyOpenError } from "./errors.js";
import { type FiscalMethods, spec } from "./generated/client.js";
import { securitySchemes } from "./generated/operations.js";
import type { paths } from "./generated/schema.js";
import type { FiscalClientOptions } from "./options.js";

export interface FiscalClient extends FiscalMethods {
  /**
   * The `Uid` of a register as the client knows it (from the `store`). `uid.get` asks the service
   * instead; whenever the client takes a register's lease it reads the service's, too.
   */
  knownUid(idKkm: number): Promise<string | undefined>;
  /** The journal of receipts and shifts: what became of each key, and `recover()` after a restart. */
  readonly journal: ClientJournal;
  /** Gives the registers' leases back and forgets the token (the API has no logout). */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
  /** The low-level openapi-fetch client (same base URL, token, timeouts; no automatic retries, no chain). */
  readonly raw: Client<paths>;
}

/** The client over options `createFiscalClient` has checked. */
export function buildFiscalClient(options: FiscalClientOptions): FiscalClient {
  const secrets = new SecretSet();
  secrets.pin(options.credentials.password);
  const tokens: TokenManager = new TokenManager({
    secrets,
    // A minute early, so a token never expires on the wire; the service's clock may differ a little.
    earlyRenewalMs: 60_000,
    lifetime: securitySchemes.fiscalToken?.tokenLifetime,
    obtain: async () => {
      const answer = await methods.auth.login({ Login: options.credentials.login, Password: options.credentials.password });
      const token = answer.Token;
      if (typeof token !== "string" || token === "") {
        // The answer is not shown: it is the answer that should have carried the token.
        throw new UnexpectedResponseError("auth.login: the answer carries no Data.Token", { operation: "auth.login", bodyExcerpt: "(not shown)" });
      }
      return { accessToken: token };
    },
  });
  const { methods, invoker, transport } = defineClient(spec, {
    interface: "fiscal",
    options,
    baseUrl: options.baseUrl,
    secrets,
    schemes: { fiscalToken: bearerScheme(tokens) },
    codecs: { tenge: tengeCodec, rfc3339: rfc3339Codec, "comma-list": commaListCodec },
    checks: { "receipt-totals": receiptTotals, "receipt-lines": receiptLines, "autonomous-receipt": autonomousReceipt(options.autonomousRules ?? "newer") },
    journal: { account: options.credentials.login },
  });
  const shifts: FiscalMethods["shifts"] = {
    ...methods.shifts,
    async open(params, callOptions?: CallOptions) {
      try {
        return await methods.shifts.open(params, callOptions);
      } catch (e) {
        throw e instanceof APIError && e.status === 424 ? new ShiftAlreadyOpenError(e, params.IdKkm) : e;
      }
    },
  };
  const base = {
    async knownUid(idKkm: number) {
      return invoker.chain?.link(JSON.stringify(idKkm));
    },
    journal: invoker.journal!,
    async close() {
      await invoker.chain?.close();
      tokens.clear();
    },
    [asyncDispose]() {
      return this.close();
    },
    raw: transport.raw,
  };
  return Object.assign(Object.create(base) as object, methods, { shifts }) as FiscalClient;
}
