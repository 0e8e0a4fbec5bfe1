// Inbound messages: what a service sends to the merchant (the spec's `webhooks`). The generator
// writes a row per webhook (its id and the validator of its body); this module turns raw bytes
// into a checked value or a typed WebhookError. Nothing in a message is trusted before that.
import { WebhookError } from "../errors.js";
import { type Validator, validatorIssues } from "./operation.js";
import { hiddenInText } from "./repeated-key.js";

/** One webhook of a spec, as the generator writes it. */
export interface InboundSpec {
  id: string;
  validate?: Validator;
  /** Addresses the spec says the service sends it from (`x-source-ip`): a receiver's default allow-list. */
  sources?: readonly string[];
}

/** An inbound row that also carries, for the type checker only, the type of its body. */
export type Inbound<Event> = InboundSpec & { readonly __event?: Event };

/** Gives a webhook row its event type (generated code calls it; it returns the row unchanged). */
export function inbound<Event>(spec: InboundSpec): Inbound<Event> {
  return spec;
}

/** Largest inbound body read by default, in bytes: callbacks are small. */
export const DEFAULT_INBOUND_MAX_BYTES = 256 * 1024;

/** Reads a raw inbound body: at most `maxBytes`, valid UTF-8, a JSON object that passes the spec's validator. */
export function parseInbound<Event>(spec: Inbound<Event>, raw: string | Uint8Array | ArrayBuffer, maxBytes = DEFAULT_INBOUND_MAX_BYTES): Event {
  const size = typeof raw === "string" ? raw.length : raw.byteLength;
  if (size > maxBytes) throw new WebhookError(`${spec.id}: the body is larger than ${maxBytes} bytes`, [], { operation: spec.id });
  let text: string;
  try {
    text = typeof raw === "string" ? raw : new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw new WebhookError(`${spec.id}: the body is not valid UTF-8`, [], { operation: spec.id });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WebhookError(`${spec.id}: the body is not JSON`, [], { operation: spec.id });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new WebhookError(`${spec.id}: the body is not a JSON object`, [], { operation: spec.id });
  // JSON.parse keeps a repeated key's last value: which one the sender meant (a status) is unknown;
  // and reads a number past 2^53 as another one (an amount, an id).
  const hidden = hiddenInText(text, value, typeof raw === "string" ? undefined : raw instanceof ArrayBuffer ? new Uint8Array(raw) : raw);
  if (hidden?.key !== undefined)
    throw new WebhookError(`${spec.id}: the body gives the key ${JSON.stringify(hidden.key.slice(0, 40))} twice in one object`, [], { operation: spec.id });
  if (hidden?.number !== undefined)
    throw new WebhookError(`${spec.id}: the body writes the number ${hidden.number.slice(0, 40)}, which JSON cannot carry exactly`, [], { operation: spec.id });
  if (spec.validate && !spec.validate(value)) throw new WebhookError(`${spec.id}: the body does not match the spec`, validatorIssues(spec.validate), { operation: spec.id });
  return value as Event;
}
