/**
 * Checks of what a saved script is made of: its name, description, input schema and body.
 * Shared by `tools scripts save` and the HTTP API, so both refuse the same things.
 *
 * See docs/sessions.md → Saved scripts.
 */
import { jsonSchemaValidator, ToolCallError } from "../tool/index.js";

/** Longest script name. */
export const MAX_NAME = 64;
/** Largest body, in bytes (UTF-8). */
export const MAX_BODY_BYTES = 256 * 1024;
/** Longest description, in characters. */
export const MAX_DESCRIPTION = 2000;

const RESERVED = new Set(["save", "show", "versions", "archive", "unarchive", "list", "help"]);

/**
 * The canonical name of a script: lower case, `_` written `-` (the catalog folds them anyway).
 * @throws ToolCallError `invalid_input` when it is not 1–64 letters, digits, `-`, `_`, starting
 *         with a letter or digit, or is one of the `tools scripts` verbs.
 */
export function scriptName(raw: unknown): string {
  if (typeof raw !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(raw) || raw.length > MAX_NAME) {
    throw new ToolCallError("invalid_input", `a script name is 1 to ${MAX_NAME} letters, digits, "-" or "_", starting with a letter or digit; got ${JSON.stringify(raw)}`);
  }
  const name = raw.toLowerCase().replace(/_/g, "-");
  if (RESERVED.has(name)) throw new ToolCallError("invalid_input", `"${name}" is a tools scripts command, not a script name`);
  return name;
}

/** True when an input schema names fields (a kept schema worth saying). */
export function hasFields(schema: Record<string, unknown>): boolean {
  const p = schema.properties;
  return !!p && typeof p === "object" && Object.keys(p).length > 0;
}

/**
 * What a save says of a script whose input schema names no fields (the default of a first
 * version): a run given `key=value` or JSON is refused, which a body reading its input (`jq -r
 * .who`) would not expect. Undefined when it names fields, or allows any (`additionalProperties`).
 */
export function noFieldsNote(schema: Record<string, unknown>): string | undefined {
  if (hasFields(schema) || schema.additionalProperties === true || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return undefined;
  return `it takes no input (its input schema names no fields): a run given key=value or JSON is refused; save it with --input-schema '{"type":"object","properties":{"who":{"type":"string"}}}' to take some`;
}

/** A script as checked for saving. */
export interface CheckedScript {
  name: string;
  description: string;
  /** Absent when none was given: a new version keeps the previous one's (ScriptInput). */
  input_schema?: Record<string, unknown>;
  body: string;
}

/**
 * Checks a script for saving.
 * @throws ToolCallError `invalid_input` naming the field: a bad name; a missing or too long
 *         description; an input schema that is not a JSON object schema (`type` "object", or no
 *         `type` — then "object" is added) or does not compile; an empty or too large body.
 */
export function checkScriptInput(x: { name: unknown; description: unknown; input_schema?: unknown; body: unknown }): CheckedScript {
  const name = scriptName(x.name);
  if (typeof x.description !== "string" || !x.description.trim()) throw new ToolCallError("invalid_input", "a saved script needs a description (--description '...'): it is what tools --help and tools search show");
  if (x.description.length > MAX_DESCRIPTION) throw new ToolCallError("invalid_input", `the description is longer than ${MAX_DESCRIPTION} characters`);
  let schema = x.input_schema;
  if (schema !== undefined && (typeof schema !== "object" || schema === null || Array.isArray(schema))) throw new ToolCallError("invalid_input", "the input schema must be a JSON Schema object such as {\"type\":\"object\",\"properties\":{...}}");
  if (schema !== undefined) {
    const s = schema as Record<string, unknown>;
    if (s.type === undefined) schema = { type: "object", ...s };
    else if (s.type !== "object") throw new ToolCallError("invalid_input", `the input schema must describe an object (type "object"), got type ${JSON.stringify(s.type)}`);
    try {
      jsonSchemaValidator(schema as Record<string, unknown>);
    } catch (err) {
      throw new ToolCallError("invalid_input", `the input schema does not compile: ${(err as Error).message}`);
    }
  }
  if (typeof x.body !== "string" || !x.body.trim()) throw new ToolCallError("invalid_input", "the script body is empty: pipe it on stdin (cat body.sh | tools scripts save NAME …)");
  if (Buffer.byteLength(x.body, "utf8") > MAX_BODY_BYTES) throw new ToolCallError("invalid_input", `the script body is larger than ${MAX_BODY_BYTES} bytes`);
  return { name, description: x.description.trim(), ...(schema !== undefined ? { input_schema: schema as Record<string, unknown> } : {}), body: x.body };
}
