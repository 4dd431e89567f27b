/**
 * Builds a tool's input from the words and stdin of one `tools` call.
 *
 * See README → The `tools` command (Input). Kebab and snake case map to the same field; unknown or
 * mistyped fields are refused with the tool's signature, never dropped.
 */
import { effectiveSchema, objectFields, signature } from "../../../catalog/index.js";
import { PROTOTYPE_KEYS } from "../../../config/index.js";
import { ToolCallError, type CatalogTool, type JsonSchema } from "../../../tool/index.js";

/** The words after the tool name, and the command's stdin as text. */
export interface RawInput {
  args: string[];
  stdin: string;
}

/** Folds a key for matching: `dry-run`, `dry_run`, `dryRun` and `DRY_RUN` match. */
function keyFold(key: string): string {
  return key.replace(/[-_]/g, "").toLowerCase();
}

/** The schema's effective properties (`$ref`, `allOf` resolved: see catalog/schema.ts). */
function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  return objectFields(schema).properties;
}

/** The schema's property name a written key refers to (exact first, then folded), or the key itself. */
export function mapKey(schema: JsonSchema, key: string): string {
  const props = propertiesOf(schema);
  if (key in props) return key;
  const f = keyFold(key);
  const hit = Object.keys(props).find((k) => keyFold(k) === f);
  return hit ?? key;
}

function typesOf(prop: JsonSchema | undefined): Set<string> {
  const out = new Set<string>();
  if (!prop || typeof prop !== "object") return out;
  const t = prop.type;
  if (typeof t === "string") out.add(t);
  else if (Array.isArray(t)) for (const x of t) out.add(String(x));
  if (Array.isArray(prop.enum) && prop.enum.every((v) => typeof v === "string")) out.add("string");
  for (const alt of [prop.anyOf, prop.oneOf]) {
    if (Array.isArray(alt)) for (const a of alt) for (const x of typesOf(a as JsonSchema)) out.add(x);
  }
  return out;
}

/**
 * Reads one pair value: kept as text when the schema says the field is a string (and only a
 * string, or the JSON reading is not a type the field allows); otherwise JSON when it parses,
 * else text: `number=7` is a number and `repo=42` stays text (README "The `tools` command").
 */
export function readValue(prop: JsonSchema | undefined, text: string): unknown {
  const types = typesOf(prop);
  if (types.size === 1 && types.has("string")) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // `007` or `+5` are not JSON, but a number field means them as numbers.
    if ((types.has("number") || types.has("integer")) && !types.has("string") && /^[+-]?\d+(\.\d+)?$/.test(text)) return Number(text);
    return text;
  }
  if (types.has("string") && types.size > 0) {
    const kind = parsed === null ? "null" : Array.isArray(parsed) ? "array" : typeof parsed === "number" ? (Number.isInteger(parsed) ? "integer" : "number") : typeof parsed;
    const allowed = types.has(kind) || (kind === "integer" && types.has("number"));
    if (!allowed) return text;
  }
  return parsed;
}

function parseObject(text: string, where: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ToolCallError("invalid_input", `${where} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ToolCallError("invalid_input", `${where} must be a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`);
  }
  return value as Record<string, unknown>;
}

/**
 * Builds the input object for `tool` from the call's words and stdin.
 * - One JSON object argument (a word starting with `{`), or `-` for JSON on stdin.
 * - Without either, stdin is the input only when no pairs are given and stdin is not blank.
 * - Pairs `key=value`, `--key value`, `--key=value`, `--flag` (alone, or before another `--…`, is `true`).
 * - Pair keys map to schema fields across kebab/snake/camel case; pairs merge over the JSON.
 * @throws ToolCallError `invalid_input` naming the problem (bad JSON, two JSON sources, a stray word).
 */
export function buildInput(tool: CatalogTool, raw: RawInput): Record<string, unknown> {
  const schema = tool.inputSchema;
  const props = propertiesOf(schema);
  let base: Record<string, unknown> | undefined;
  const pairs: Array<[string, unknown]> = [];
  const { args } = raw;
  let useStdin = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i];
    if (word === "-") {
      if (useStdin) throw new ToolCallError("invalid_input", "`-` given twice");
      useStdin = true;
      continue;
    }
    if (word.startsWith("--") && word.length > 2) {
      const body = word.slice(2);
      const eq = body.indexOf("=");
      if (eq > 0) {
        const key = mapKey(schema, body.slice(0, eq));
        pairs.push([key, readValue(props[key], body.slice(eq + 1))]);
        continue;
      }
      const key = mapKey(schema, body);
      const types = typesOf(props[key]);
      const next = args[i + 1];
      const nextIsValue = next !== undefined && !next.startsWith("--") && next !== "-";
      if (types.size === 1 && types.has("boolean")) {
        if (nextIsValue && (next === "true" || next === "false")) {
          pairs.push([key, next === "true"]);
          i++;
        } else pairs.push([key, true]);
      } else if (nextIsValue && !(types.size === 0 && /^[A-Za-z_][\w.-]*=/.test(next))) {
        pairs.push([key, readValue(props[key], next)]);
        i++;
      } else pairs.push([key, true]);
      continue;
    }
    if (word.trimStart().startsWith("{")) {
      if (base) throw new ToolCallError("invalid_input", "more than one JSON object argument");
      base = parseObject(word, "the JSON argument");
      continue;
    }
    const eq = word.indexOf("=");
    if (eq > 0) {
      const key = mapKey(schema, word.slice(0, eq));
      pairs.push([key, readValue(props[key], word.slice(eq + 1))]);
      continue;
    }
    throw new ToolCallError(
      "invalid_input",
      `unexpected word ${JSON.stringify(word)}: give input as '{"key":…}', key=value or --key value. Signature: ${signature(tool.name, schema)}`,
    );
  }
  if (useStdin) {
    if (base) throw new ToolCallError("invalid_input", "both a JSON argument and `-` (stdin) given: use one");
    if (raw.stdin.trim() === "") throw new ToolCallError("invalid_input", "`-` given but stdin is empty");
    base = parseObject(raw.stdin, "stdin");
  } else if (!base && pairs.length === 0 && raw.stdin.trim() !== "") {
    try {
      base = parseObject(raw.stdin, "stdin");
    } catch (err) {
      throw new ToolCallError(
        "invalid_input",
        `${(err as Error).message} (a call with no arguments reads its input from stdin; inside \`while read\` that is the loop's input: add </dev/null or pass arguments)`,
      );
    }
  }
  for (const [k] of pairs) refuseUnsafeKey(k);
  if (base) refuseUnsafeInput(base);
  const input: Record<string, unknown> = { ...(base ?? {}) };
  for (const [k, v] of pairs) input[k] = v;
  return input;
}

