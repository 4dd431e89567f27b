/**
 * Schema adapters: Zod 4, any Standard Schema that can give a JSON Schema, or a plain JSON
 * Schema object → one JSON Schema (for help, signatures and plans) and one validator (for calls).
 *
 * See README → Use it from code; Standard Schema v1 and Standard JSON Schema
 * (`~standard.jsonSchema`).
 */
import { createRequire } from "node:module";
import { canonicalJson } from "./canonical.js";
import { checkPattern, re2Engine } from "./pattern.js";
import { isPromiseLike, type JsonSchema, type MaybePromise, type ValidationResult } from "./types.js";

const require = createRequire(import.meta.url);
type AjvClass = typeof import("ajv").default;
// ajv ships CommonJS; it is required on first use (not at start-up, which the CLI keeps short).
const load = <T>(id: string): T => require(id).default as T;

/** A schema as a tool author may write it. */
export type SchemaInput = JsonSchema | StandardSchemaLike;

/** The parts of Standard Schema v1 (+ Standard JSON Schema) we use. */
export interface StandardSchemaLike {
  "~standard": {
    version: 1;
    vendor: string;
    validate: (value: unknown) => StandardResult | Promise<StandardResult>;
    // `| undefined` on optional members: a consumer with `exactOptionalPropertyTypes` (tsc --init's default) still accepts Zod's.
    jsonSchema?: { input: (options: { target: string }) => JsonSchema } | undefined;
  };
}
type StandardResult =
  | { value: unknown; issues?: undefined }
  | { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined }> };

/** A normalised schema: its JSON Schema and a validator returning the checked value. */
export interface NormalizedSchema {
  jsonSchema: JsonSchema;
  validate(value: unknown): MaybePromise<ValidationResult>;
}

let ajv07: InstanceType<AjvClass> | undefined;
let ajv2020: InstanceType<AjvClass> | undefined;
const compiled = new WeakMap<object, CompiledSchema>();

/**
 * `uniqueItems` in linear time. ajv compares every pair of items unless all are scalars of one
 * type, so an array of 40,000 objects blocked the process for 18 s; this check keys each item
 * by its canonical JSON (equal JSON values, object key order aside, as the keyword defines).
 */
