/**
 * `defineTool` and the approval helpers `always()`, `once()`, `never()`.
 *
 * See README → Use it from code.
 */
import type { ApprovalPolicy, ApprovalRequestInfo, ApprovalVerdict, Hints, InvokeContext, JsonSchema } from "./types.js";
import type { SchemaInput, StandardSchemaLike } from "./schema.js";

/**
 * The input type a schema infers: Standard Schema's output type, else a plain record. `types` is
 * read through `NonNullable`: Zod 4 declares it `types?: … | undefined`, which a plain
 * `types?: { output: infer O }` does not match under `exactOptionalPropertyTypes`.
 */
export type InferInput<S> = S extends { "~standard": { types?: infer T } }
  ? NonNullable<T> extends { output: infer O } ? (O extends Record<string, unknown> ? O : Record<string, unknown>) : Record<string, unknown>
  : Record<string, unknown>;

/** What `toModelOutput` returns. */
export type ModelOutput = { type: "text"; value: string } | { type: "json"; value: unknown };

/** The options of `defineTool`. */
export interface ToolDefinitionOptions<S extends SchemaInput, R> {
  /** The model-facing name; defaults to the file's slug when loaded from `agent/tools/`. */
  name?: string;
  /** What the tool does, written for the model. */
  description: string;
  /** Zod 4, any Standard Schema with a JSON Schema, or a plain JSON Schema object. Required. */
  inputSchema: S;
  /** Optional schema of the return value (documentation, and checked when a Standard Schema). */
  outputSchema?: SchemaInput;
  /** The implementation; sync or async. Runs in the host process, never in the sandbox. */
  execute: (input: InferInput<S>, ctx: InvokeContext) => R | Promise<R>;
  /** Approval policy (`always()`, `once()`, `never()`, or a predicate). `needsApproval` is an alias. */
  approval?: ApprovalPolicy | ApprovalPredicate;
  needsApproval?: ApprovalPolicy | ApprovalPredicate;
  /** Shapes what a direct (non-shell) caller shows the model. Inside the shell the full output is printed. */
  toModelOutput?: (output: Awaited<R>) => ModelOutput;
  /** Behaviour hints: readOnly, destructive, idempotent, openWorld. */
  hints?: Hints;
  /** Keep this tool a direct tool for the model (never hidden behind `tools`). */
  staysDirect?: boolean;
}

/** A predicate deciding approval per call. `true` means ask. */
export type ApprovalPredicate = (info: ApprovalRequestInfo) => ApprovalVerdict | Promise<ApprovalVerdict>;

/** A defined tool, as `defineTool` returns it and as an `agent/tools/*.ts` file exports it. */
export interface ToolDefinition {
  readonly __toolshellTool: true;
  name?: string;
  description: string;
  inputSchema: SchemaInput;
  outputSchema?: SchemaInput;
  execute: (input: any, ctx: InvokeContext) => unknown;
  approval?: ApprovalPolicy;
  toModelOutput?: (output: any) => ModelOutput;
  hints?: Hints;
  staysDirect?: boolean;
}

/** Why a tool file did not load, for the stand-in tool `loadToolsDir` made in its place. */
const NOT_LOADED = new WeakMap<ToolDefinition, string>();

/** Marks `def` as the stand-in of a tool file that did not load, and why (the file and the error). */
export function markNotLoaded(def: ToolDefinition, why: string): ToolDefinition {
  NOT_LOADED.set(def, why);
  return def;
}

/** Why `def` stands in for a tool file that did not load, or undefined for a real tool. */
export function notLoaded(def: ToolDefinition): string | undefined {
  return NOT_LOADED.get(def);
}

/**
 * Defines a tool. Checks the definition's shape eagerly; never runs `execute`.
 * @throws TypeError when `description`, `inputSchema` or `execute` is missing or of the wrong type,
 *         or when `name` is not a valid tool name (letters, digits, `_`, `-`, `.`; 1–64 chars).
 */
export function defineTool<S extends SchemaInput, R>(options: ToolDefinitionOptions<S, R>): ToolDefinition {
  if (!options || typeof options !== "object") throw new TypeError("defineTool: expected an options object");
  if (typeof options.description !== "string" || options.description.trim() === "") {
    throw new TypeError("defineTool: `description` is required (a non-empty string written for the model)");
  }
  if (options.inputSchema === undefined || options.inputSchema === null || typeof options.inputSchema !== "object") {
    throw new TypeError("defineTool: `inputSchema` is required (use z.object({}) for no input)");
  }
  if (typeof options.execute !== "function") throw new TypeError("defineTool: `execute(input, ctx)` is required");
  if (options.name !== undefined) assertToolName(options.name);
  const policy = options.approval ?? options.needsApproval;
  return {
    __toolshellTool: true,
    name: options.name,
    description: options.description,
    inputSchema: options.inputSchema as SchemaInput,
    outputSchema: options.outputSchema,
    execute: options.execute as ToolDefinition["execute"],
    approval: policy === undefined ? undefined : toPolicy(policy),
    toModelOutput: options.toModelOutput as ToolDefinition["toModelOutput"],
    hints: options.hints,
    staysDirect: options.staysDirect,
  };
}

/** True when `value` came from `defineTool`. */
export function isToolDefinition(value: unknown): value is ToolDefinition {
  return typeof value === "object" && value !== null && (value as ToolDefinition).__toolshellTool === true;
}

/**
 * Checks a tool name: 1–64 characters of letters, digits, `_`, `-`, `.` (MCP spec 2025-06-18
 * tool-name guidance), starting with a letter or digit.
 * @throws TypeError naming the bad name.
 */
export function assertToolName(name: string): void {
  if (typeof name !== "string" || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new TypeError(`invalid tool name ${JSON.stringify(name)}: use 1-64 letters, digits, "_", "-" or "."`);
  }
}

function toPolicy(policy: ApprovalPolicy | ApprovalPredicate): ApprovalPolicy {
  if (typeof policy === "function") return { kind: "predicate", fn: policy };
  if (policy && typeof policy === "object" && ["always", "once", "never", "predicate"].includes((policy as ApprovalPolicy).kind)) {
    return policy;
  }
  throw new TypeError("defineTool: `approval` must be always(), once(), never() or a function");
}

/** Approval helper: ask before every call of the tool. README "Defining tools" → approval helpers. */
export function always(): ApprovalPolicy {
  return { kind: "always" };
}
/** Approval helper: ask the first time the tool runs in a session; an explicit yes is remembered. */
export function once(): ApprovalPolicy {
  return { kind: "once" };
}
/** Approval helper: never ask for this tool (other guardrails still apply). */
export function never(): ApprovalPolicy {
  return { kind: "never" };
}

export type { JsonSchema, StandardSchemaLike };
