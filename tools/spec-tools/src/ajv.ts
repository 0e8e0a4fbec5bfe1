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
 * as the money codecs (packages/core/src/decimal.ts), because `multipleOf: 0.01` refuses 19.99;
 * `x-calendar: true` checks that a date exists (below).
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
  ajv.addKeyword({
    keyword: "x-calendar",
    type: "string",
    schemaType: "boolean",
    error: { message: "must be a date and time that exists (no 30 February, no month 13, no hour 24)" },
    code(cxt: KeywordCxt) {
      if (cxt.schema !== true) return;
      const fields = cxt.gen.const("fields", _`${usePattern(cxt, CALENDAR_FIELDS)}.exec(${cxt.data})`);
      // A shape the pattern refuses is the pattern's to name; the year's months are counted by Date.UTC.
      const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => _`+${fields}[${i}]`);
      const lastDay = _`(Date.UTC(${year}, ${month}, 1) - Date.UTC(${year}, ${month} - 1, 1)) / 864e5`;
      const time = _`(${fields}[4] === undefined || (${hour} <= 23 && ${minute} <= 59 && ${second} <= 59))`;
      const offset = _`(${fields}[7] === undefined || (${offsetHours} <= 23 && ${offsetMinutes} <= 59))`;
      cxt.fail(_`${fields} !== null && !(${month} >= 1 && ${month} <= 12 && ${day} >= 1 && ${day} <= ${lastDay} && ${time} && ${offset})`);
    },
  });
  return ajv;
}

/**
 * The fields of the specs' dates (specs/common/dates.json): RFC 3339 (`2024-05-31T12:00:00+05:00`)
 * and the portal's digits (`20240531235959`, `20240531`). Their patterns check the shape; `x-calendar`
 * checks that the day and time exist, which a pattern cannot say (30 February, 29 February of a
 * common year), and which `new Date()` would otherwise move to March without a word. The portal's
 * `isPortalDate` makes the same check for its helpers (packages/portal/src/dates.ts).
 */
const CALENDAR_FIELDS = "^([0-9]{4})-?([0-9]{2})-?([0-9]{2})(?:T?([0-9]{2}):?([0-9]{2}):?([0-9]{2}))?(?:[.][0-9]+)?(?:Z|[+-]([0-9]{2}):([0-9]{2}))?$";
