/**
 * Compact signatures of a tool's input, e.g. `get-pull({ number: integer, repo?: string })`.
 *
 * See README → The `tools` command.
 */
import type { JsonSchema } from "../tool/index.js";
import { displayName } from "./names.js";
import { objectFields } from "./schema.js";

const MAX_DEPTH = 2;

/** The type of one schema node in TypeScript-like shorthand (give it an effective node: see schema.ts). */
export function typeOf(schema: unknown, depth = 0): string {
  if (!schema || typeof schema !== "object") return "any";
  const s = schema as JsonSchema;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in s) return JSON.stringify(s.const);
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return [...new Set(union.map((u) => typeOf(u, depth)))].join(" | ");
  const t = s.type;
  if (Array.isArray(t)) return t.map((x) => (x === "array" || x === "object" ? typeOf({ ...s, type: x }, depth) : String(x))).join(" | ");
  if (t === "array") {
    const item = typeOf(s.items, depth + 1);
    return item.includes(" ") && !item.startsWith("{") ? `(${item})[]` : `${item}[]`;
  }
  if (t === "object" || (t === undefined && s.properties)) {
    if (!s.properties || depth >= MAX_DEPTH) return "object";
    return objectShape(s, depth + 1);
  }
  return typeof t === "string" ? t : "any";
}

function objectShape(s: JsonSchema, depth: number): string {
  const props = (s.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const parts = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? "" : "?"}: ${typeOf(v, depth)}`);
  return parts.length ? `{ ${parts.join(", ")} }` : "{}";
}

/**
 * `name({ a: string, b?: integer })` for a tool; required fields first. The schema is read
 * through `effectiveSchema` (`$ref`, `allOf` resolved), so every field shows its real type.
 */
export function signature(name: string, schema: JsonSchema): string {
  const { properties: props, required } = objectFields(schema);
  const keys = Object.keys(props).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  const parts = keys.map((k) => `${k}${required.has(k) ? "" : "?"}: ${typeOf(props[k], 1)}`);
  return `${displayName(name)}(${parts.length ? `{ ${parts.join(", ")} }` : "{}"})`;
}
