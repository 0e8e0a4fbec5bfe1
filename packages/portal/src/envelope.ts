// The portal envelopes: v2 `{ code, message, result | data }`, v1 `{ Code, QueryData[].Rows }`.
// `code`/`Code` 0 is success; anything else is a ServiceError with the service's code and message.
import { type CallResult, type OperationSpec, ServiceError, UnexpectedResponseError } from "@paysys/core";

type JsonResult = Extract<CallResult, { kind: "json" }>;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function unexpected(op: OperationSpec, r: JsonResult, what: string): UnexpectedResponseError {
  return new UnexpectedResponseError(`${op.id}: ${what}`, { operation: op.id, status: r.status, attempts: r.attempts, bodyExcerpt: r.excerpt() });
}

/** The payload of a v2 answer. */
export function unwrapV2(op: OperationSpec, r: JsonResult): unknown {
  const body = r.body;
  if (!isObject(body) || typeof body.code !== "number") throw unexpected(op, r, "the answer is not the v2 envelope { code, message, result | data }");
  if (body.code !== 0) {
    const message = typeof body.message === "string" ? r.scrub(body.message) : undefined;
    throw new ServiceError(`${op.id}: the portal answered code ${body.code}${message ? `: ${message}` : ""}`, {
      operation: op.id,
      status: r.status,
      attempts: r.attempts,
      serviceCode: body.code,
      serviceMessage: message,
    });
  }
  switch (op.unwrap) {
    case "none":
      return body;
    case "result":
      if (!isObject(body.result)) throw unexpected(op, r, "the answer has no result object");
      return body.result;
    case "data":
      if (!Array.isArray(body.data)) throw unexpected(op, r, "the answer has no data array");
      return body.data;
    default:
      // Lists and reports: the document does not say whether they answer in `data` or `result`.
      if (body.data !== undefined) return body.data;
      if (body.result !== undefined) return body.result;
      throw unexpected(op, r, "the answer has neither data nor result");
  }
}

/** The payload of a v1 answer: all rows of all QueryData items, or the first row. */
export function unwrapV1(op: OperationSpec, r: JsonResult): unknown {
  const body = r.body;
  if (!isObject(body) || typeof body.Code !== "number") throw unexpected(op, r, "the answer is not the v1 envelope { Code, QueryData }");
  if (body.Code !== 0) {
    throw new ServiceError(`${op.id}: the portal answered Code ${body.Code}`, { operation: op.id, status: r.status, attempts: r.attempts, serviceCode: body.Code });
  }
  if (op.unwrap === "none") return body;
  const queryData = body.QueryData ?? [];
  if (!Array.isArray(queryData)) throw unexpected(op, r, "QueryData is not an array");
  const rows = queryData.flatMap((q) => (isObject(q) && Array.isArray(q.Rows) ? q.Rows : []));
  if (op.unwrap === "row") {
    if (rows.length === 0) throw unexpected(op, r, "the answer has no row");
    return rows[0];
  }
  return rows;
}
