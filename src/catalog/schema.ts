/**
 * The effective shape of a JSON Schema as generators write them (pydantic, zod-to-json-schema,
 * schemars): local `$ref`s into `$defs`/`definitions` followed, `allOf` parts merged into one
 * object, a root `$ref` merged with its sibling keywords. Help signatures, search placeholders,
 * `key=value` typing and the unknown-field check all read schemas through {@link effectiveSchema}
 * so they agree on every field's type.
 *
 * See JSON Schema 2020-12 Core §8.2.3 (`$ref` applies alongside sibling keywords) and §10.2.1.1
 * (`allOf`). Only what it displays is changed: validation still runs on the schema as the server
 * gave it.
 */
import type { JsonSchema } from "../tool/index.js";

/** How many `$ref`s one path may follow before a recursive schema is shown as `object`. */
const MAX_REF_DEPTH = 6;

const cache = new WeakMap<JsonSchema, JsonSchema>();

/**
 * The schema with every local `$ref` (`#/…` JSON pointer) replaced by what it points at, merged
 * with the keywords beside it, and every `allOf` merged into its parent (properties united,
 * `required` united). Unions (`anyOf`, `oneOf`) keep their members, each made effective. A `$ref`
 * that cannot be resolved (remote, or a broken pointer) is left out, so the node reads as "any";
 * a recursive one stops after {@link MAX_REF_DEPTH} steps. Never throws; cached per schema object.
 */
export function effectiveSchema(schema: JsonSchema): JsonSchema {
  if (!schema || typeof schema !== "object") return schema;
  const hit = cache.get(schema);
  if (hit) return hit;
  const out = resolve(schema, schema, []);
  cache.set(schema, out);
  return out;
}

/**
 * The effective properties of an object schema (after {@link effectiveSchema}) and which of them
 * are required. A schema that is not an object gives none.
 */
export function objectFields(schema: JsonSchema): { properties: Record<string, JsonSchema>; required: Set<string> } {
  const s = effectiveSchema(schema);
  const p = s.properties;
  const properties = p && typeof p === "object" && !Array.isArray(p) ? (p as Record<string, JsonSchema>) : {};
  return { properties, required: new Set(Array.isArray(s.required) ? (s.required as string[]) : []) };
}

function resolve(node: unknown, root: JsonSchema, refs: string[]): JsonSchema {
  if (!node || typeof node !== "object" || Array.isArray(node)) return (node ?? {}) as JsonSchema;
  let s = { ...(node as JsonSchema) };
  if (typeof s.$ref === "string") {
    const ref = s.$ref;
    delete s.$ref;
    const target = refs.includes(ref) || refs.length >= MAX_REF_DEPTH ? undefined : pointer(root, ref);
    if (target !== undefined) s = merge(resolve(target, root, [...refs, ref]), resolve(s, root, refs));
    else if (refs.includes(ref) && s.type === undefined) s.type = "object";
  }
  if (Array.isArray(s.allOf)) {
    const parts = (s.allOf as unknown[]).map((p) => resolve(p, root, refs));
    delete s.allOf;
    s = parts.reduce<JsonSchema>((acc, p) => merge(acc, p), resolveChildren(s, root, refs));
    return s;
  }
  return resolveChildren(s, root, refs);
}

function resolveChildren(s: JsonSchema, root: JsonSchema, refs: string[]): JsonSchema {
  const out: JsonSchema = { ...s };
  if (out.properties && typeof out.properties === "object") {
    out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, unknown>).map(([k, v]) => [k, resolve(v, root, refs)]));
  }
  if (out.items && typeof out.items === "object" && !Array.isArray(out.items)) out.items = resolve(out.items, root, refs);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((m) => resolve(m, root, refs));
  }
  if (out.additionalProperties && typeof out.additionalProperties === "object") out.additionalProperties = resolve(out.additionalProperties, root, refs);
  if (out.type === undefined) delete out.type;
  return out;
}

/** Two effective schemas as one: `b`'s keywords win, properties and `required` are united. */
function merge(a: JsonSchema, b: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...a, ...b };
  if (a.properties || b.properties) out.properties = { ...((a.properties as object) ?? {}), ...((b.properties as object) ?? {}) };
  const req = [...(Array.isArray(a.required) ? a.required : []), ...(Array.isArray(b.required) ? b.required : [])];
  if (req.length) out.required = [...new Set(req)];
  if (out.type === undefined && (a.type !== undefined || b.type !== undefined)) out.type = b.type ?? a.type;
  return out;
}

/** The node a local JSON pointer (`#/$defs/Name`) names in `root`, or undefined. RFC 6901. */
function pointer(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const part = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!at || typeof at !== "object" || !Object.prototype.hasOwnProperty.call(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
