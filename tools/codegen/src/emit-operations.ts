// operations.ts: the table the runtime reads, one row per operation (typed by its params, result
// and call options), the webhooks, the chain and the names of secret properties.

import { names } from "./emit-types.js";
import { ident, type SpecModel } from "./model.js";

/** The per-call options of an operation's methods: open parameters take `extraParams`, journaled ones an `idempotencyKey`. */
export function optionsType(op: SpecModel["operations"][number]): string {
  return [op.openParams ? "OpenParamsOptions" : "CallOptions", ...(op.journaled ? ["IdempotencyOptions"] : [])].join(" & ");
}

/** A field of an operation's row, as the emitter wrote it. */
const rowField = <T>(op: SpecModel["operations"][number], name: string) => op.row[name] as T | undefined;

/** A union of string literal types, sorted; \`never\` when there are none. */
const union = (names: readonly string[]) =>
  [...new Set(names)]
    .sort()
    .map((n) => JSON.stringify(n))
    .join(" | ") || "never";

export function emitOperations(model: SpecModel, head: string): string {
  const shared = JSON.stringify(model.envelope);
  const rows = model.operations.map((op) => {
    const options = optionsType(op);
    const file = op.fileWhen ? `, ${JSON.stringify(op.fileWhen)}` : "";
    const fields = Object.entries(op.row).map(([k, v]) => `    ${k}: ${k === "envelope" && JSON.stringify(v) === shared ? "envelope" : JSON.stringify(v)},`);
    fields.push(`    validators: () => import("./validators/${ident(op.id)}.js"),`);
    return `  ${JSON.stringify(op.id)}: operation<S.${names.params(op.id)}, S.${names.result(op.id)}, ${options}${file}>({\n${fields.join("\n")}\n  }),`;
  });
  const hooks = model.webhooks.map(
    (w) =>
      `  ${JSON.stringify(w.id)}: inbound<S.${names.event(w.id)}>({ id: ${JSON.stringify(w.id)}, validate: v.${ident(w.id)}_event${w.sources.length ? `, sources: ${JSON.stringify(w.sources)}` : ""} }),`,
  );
  const keyCase = model.caseInsensitiveBodyKeys
    ? `/** The service reads request-body keys regardless of case (x-key-case): the names a key in another case stands for. */\nexport const caseInsensitiveBodyKeys: readonly string[] = ${JSON.stringify(model.caseInsensitiveBodyKeys)};\n\n`
    : "";
  const used = new Set(model.operations.flatMap((op) => optionsType(op).split(" & ")));
  return `${head}import type { ${[...used].sort().join(", ")} } from "@paysys/core/calls";
import { type ChainDefinition, inbound, operation, type SchemeFacts } from "@paysys/core/internal";
import type * as S from "./schema.js";
${model.webhooks.length ? 'import * as v from "./validators.js";\n' : ""}
/** How the interface wraps requests and answers (x-envelope). */
const envelope = ${shared};

/** Every operation of the spec, as the runtime reads it. */
export const operations = {
${rows.join("\n")}
};

export type OperationId = keyof typeof operations;

/**
 * The names the spec gives to what the client brings: codecs (\`x-codec\`), checks (\`x-checks\`) and
 * security schemes. \`defineClient\` takes a handler for each, so a missing one does not compile.
 */
export interface SpecNames {
  codec: ${union(model.operations.flatMap((op) => [...Object.values(rowField<Record<string, string>>(op, "codecs") ?? {}), ...Object.values(rowField<Record<string, string>>(op, "patternCodecs") ?? {})]))};
  check: ${union(model.operations.flatMap((op) => rowField<string[]>(op, "checks") ?? []))};
  scheme: ${union(model.operations.flatMap((op) => rowField<string[]>(op, "security") ?? []))};
}

/** What the service sends to you (the spec's webhooks), with the validator of each body and the addresses it comes from. */
export const webhooks = {
${hooks.join("\n")}
};

/** The per-key chain of the interface (a header each call presents and each answer renews), if it has one. */
export const chain: ChainDefinition | undefined = ${model.chain ? JSON.stringify(model.chain) : "undefined"};

/** The addresses of the spec's servers (a template such as \`{fiscal_url}\` means no source shows it). */
export const servers: readonly string[] = ${JSON.stringify(model.servers)};

/** The security schemes, and the lifecycle of their credentials as the spec gives it. */
export const securitySchemes: Readonly<Record<string, SchemeFacts>> = ${JSON.stringify(model.schemes)};

${model.cryptogram ? `/** How card data is encrypted into a cryptogram (x-cryptogram). */\nexport const cryptogram = ${JSON.stringify(model.cryptogram)} as const;\n\n` : ""}${keyCase}/** Property names whose values are secrets (x-sensitive in the spec): redacted from logs and errors. */
export const sensitiveKeys: readonly string[] = ${JSON.stringify(model.sensitiveKeys)};
`;
}

/**
 * routes.ts: each operation's id, with the path the SDK chose where no source shows one: all a
 * client's shell needs (its methods' names, the `paths` option checked at construction) without the
 * table above, which the shell loads at the first call. The documented paths stay in that table: in
 * the shell they were a page's first load for an error message.
 */
export function emitRoutes(model: SpecModel, head: string): string {
  const routes = model.operations.map((op) => `  ${JSON.stringify(op.id)}: ${JSON.stringify(op.row.pathIsDefault ? { defaultPath: op.path } : {})},`);
  return `${head}import type { Route } from "@paysys/core/shell";

/** Every operation of the spec by its id (\`group.method\`), with \`defaultPath\` where no source shows its path (the paths the \`paths\` option may change). */
export const routes: Readonly<Record<string, Route>> = {
${routes.join("\n")}
};
`;
}