function uniqueItems(schema: boolean, data: unknown[]): boolean {
  uniqueItems.errors = undefined;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let j = 0; j < data.length; j++) {
    const key = canonicalJson(data[j]) ?? "undefined";
    const i = seen.get(key);
    if (i !== undefined) {
      uniqueItems.errors = [{ keyword: "uniqueItems", message: `must NOT have duplicate items (items ## ${i} and ${j} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(key, j);
  }
  return true;
}
uniqueItems.errors = undefined as undefined | Array<{ keyword: string; message: string; params: Record<string, unknown> }>;

function withLinearUniqueItems<T extends InstanceType<AjvClass>>(ajv: T): T {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword({ keyword: "uniqueItems", type: "array", schemaType: "boolean", errors: true, validate: uniqueItems });
  return ajv;
}

type Dialect = "2020-12" | "draft-07";

function ajvOf(dialect: Dialect): InstanceType<AjvClass> {
  const addFormats = load<(ajv: unknown) => void>("ajv-formats");
  // `logger: false`: nothing of a schema (an unknown `format`, say) is written to the console;
  // what is not checked is said in the tool's help instead (see schemaNotes).
  const options = { allErrors: false, strict: false, validateFormats: true, logger: false as const, code: { regExp: re2Engine() } };
  if (dialect === "2020-12") {
    if (!ajv2020) {
      ajv2020 = withLinearUniqueItems(new (load<AjvClass>("ajv/dist/2020"))(options));
      addFormats(ajv2020);
    }
    return ajv2020;
  }
  if (!ajv07) {
    ajv07 = withLinearUniqueItems(new (load<AjvClass>("ajv"))(options));
    addFormats(ajv07);
  }
  return ajv07;
}

/** Keywords whose value is a map of names to schemas, one schema, or a list of schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const SCHEMA_ONE = new Set(["additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"]);
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Forms only draft-07 (and older) has, and forms only 2019-09 / 2020-12 have. */
const DRAFT07_ONLY = new Set(["additionalItems", "dependencies"]);
const DRAFT2020_ONLY = new Set(["prefixItems", "dependentRequired", "dependentSchemas", "$dynamicRef", "$dynamicAnchor", "$recursiveRef"]);

/** What a walk over a schema found. */
interface SchemaFacts {
  patterns: string[];
  formats: string[];
  draft07Forms: boolean;
  draft2020Forms: boolean;
}

function walk(node: unknown, facts: SchemaFacts, depth = 0): void {
  if (depth > 200 || typeof node !== "object" || node === null || Array.isArray(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (DRAFT07_ONLY.has(key) || (key === "items" && Array.isArray(value))) facts.draft07Forms = true;
    if (DRAFT2020_ONLY.has(key)) facts.draft2020Forms = true;
    if (key === "pattern" && typeof value === "string") facts.patterns.push(value);
    else if (key === "format" && typeof value === "string") facts.formats.push(value);
    if (SCHEMA_MAPS.has(key) && value && typeof value === "object") {
      if (key === "patternProperties") facts.patterns.push(...Object.keys(value));
      for (const sub of Object.values(value)) walk(sub, facts, depth + 1);
    } else if (key === "dependencies" && value && typeof value === "object") {
      for (const sub of Object.values(value)) walk(sub, facts, depth + 1);
    } else if (SCHEMA_ONE.has(key)) walk(value, facts, depth + 1);
    else if (SCHEMA_LISTS.has(key) || key === "items") for (const sub of Array.isArray(value) ? value : [value]) walk(sub, facts, depth + 1);
  }
}

function factsOf(schema: JsonSchema): SchemaFacts {
  const facts: SchemaFacts = { patterns: [], formats: [], draft07Forms: false, draft2020Forms: false };
  walk(schema, facts);
  return facts;
}

/**
 * The dialect a schema is read in: the one its `$schema` names (2019-09 and 2020-12 by the
 * 2020-12 validator, draft-04/06/07 by the draft-07 one); without `$schema`, JSON Schema 2020-12
 * (MCP spec 2025-11-25 "JSON Schema Usage": the default dialect), unless the schema uses forms
 * only draft-07 has (`items` as a list, `additionalItems`, `dependencies`) and none of 2020-12's.
 */
function dialectOf(schema: JsonSchema, facts: SchemaFacts): Dialect {
  const named = typeof schema.$schema === "string" ? schema.$schema : "";
  if (named) return named.includes("2020-12") || named.includes("2019-09") ? "2020-12" : "draft-07";
  return facts.draft07Forms && !facts.draft2020Forms ? "draft-07" : "2020-12";
}

/** True when `value` implements Standard Schema v1. */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return typeof value === "object" && value !== null && "~standard" in value;
}

/** A compiled schema and what of it is not (fully) checked, in words for a tool's help. */
export interface CompiledSchema {
  check: (value: unknown) => ValidationResult;
  notes: string[];
}

/**
 * Compiles a plain JSON Schema with ajv: 2020-12 by default, the dialect `$schema` names when
 * given (see dialectOf). A schema without `$schema` that 2020-12 refuses is read as draft-07
 * when that dialect accepts it. Compilation is cached per schema object. `notes` says what is
 * not checked: a `format` ajv does not know, a `pattern` RE2 runs only in part or not at all
 * (pattern.ts), a dialect fallback.
 * @throws Error when the schema itself is invalid (message names the problem).
 */
export function compileJsonSchema(schema: JsonSchema): CompiledSchema {
  const hit = compiled.get(schema);
  if (hit) return hit;
  const facts = factsOf(schema);
  const dialect = dialectOf(schema, facts);
  const { $schema: _drop, ...rest } = schema;
  const notes: string[] = [];
  let ajv = ajvOf(dialect);
  let check: ReturnType<typeof ajv.compile>;
  try {
    check = ajv.compile(rest);
  } catch (error) {
    if (schema.$schema !== undefined || dialect === "draft-07") throw error;
    try {
      ajv = ajvOf("draft-07");
      check = ajv.compile(rest);
    } catch {
      throw error;
    }
    notes.push("the schema is read as JSON Schema draft-07 (it is not valid 2020-12, the default)");
  }
  const known = ajv.formats as Record<string, unknown>;
  for (const format of new Set(facts.formats)) if (!(format in known)) notes.push(`format "${format}" is not checked`);
  for (const pattern of new Set(facts.patterns)) {
    const kind = checkPattern(pattern, "u").kind;
    if (kind === "partial") notes.push(`pattern "${pattern}" is checked without its lookaround and back-references (RE2 has neither)`);
    if (kind === "none") notes.push(`pattern "${pattern}" is not checked (RE2 cannot compile it)`);
  }
  const fn = (value: unknown): ValidationResult => {
    if (check(value)) return { ok: true, value: value as Record<string, unknown> };
    const errors = (check.errors ?? []).map((e) => {
      const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, ".") : "input";
      if (e.keyword === "additionalProperties") {
        return `${at}: unknown field "${(e.params as { additionalProperty: string }).additionalProperty}"`;
      }
      if (e.keyword === "required") return `${at}: missing required field "${(e.params as { missingProperty: string }).missingProperty}"`;
      return `${at}: ${e.message ?? "is invalid"}`;
    });
    return { ok: false, errors };
  };
  const out = { check: fn, notes };
  compiled.set(schema, out);
  return out;
}

/**
 * The validator of a plain JSON Schema (see compileJsonSchema).
 * @throws Error when the schema itself is invalid (message names the problem).
 */
export function jsonSchemaValidator(schema: JsonSchema): (value: unknown) => ValidationResult {
  return compileJsonSchema(schema).check;
}

function issuePath(path: StandardResult extends never ? never : ReadonlyArray<PropertyKey | { key: PropertyKey }> | undefined): string {
  if (!path || path.length === 0) return "input";
  return path.map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".");
}

/**
 * Normalises a tool's schema.
 * - Standard Schema with `~standard.jsonSchema` (Zod 4 and others): JSON Schema from it, validation
 *   by the library itself (so refinements and transforms apply).
 * - Zod 4 without that property: `z.toJSONSchema`.
 * - Plain object: taken as JSON Schema, validated with ajv.
 * @throws Error when the schema cannot give a JSON Schema.
 */
export async function normalizeSchema(schema: SchemaInput): Promise<NormalizedSchema> {
  if (isStandardSchema(schema)) {
    const std = schema["~standard"];
    let jsonSchema: JsonSchema | undefined;
    if (std.jsonSchema) {
      jsonSchema = std.jsonSchema.input({ target: "draft-2020-12" });
    } else if (std.vendor === "zod") {
      const { z } = await import("zod");
      jsonSchema = z.toJSONSchema(schema as never) as JsonSchema;
    }
    if (!jsonSchema) {
      throw new Error(`a ${std.vendor} schema that cannot give a JSON Schema: use Zod 4, a Standard JSON Schema library, or a plain JSON Schema`);
    }
    return {
      jsonSchema: tidyJsonSchema(jsonSchema),
      validate(value) {
        const result = std.validate(value);
        return isPromiseLike(result) ? Promise.resolve(result).then(fromStandard) : fromStandard(result);
      },
    };
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    throw new Error("inputSchema must be a Zod schema, a Standard Schema or a JSON Schema object");
  }
  const check = jsonSchemaValidator(schema);
  return { jsonSchema: schema, validate: check };
}

function fromStandard(result: StandardResult): ValidationResult {
  if (result && result.issues) return { ok: false, errors: result.issues.map((i) => `${issuePath(i.path)}: ${i.message}`) };
  // A result with neither issues nor a value is not a success (Standard Schema v1 → Result).
  if (!result || typeof result !== "object" || !("value" in result)) return { ok: false, errors: ["input: the validator gave no result"] };
  return { ok: true, value: result.value as Record<string, unknown> };
}

/** Drops the noise Zod adds for help output (the safe-integer bounds on `int()`). */
function tidyJsonSchema(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema), (_key, value) => {
    if (value && typeof value === "object" && !Array.isArray(value) && value.type === "integer") {
      if (value.minimum === Number.MIN_SAFE_INTEGER) delete value.minimum;
      if (value.maximum === Number.MAX_SAFE_INTEGER) delete value.maximum;
    }
    return value;
  });
}
