// The operation row unit tests start from: a POST with a JSON body, no security, idempotent.
import type { OperationSpec } from "../src/internal/index.js";

export const testOperation = (extra: Partial<OperationSpec> = {}): OperationSpec => ({
  id: "t.op",
  method: "post",
  path: "/",
  security: [],
  idempotent: true,
  movesMoney: false,
  body: true,
  envelope: { params: "" },
  unwrap: { at: [""] },
  ...extra,
});
