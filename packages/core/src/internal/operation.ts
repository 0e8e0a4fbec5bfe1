// The shape of one row of a generated operation table. The code generator writes one table per
// spec from the spec's own facts (method, path, x-idempotent, x-unwrap, x-sensitive, ...), and
// the runtime reads only this table: nothing about an operation is decided twice.

/** An Ajv standalone validator (precompiled, no `eval` at run time). */
export type Validator = ((data: unknown) => boolean) & {
  errors?: null | ReadonlyArray<{ instancePath: string; message?: string; params?: Record<string, unknown> }>;
};

/** How the payload is taken out of the answer. */
export type Unwrap = "result" | "data" | "either" | "rows" | "row" | "none";

/** How a top-level parameter is encoded before validation: a portal date, or a v1 0/1 flag. */
export type Codec = "portal-date" | "flag";

export interface OperationSpec {
  /** `group.method`, the SDK method name. */
  id: string;
  method: "get" | "post" | "put" | "delete" | "patch";
  path: string;
  /** Needs a token. */
  auth: boolean;
  /** May be retried automatically. False for everything that moves money. */
  idempotent: boolean;
  movesMoney: boolean;
  unwrap: Unwrap;
  /** Parameter values that make the answer a file instead of JSON, e.g. `{ format: "xlsx" }`. */
  binaryWhen?: Readonly<Record<string, string>>;
  /** Codecs of top-level parameters. */
  codecs: Readonly<Record<string, Codec>>;
  /** Codecs of parameters known only by a name pattern (a regular expression source). */
  patternCodecs?: Readonly<Record<string, Codec>>;
  /** The answer carries secrets (tokens): no excerpt of it ever appears in an error. */
  secretAnswer?: boolean;
  validateRequest?: Validator;
  validateResponse?: Validator;
}

/** Turns Ajv errors into "where: what" issues. */
export function validatorIssues(v: Validator): { path: string; message: string }[] {
  return (v.errors ?? []).map((e) => {
    const extra =
      e.params && "additionalProperty" in e.params
        ? ` (${String(e.params.additionalProperty)})`
        : e.params && "allowedValues" in e.params
          ? ` (${JSON.stringify(e.params.allowedValues)})`
          : "";
    return { path: e.instancePath, message: `${e.message ?? "is invalid"}${extra}` };
  });
}
