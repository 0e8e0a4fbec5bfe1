// The SDK call of each operation, shown on its reference page as a TypeScript code sample. Built
// from the operation's own facts, so a spec edit changes its sample; the pages test compiles every
// sample against the packages, so a sample that stops type-checking fails the build.
import { deref, type Json, pointerGet, readUnwrap } from "@paysys/spec-tools";

/** How a reader creates the interface's client: the sample's first lines. */
export interface SdkEntry {
  package: string;
  /** The variable the samples call methods on. */
  client: string;
  /** The import line and the creation, as in the package README. */
  setup: string;
  /** Operations the client runs by itself and does not offer as methods, with what the reader does instead. */
  byTheClient?: Record<string, string>;
}

/** How each interface's client is made, as in its package README: the first lines of every code sample. */
export const sdkEntries: Record<string, SdkEntry> = {
  "portal-v2": {
    package: "@paysys/portal",
    client: "portal",
    setup: 'import { createPortalClient } from "@paysys/portal";\n\nconst portal = createPortalClient({ baseUrl, credentials: { lgn, psw }, solveCaptcha });',
  },
  "portal-v1": {
    package: "@paysys/portal",
    client: "portal",
    setup: 'import { createPortalClient } from "@paysys/portal";\n\nconst portal = createPortalClient({ baseUrl, version: "v1", credentials: { lgn, psw }, solveCaptcha });',
  },
  fiscal: {
    package: "@paysys/fiscal",
    client: "fiscal",
    setup: 'import { createFiscalClient } from "@paysys/fiscal";\n\nconst fiscal = createFiscalClient({ baseUrl, credentials: { login, password } });',
  },
  ecommerce: {
    package: "@paysys/ecommerce",
    client: "shop",
    setup: 'import { createEcommerceClient } from "@paysys/ecommerce";\n\nconst shop = createEcommerceClient({ merchantId, password });',
  },
  cashout: {
    package: "@paysys/cashout",
    client: "cashout",
    setup: 'import { createCashoutClient } from "@paysys/cashout";\n\nconst cashout = createCashoutClient({ baseUrl, credentials: { authType, login, password } });',
    byTheClient: {
      "auth.authorize":
        "// Not a method: the client authorizes by itself with `credentials` whenever it needs a token, and every\n// client and process of one credential shares that token (option tokenStore), because a new token kills the old one.",
    },
  },
};

/** An identifier stays bare as a key; anything else is quoted. */
const literal = (value: unknown) => JSON.stringify(value, null, 2).replace(/"([A-Za-z_$][\w$]*)":/g, "$1:");

/**
 * The SDK call of one operation, from its own facts: the method is its operationId, the parameters
 * are its request example taken out of the envelope, plus the examples of its path and query
 * parameters (headers are the SDK's business: the chain, Accept).
 */
export function codeSample(doc: Json, op: Json, sdk: SdkEntry): string {
  const instead = sdk.byTheClient?.[op.operationId];
  if (instead) return `${sdk.setup}\n\n${instead}\n`;
  const params: Record<string, unknown> = {};
  const media = deref(doc, op.requestBody)?.content?.["application/json"];
  const example = media?.example ?? Object.values<Json>(media?.examples ?? {})[0]?.value;
  if (example !== undefined) Object.assign(params, pointerGet(example, doc["x-envelope"]?.params ?? ""));
  for (const raw of op.parameters ?? []) {
    const p = deref(doc, raw);
    const value = p.example ?? p.schema?.examples?.[0];
    if (p.in !== "header" && value !== undefined) params[p.name] = value;
  }
  const list = readUnwrap(op["x-unwrap"]).list === true;
  const file = op["x-binary-when"] && Object.entries<Json>(op["x-binary-when"]).every(([k, v]) => params[k] === v);
  const name = file ? "file" : list ? "rows" : "result";
  const args = Object.keys(params).length ? literal(params) : "";
  const notes = [
    file ? "// a BinaryFile: file.stream(), await file.bytes(), or saveToFile(file, path) from the package's /node entry" : "",
    list && !file ? "// an array; pass { rows: schema } (zod, valibot, ...) as the last argument to check and type each row" : "",
  ].filter(Boolean);
  return `${sdk.setup}\n\nconst ${name} = await ${sdk.client}.${op.operationId}(${args});${notes.map((n) => `\n${n}`).join("")}\n`;
}
