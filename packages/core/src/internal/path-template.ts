// A path template with its parameters in place, as openapi-fetch would put them, without its cost on every call.
import { defaultPathSerializer } from "openapi-fetch";

/**
 * Each path template split once at its placeholders (`/kkms/{idKkm}/sales` → ["/kkms/", "idKkm",
 * "/sales"]); `simple` when every placeholder is a plain name (no `.`, `;` or `*` style).
 */
const templates = new Map<string, { parts: string[]; simple: boolean }>();

/**
 * A path with its parameters in place. Plain `{name}` placeholders with a string or number take the
 * value URI-encoded, as openapi-fetch's serializer does, without running a regular expression on
 * every call; any other style or value goes through openapi-fetch's serializer itself.
 */
export function pathOf(template: string, params: Record<string, unknown>): string {
  let t = templates.get(template);
  if (!t) {
    const parts = template.split(/\{([^{}]+)\}/);
    t = { parts, simple: parts.every((p, i) => i % 2 === 0 || /^[\w-]+$/.test(p)) };
    templates.set(template, t);
  }
  const { parts } = t;
  let path = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = params[parts[i]!];
    if (!t.simple || (typeof value !== "string" && typeof value !== "number")) return defaultPathSerializer(template, params);
    path += encodeURIComponent(value) + parts[i + 1];
  }
  return path;
}
