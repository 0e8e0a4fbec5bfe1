// client.ts: the typed methods, grouped as in the operation ids (`reports.payments` →
// `client.reports.payments(params, options)`), built over the invoker. Methods whose answer can be
// a file have a signature that resolves to a BinaryFile; list methods one that takes a row schema
// (`options.rows`) and resolves to its output. The core factories' types must fit these signatures,
// so the compiler checks the two against each other.

import { optionsType } from "./emit-operations.js";
import { names } from "./emit-types.js";
import type { SpecModel } from "./model.js";

const comment = (lines: string[], indent: string) => `${indent}/**\n${lines.map((l) => `${indent} * ${l.replace(/\*\//g, "* /")}`).join("\n")}\n${indent} */`;

/** The core function that builds a method of this shape (they differ only in their types). */
const factoryOf = (op: SpecModel["operations"][number]) => (op.fileWhen ? (op.list ? "fileListMethod" : "fileMethod") : op.list ? "listMethod" : "method");

export function emitFacade(model: SpecModel, prefix: string, head: string): string {
  const groups = new Map<string, { signature: string; build: string }[]>();
  for (const op of model.operations) {
    const [group, method, ...more] = op.id.split(".");
    if (!group || !method || more.length) throw new Error(`codegen: operationId ${op.id} must be group.method`);
    const P = `S.${names.params(op.id)}`;
    const R = `S.${names.result(op.id)}`;
    const O = optionsType(op);
    const optional = op.inputRequired ? "" : "?";
    const doc = comment(
      [
        `${op.summary}.`,
        "",
        `\`${op.method.toUpperCase()} ${op.path}\`. ${op.retryNote}.`,
        ...(op.journaled
          ? [
              "",
              "Journaled: written to the client's store before it is sent, never sent twice under one `options.idempotencyKey`; a lost answer's outcome is learnt as the spec says (x-outcome).",
            ]
          : []),
        ...(op.openParams ? ["", "The document calls its parameter list open: send a parameter the spec does not name through `options.extraParams`."] : []),
        ...(op.list
          ? ["", "Resolves to an array of rows. Pass a row schema (zod, valibot, arktype: any Standard Schema) as `options.rows` to have every row checked and typed by it."]
          : []),
      ],
      "    ",
    );
    // Overloads, most specific first: a file when the parameters ask for one, rows typed by a schema, then the rows as the spec types them.
    const noFile = op.fileWhen
      ? ` & { ${Object.keys(op.fileWhen)
          .map((k) => `${k}?: undefined`)
          .join("; ")} }`
      : "";
    const signatures = [
      ...(op.fileWhen ? [`(params: ${P} & ${JSON.stringify(op.fileWhen)}, options?: ${O}): Promise<BinaryFile>;`] : []),
      ...(op.list
        ? [
            `<Rows extends StandardSchemaV1>(params: ${noFile ? `(${P}${noFile})` : P} | undefined, options: ${O} & RowsOption<Rows>): Promise<StandardSchemaV1.InferOutput<Rows>[]>;`,
          ]
        : []),
      `(params${optional}: ${P}${noFile}, options?: ${O}): Promise<${R}>;`,
    ];
    const signature = signatures.length > 1 ? `${doc}\n    ${method}: {\n${signatures.map((s) => `      ${s}`).join("\n")}\n    };` : `${doc}\n    ${method}${signatures[0]}`;
    const build = `      ${method}: ${factoryOf(op)}(invoke, operations[${JSON.stringify(op.id)}]),`;
    groups.set(group, [...(groups.get(group) ?? []), { signature, build }]);
  }
  const factories = new Set(model.operations.map(factoryOf));
  const usesFile = model.operations.some((op) => op.fileWhen);
  const usesOpen = model.operations.some((op) => op.openParams);
  const usesKeys = model.operations.some((op) => op.journaled);
  const usesRows = model.operations.some((op) => op.list);
  const coreTypes = [
    usesFile ? "BinaryFile" : "",
    "CallOptions",
    usesKeys ? "IdempotencyOptions" : "",
    usesOpen ? "OpenParamsOptions" : "",
    usesRows ? "RowsOption, StandardSchemaV1" : "",
  ]
    .filter(Boolean)
    .join(", ");
  const byName = (a: string, b: string) => a.replace("type ", "").localeCompare(b.replace("type ", ""));
  const internals = [...factories, "type GeneratedSpec", "type Invoke"].sort(byName).join(", ");
  return `${head}import type { ${coreTypes} } from "@paysys/core/calls";
import { ${internals} } from "@paysys/core/internal";
import { chain, operations, type SpecNames, sensitiveKeys } from "./operations.js";
import type * as S from "./schema.js";

/** The methods of the ${model.doc.info.title}, grouped as in the spec's operation ids. */
export interface ${prefix}Methods {
${[...groups].map(([group, ms]) => `  ${group}: {\n${ms.map((m) => m.signature).join("\n")}\n  };`).join("\n")}
}

/** Builds the methods over \`invoke\` (the client's invoker). */
export function build${prefix}Methods(invoke: Invoke): ${prefix}Methods {
  return {
${[...groups].map(([group, ms]) => `    ${group}: {\n${ms.map((m) => m.build).join("\n")}\n    },`).join("\n")}
  };
}

/** The interface as \`defineClient\` takes it: what the spec says, and the names of what the client must bring. */
export const spec: GeneratedSpec<SpecNames, ${prefix}Methods, S.paths> = { operations, sensitiveKeys, chain, build: build${prefix}Methods };
`;
}