/** Refuses a field name that would reach an object's prototype instead of being a field (config `PROTOTYPE_KEYS`). */
function refuseUnsafeKey(key: string): void {
  if (PROTOTYPE_KEYS.has(key)) throw new ToolCallError("invalid_input", `the field name ${JSON.stringify(key)} is not allowed`);
}

/**
 * Refuses what JSON cannot carry faithfully, at any depth: `__proto__`, `constructor` and
 * `prototype` as field names (they would slip a value past the schema check and the approval
 * key), and numbers that are not finite (`1e400` parses to Infinity, which the approval shows
 * and keys as `null`: a grant for `null` must not cover Infinity).
 * @throws ToolCallError `invalid_input`.
 */
export function refuseUnsafeInput(value: unknown): void {
  refuseDeepInput(value);
  refuseUnsafeParts(value);
}

/** How deep objects and arrays may nest in a tool's input, and in each field of an HTTP API body. */
export const MAX_INPUT_DEPTH = 64;

/**
 * Refuses a value whose objects and arrays nest more than {@link MAX_INPUT_DEPTH} levels, before
 * anything walks it (recording, hashing, printing would run out of stack). Stops at the limit.
 * @param what names the value in the message (`the input`, `"metadata"`).
 * @throws ToolCallError `invalid_input`.
 */
export function refuseDeepInput(value: unknown, what = "the input"): void {
  const walk = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== "object") return;
    if (depth > MAX_INPUT_DEPTH) throw new ToolCallError("invalid_input", `${what} is nested more than ${MAX_INPUT_DEPTH} levels deep`);
    for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x, depth + 1);
  };
  walk(value, 0);
}

/**
 * refuseUnsafeInput's walk, on a value refuseDeepInput let through: the field names and numbers
 * JSON cannot carry faithfully. The HTTP API's bodies (and so webhook payloads) take it too.
 * @throws ToolCallError `invalid_input`.
 */
export function refuseUnsafeParts(value: unknown): void {
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new ToolCallError("invalid_input", `the number ${String(value)} is out of range (numbers must be finite)`);
  }
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    for (const v of value) refuseUnsafeParts(v);
    return;
  }
  // A field reached through the object's prototype (one set through `__proto__` by a parser that
  // assigns) would be read by the tool but never shown: refused like the key itself.
  for (const k in value) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) throw new ToolCallError("invalid_input", `the field ${JSON.stringify(k)} is inherited, not the input's own (a "__proto__" key?): send plain JSON`);
  }
  for (const k of Object.keys(value)) {
    refuseUnsafeKey(k);
    refuseUnsafeParts((value as Record<string, unknown>)[k]);
  }
}

/**
 * Refuses fields the schema does not name (unless it allows additional properties), with the
 * tool's signature. @throws ToolCallError `invalid_input`.
 */
export function checkKnownFields(tool: CatalogTool, input: Record<string, unknown>): void {
  const schema = effectiveSchema(tool.inputSchema);
  const props = propertiesOf(schema);
  const extra = schema.additionalProperties;
  if (extra === true || (typeof extra === "object" && extra !== null)) return;
  if (Object.keys(props).length === 0 && extra === undefined && schema.type !== "object") return;
  const unknown = Object.keys(input).filter((k) => !(k in props));
  if (unknown.length) {
    throw new ToolCallError(
      "invalid_input",
      `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")}. Signature: ${signature(tool.name, schema)}`,
    );
  }
}
