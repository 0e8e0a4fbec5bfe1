// client.ts: the typed methods, grouped as in the operation ids (`reports.payments` →
// `client.reports.payments(params, options)`), built over the invoker. Methods whose answer can be
// a file have two signatures: with the file parameter a BinaryFile, without it the JSON result.

import { names } from "./emit-types.js";
import type { SpecModel } from "./model.js";

const comment = (lines: string[], indent: string) => `${indent}/**\n${lines.map((l) => `${indent} * ${l.replace(/\*\//g, "* /")}`).join("\n")}\n${indent} */`;

export function emitFacade(model: SpecModel, prefix: string, head: string): string {
  const groups = new Map<string, { signature: string; build: string }[]>();
  for (const op of model.operations) {
    const [group, method, ...more] = op.id.split(".");
    if (!group || !method || more.length) throw new Error(`codegen: operationId ${op.id} must be group.method`);
    const P = `S.${names.params(op.id)}`;
    const R = `S.${names.result(op.id)}`;
    const O = op.openParams ? "OpenParamsOptions" : "CallOptions";
    const optional = op.inputRequired ? "" : "?";
    const doc = comment(
      [
        `${op.summary}.`,
        "",
        `\`${op.method.toUpperCase()} ${op.path}\`. ${op.retryNote}.`,
        ...(op.openParams ? ["", "The document calls its parameter list open: send a parameter the spec does not name through `options.extraParams`."] : []),
      ],
      "    ",
    );
    const signature = op.fileWhen
      ? `${doc}\n    ${method}: {\n      (params: ${P} & ${JSON.stringify(op.fileWhen)}, options?: ${O}): Promise<BinaryFile>;\n      (params${optional}: ${P} & { ${Object.keys(
          op.fileWhen,
        )
          .map((k) => `${k}?: undefined`)
          .join("; ")} }, options?: ${O}): Promise<${R}>;\n    };`
      : `${doc}\n    ${method}(params${optional}: ${P}, options?: ${O}): Promise<${R}>;`;
    const build = `      ${method}: ${op.fileWhen ? "fileMethod" : "method"}(invoke, operations[${JSON.stringify(op.id)}]),`;
    groups.set(group, [...(groups.get(group) ?? []), { signature, build }]);
  }
  const usesFile = model.operations.some((op) => op.fileWhen);
  const usesOpen = model.operations.some((op) => op.openParams);
  const coreTypes = [usesFile ? "BinaryFile" : "", "CallOptions", usesOpen ? "OpenParamsOptions" : ""].filter(Boolean).join(", ");
  const internals = [usesFile ? "fileMethod" : "", "type Invoke", "method"].filter(Boolean).join(", ");
  return `${head}import type { ${coreTypes} } from "@paysys/core";
import { ${internals} } from "@paysys/core/internal";
import { operations } from "./operations.js";
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
`;
}
