// The generated validators' type and how their errors read, apart from operation.ts so the
// checks a client makes at construction (construction.ts) need no more than this.
import { pointerOf } from "./pointer-of.js";

/** An Ajv standalone validator (precompiled, no `eval` at run time). */
export type Validator = ((data: unknown) => boolean) & {
  errors?: null | ReadonlyArray<{ instancePath: string; message?: string; params?: Record<string, unknown> }>;
};

/** Turns Ajv errors into "where: what" issues. */
export function validatorIssues(v: Validator): { path: string; message: string }[] {
  return (v.errors ?? []).map((e) => {
    // An unknown name is reported where it is (`/dateFro`), so a misspelling points at itself.
    if (e.params && "additionalProperty" in e.params) {
      const name = String(e.params.additionalProperty);
      return { path: `${e.instancePath}${pointerOf([name])}`, message: "is not a known name here (misspelt?)" };
    }
    const extra = e.params && "allowedValues" in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : "";
    return { path: e.instancePath, message: `${e.message ?? "is invalid"}${extra}` };
  });
}
