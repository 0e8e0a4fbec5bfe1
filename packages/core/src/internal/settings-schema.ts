// A client's settings checked by their JSON Schema, read at run time. The schema is small (a dozen
// options) and checked once per client, so reading it beats Ajv's standalone code, which was the
// largest part (~1.6 kB min+gz) of what a page loads before its first call. The errors are Ajv's,
// in Ajv's order (allErrors; `strict: false`): a test in tools/codegen compares the two on random
// options for every client's schema. Only the keywords settings use are read; the code generator
// refuses a schema with others.

import { pointerOf } from "./pointer-of.js";
import type { Validator } from "./validator.js";

/** The JSON Schema keywords a settings schema may use, its `$ref`s inlined. */
export interface SettingsSchema {
  type?: string | readonly string[];
  properties?: Readonly<Record<string, SettingsSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean | SettingsSchema;
  items?: SettingsSchema;
  anyOf?: readonly SettingsSchema[];
  enum?: readonly (string | number | boolean | null)[];
  const?: string | number | boolean | null;
  minimum?: number;
  maximum?: number;
}
export const SETTINGS_KEYWORDS = ["type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const", "minimum", "maximum"];

type Issue = NonNullable<Validator["errors"]>[number];
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
/** A number is a finite one, as the generated validators take it: NaN and Infinity are no JSON numbers. */
const hasType = (v: unknown, t: string) =>
  t === "object"
    ? isObject(v)
    : t === "array"
      ? Array.isArray(v)
      : t === "null"
        ? v === null
        : t === "number"
          ? Number.isFinite(v)
          : t === "integer"
            ? Number.isInteger(v)
            : typeof v === t;
/** The keywords Ajv checks only on a value of their type, by type, in Ajv's order. */
const groups: readonly (readonly [string, readonly (keyof SettingsSchema)[]])[] = [
  ["number", ["maximum", "minimum"]],
  ["array", ["items"]],
  ["object", ["required", "additionalProperties", "properties"]],
];

function check(s: SettingsSchema, v: unknown, at: string, out: Issue[]): void {
  const types = s.type === undefined ? [] : ([] as string[]).concat(s.type);
  const typeError = () => out.push({ instancePath: at, message: `must be ${types.join(",")}`, params: { type: s.type } });
  const used = groups.filter(([, keys]) => keys.some((k) => k in s));
  // Ajv checks the type first, unless it is one type whose group the schema uses: then where that group is checked.
  const inGroup = types.length === 1 && used.some(([t]) => t === types[0]);
  if (types.length && !inGroup && !types.some((t) => hasType(v, t))) typeError();
  if ("const" in s && v !== s.const) out.push({ instancePath: at, message: "must be equal to constant", params: { allowedValue: s.const } });
  if (s.enum && !s.enum.includes(v as never)) out.push({ instancePath: at, message: "must be equal to one of the allowed values", params: { allowedValues: s.enum } });
  if (s.anyOf) {
    const before = out.length;
    // The first branch that holds ends the search, and the other branches' errors are dropped.
    const holds = s.anyOf.some((branch) => {
      const n = out.length;
      check(branch, v, at, out);
      return out.length === n;
    });
    if (holds) out.length = before;
    else out.push({ instancePath: at, message: "must match a schema in anyOf", params: {} });
  }
  for (const [type] of used) {
    if (hasType(v, type)) checkGroup(type, s, v, at, out);
    else if (inGroup && types[0] === type) typeError();
  }
}

function checkGroup(type: string, s: SettingsSchema, v: unknown, at: string, out: Issue[]): void {
  if (type === "number") {
    const n = v as number;
    if (s.maximum !== undefined && n > s.maximum) out.push({ instancePath: at, message: `must be <= ${s.maximum}`, params: {} });
    if (s.minimum !== undefined && n < s.minimum) out.push({ instancePath: at, message: `must be >= ${s.minimum}`, params: {} });
  } else if (type === "array") {
    for (const [i, item] of (v as unknown[]).entries()) check(s.items!, item, at + pointerOf([i]), out);
  } else {
    const o = v as Record<string, unknown>;
    for (const name of s.required ?? [])
      if (o[name] === undefined) out.push({ instancePath: at, message: `must have required property '${name}'`, params: { missingProperty: name } });
    const known = s.properties ?? {};
    const extra = s.additionalProperties;
    if (extra !== undefined && extra !== true) {
      for (const key in o) {
        if (Object.hasOwn(known, key)) continue;
        if (extra === false) out.push({ instancePath: at, message: "must NOT have additional properties", params: { additionalProperty: key } });
        else check(extra, o[key], at + pointerOf([key]), out);
      }
    }
    for (const [name, schema] of Object.entries(known)) if (o[name] !== undefined) check(schema, o[name], at + pointerOf([name]), out);
  }
}

/** A validator of `schema` with Ajv's errors (`errors`, set by each call as Ajv sets it). */
export function settingsValidator(schema: SettingsSchema): Validator {
  const validate: Validator = (data) => {
    const out: Issue[] = [];
    check(schema, data, "", out);
    validate.errors = out.length ? out : null;
    return out.length === 0;
  };
  return validate;
}
