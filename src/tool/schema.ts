/**
 * Schema adapters: Zod 4, any Standard Schema that can give a JSON Schema, or a plain JSON
 * Schema object → one JSON Schema (for help, signatures and plans) and one validator (for calls).
 *
 * Rule source: README "Use it from code" → Define a tool ("a Zod schema (or any Standard Schema, or a plain
 * JSON Schema object)"); Standard Schema v1 and Standard JSON Schema (`~standard.jsonSchema`).
 */
import { createRequire } from "node:module";
import { canonicalJson } from "./canonical.js";
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
    jsonSchema?: { input: (options: { target: string }) => JsonSchema };
  };
}
type StandardResult =
  | { value: unknown; issues?: undefined }
  | { issues: ReadonlyArray<{ message: string; path?: ReadonlyArray<PropertyKey | { key: PropertyKey }> }> };

/** A normalised schema: its JSON Schema and a validator returning the checked value. */
export interface NormalizedSchema {
  jsonSchema: JsonSchema;
  validate(value: unknown): MaybePromise<ValidationResult>;
}

let ajv07: InstanceType<AjvClass> | undefined;
let ajv2020: InstanceType<AjvClass> | undefined;
const compiled = new WeakMap<object, (value: unknown) => ValidationResult>();

/**
 * Schema `pattern`s run on RE2 (linear time), so a schema from an MCP server or a saved script
 * cannot stall the process with a backtracking pattern (ReDoS). A pattern RE2 cannot compile
 * (lookaround, back-references) matches nothing: a value against it is refused.
 */
function re2Engine(): ((pattern: string, flags: string) => { test: (s: string) => boolean }) & { code: string } {
  const { RE2JS } = require("re2js") as typeof import("re2js");
  const engine = (pattern: string, flags: string) => {
    try {
      const re = RE2JS.compile(pattern, flags.includes("i") ? RE2JS.CASE_INSENSITIVE : 0);
      // ajv keys its cache of patterns by toString(): each must say which pattern it is.
      return { test: (value: string) => re.matcher(value).find(), toString: () => `/${pattern}/${flags}` };
    } catch {
      // Lookaround and back-references have no linear-time form: such a pattern matches
      // nothing (fail closed) rather than risk a backtracking engine on untrusted input.
      return { test: () => false, toString: () => `/${pattern}/${flags} (unsupported)` };
    }
  };
  return Object.assign(engine, { code: 'require("re2js")' });
}

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

function ajvFor(schema: JsonSchema): InstanceType<AjvClass> {
  const addFormats = load<(ajv: unknown) => void>("ajv-formats");
  const draft = typeof schema.$schema === "string" ? schema.$schema : "";
  if (draft.includes("2020-12") || draft.includes("2019-09")) {
    if (!ajv2020) {
      ajv2020 = withLinearUniqueItems(new (load<AjvClass>("ajv/dist/2020"))({ allErrors: false, strict: false, validateFormats: true, code: { regExp: re2Engine() } }));
      addFormats(ajv2020);
    }
    return ajv2020;
  }
  if (!ajv07) {
    ajv07 = withLinearUniqueItems(new (load<AjvClass>("ajv"))({ allErrors: false, strict: false, validateFormats: true, code: { regExp: re2Engine() } }));
    addFormats(ajv07);
  }
  return ajv07;
}

/** True when `value` implements Standard Schema v1. */
export function isStandardSchema(value: unknown): value is StandardSchemaLike {
  return typeof value === "object" && value !== null && "~standard" in value;
}

/**
 * Compiles a plain JSON Schema with ajv (draft-07 by default, 2020-12 / 2019-09 when `$schema`
 * says so). Compilation is cached per schema object.
 * @throws Error when the schema itself is invalid (message names the problem).
 */
export function jsonSchemaValidator(schema: JsonSchema): (value: unknown) => ValidationResult {
  const hit = compiled.get(schema);
  if (hit) return hit;
  const ajv = ajvFor(schema);
  const { $schema: _drop, ...rest } = schema;
  const check = ajv.compile(rest);
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
  compiled.set(schema, fn);
  return fn;
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
