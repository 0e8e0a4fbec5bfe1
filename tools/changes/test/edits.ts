// Real edits to the real specs, shared by the spec-diff tests and the end-to-end report test.
import { expect } from "vitest";

export interface SpecEdit {
  /** The spec, relative to specs/. */
  spec: string;
  apply: (text: string) => string;
}

/** Replaces `from` by `to` once, and fails when the spec no longer holds `from` (the test would silently test nothing). */
export const replace = (from: string, to: string) => (text: string) => {
  expect(text, `the spec no longer contains ${JSON.stringify(from)}`).toContain(from);
  return text.replace(from, to);
};

export const edits = {
  answerFieldRemoved: {
    spec: "ecommerce/openapi.yaml",
    apply: replace(
      "      required: [id, url]\n      properties:\n        id: { type: string, description: Transaction id. }\n        url:",
      "      required: [id]\n      properties:\n        id: { type: string, description: Transaction id. }\n        link:",
    ),
  },
  requestFieldRequired: {
    spec: "ecommerce/openapi.yaml",
    apply: replace(
      "      required: [merchantId, amount]\n      x-checks: [absolute-callback-url]",
      "      required: [merchantId, amount, description]\n      x-checks: [absolute-callback-url]",
    ),
  },
  requestEnumValueAdded: {
    spec: "ecommerce/openapi.yaml",
    apply: replace("          enum: [1]\n          description: 1 = payout.", "          enum: [1, 2]\n          description: 1 = payout."),
  },
  gapFilled: { spec: "ecommerce/openapi.yaml", apply: replace("      x-gap: The content type of the PEM answer is not shown.\n", "") },
  marksMovingMoney: {
    spec: "ecommerce/openapi.yaml",
    apply: replace("      operationId: payments.status\n      tags: [payments]", "      operationId: payments.status\n      tags: [payments]\n      x-moves-money: true"),
  },
} satisfies Record<string, SpecEdit>;
