// The one Ajv set-up every tool uses: the spec lint checks examples with it, the code generator
// compiles the standalone validators with it, so an example that passes the lint is one the SDK
// and the sandbox accept.
import Ajv2020, { _, type KeywordCxt, str } from "ajv/dist/2020.js";
import { usePattern } from "ajv/dist/vocabularies/code.js";
import { decimalPattern } from "../../../packages/core/src/decimal.js";

export interface AjvOptions {
  /** Emit standalone ESM source (code generation) instead of compiling in memory. */
  standalone?: boolean;
}

/**
 * An Ajv for OpenAPI 3.1 schemas: unknown `x-` keywords are annotations, formats are documentation,
 * and `x-decimals: n` checks that a number has at most n digits after the point, by the same rule
 * as the money codecs (packages/core/src/decimal.ts), because `multipleOf: 0.01` refuses 19.99.
 */
export function createAjv(options: AjvOptions = {}): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    // NaN and Infinity are no numbers of JSON's: an answer's 1e400 parses as Infinity, and is refused.
    strictNumbers: true,
    allErrors: true,
    validateFormats: false,
    validateSchema: false,
    logger: false,
    // Plain `.length` for minLength and no `u` flag on patterns: no runtime import of Ajv's helpers.
    unicode: false,
    unicodeRegExp: false,
    ...(options.standalone ? { code: { source: true, esm: true, lines: true, optimize: true } } : {}),
  } as ConstructorParameters<typeof Ajv2020>[0]);
  // Ajv2020 always tracks which properties and items each subschema evaluated, for
  // unevaluatedProperties/Items. The specs use neither (the spec lint refuses them), and the tracking
  // makes every anyOf check all its branches and build an error object for each branch that does not
  // match: ~4.5 KB of garbage per register of a registers list, validation ~3× slower. Compiled
  // without it, an anyOf stops at its first matching branch.
  ajv.opts.unevaluated = false;
  ajv.addKeyword({
    keyword: "x-decimals",
    type: "number",
    schemaType: "number",
    error: { message: ({ schemaCode }) => str`must have at most ${schemaCode} decimal places` },
    code(cxt: KeywordCxt) {
      const pattern = usePattern(cxt, decimalPattern(cxt.schema as number));
      cxt.fail(_`!${pattern}.test(String(${cxt.data}))`);
    },
  });
  return ajv;
}
