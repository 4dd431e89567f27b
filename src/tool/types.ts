/**
 * The shapes every source of tools shares: a tool as the catalog sees it, what invoking it
 * returns, the error a call can end in, and a source of tools.
 *
 * See docs/architecture.md; README → The `tools` command (Output, Errors); MCP spec 2025-06-18
 * "Tools" (annotations, content blocks).
 */

import type { ProgressUpdate, Question, QuestionAnswer } from "./person.js";

/** A JSON Schema object, as produced by normalising Zod / Standard Schema / plain JSON Schema. */
export type JsonSchema = Record<string, unknown>;

/** Behaviour hints (MCP tool annotations or a tool's own definition). Absent = not declared. */
export interface Hints {
  readOnly?: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  openWorld?: boolean;
}

/** The error codes of the error line, fixed by README "The `tools` command" → Errors. */
export type ErrorCode =
  | "unknown_command"
  | "invalid_input"
  | "tool_error"
  | "denied"
  | "needs_approval"
  | "stopped"
  | "connection_required"
  | "call_limit"
  | "unavailable"
  | "internal";

/**
 * The one error a tool call can end in. Rendered by the `tools` command as
 * `{"error":{"code","message","retryable"}}` on stderr with exit code 1.
 */
export class ToolCallError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  constructor(code: ErrorCode, message: string, retryable = false) {
    super(message);
    this.name = "ToolCallError";
    this.code = code;
    this.retryable = retryable;
  }
  /** The JSON error object of README "The `tools` command" → Errors (without the trailing newline). */
  toJSON(): { error: { code: ErrorCode; message: string; retryable: boolean } } {
    return { error: { code: this.code, message: this.message, retryable: this.retryable } };
  }
}

/**
 * Any thrown value as a ToolCallError: the one conversion every surface uses. A ToolCallError is
 * kept; one from another copy of this module (same name, a `code`) is rebuilt; anything else is
 * `tool_error` with its message. Never throws.
 */
export function toToolCallError(err: unknown): ToolCallError {
  if (err instanceof ToolCallError) return err;
  if (err && typeof err === "object" && (err as { name?: unknown }).name === "ToolCallError" && typeof (err as { code?: unknown }).code === "string") {
    const e = err as { code: ErrorCode; message?: unknown; retryable?: unknown };
    return new ToolCallError(e.code, String(e.message ?? ""), e.retryable === true);
  }
  let message: string;
  try {
    message = err instanceof Error ? err.message || err.name : String(err);
  } catch {
    message = "the call failed";
  }
  return new ToolCallError("tool_error", message);
}

/**
 * The error of a call, or a shell call, whose output could not be redacted (the redactor threw:
 * a value nested deeper than it reaches, say). Its message is fixed: nothing derived from the
 * value, nor from the redactor's own error, is shown (docs/security.md "Secrets" → When
 * redaction fails).
 */
export function redactionFailed(): ToolCallError {
  return new ToolCallError("internal", "the output could not be redacted; nothing of it is shown");
}

/** A binary block a tool returned (image or audio), base64 data as MCP carries it. */
export interface MediaBlock {
  kind: "image" | "audio";
  mimeType: string;
  /** base64-encoded bytes */
  data: string;
}

/**
 * What invoking a tool gives back, before rendering:
 * - `text`: printed as is (a text result);
 * - `json`: printed as JSON (structured content, objects, resource links);
 * - `media`: binary blocks written under `tool-images/` by the `tools` command.
 */
export interface ToolOutput {
  kind: "text" | "json";
  text?: string;
  value?: unknown;
  media?: MediaBlock[];
  /** The tool's full raw return (for hooks, events and `toModelOutput`). */
  raw?: unknown;
  /**
   * `value` as JSON text exactly as the source sent it, set only when that text holds integers
   * beyond 2^53 that `value` rounds (docs/mcp.md "Integers beyond 2^53"). The `tools` command
   * prints it instead of `JSON.stringify(value)` while it still stands for `value` (see
   * {@link jsonText}); redaction applies to it as to `text`.
   */
  json?: string;
}

/**
 * The JSON text of a `json` output: `output.json` while it still stands for `output.value` (a
 * hook that replaced the value makes it stale, and it is then ignored), else
 * `JSON.stringify(output.value)` (`null` for undefined). Never throws for JSON values.
 */
export function jsonText(output: ToolOutput): string {
  const fallback = JSON.stringify(output.value === undefined ? null : output.value);
  if (output.json === undefined) return fallback;
  try {
    return JSON.stringify(JSON.parse(output.json)) === fallback ? output.json : fallback;
  } catch {
    return fallback;
  }
}

/** One link of what started a call: a saved script, a trigger, or a parent session. */
export interface CallOrigin {
  kind: "saved_script" | "trigger" | "session";
  /** The script's name, the trigger's id, or the parent session's id. */
  id: string;
  /** The trigger's name. */
  name?: string;
  /** The saved script's version. */
  version?: number;
  /** SHA-256 (hex) of the saved script's body: approval answers given inside it are bound to it. */
  sha256?: string;
  /**
   * A trigger acting for a principal other than its agent's: when that principal last changed it.
   * Saved script versions saved later are not run for them (docs/security.md "Who acts for whom").
   */
  vouchedAt?: string;
}

/**
 * The session a call runs in, as a tool sees it (`ctx.session`): its metadata, the turn, the
 * principal it acts for, and what started the call. README "ctx".
 */
export interface CallSessionInfo {
  id: string;
  metadata: Record<string, unknown>;
  /** The turn: the shell call (`call_bash_<n>`) and durable step a nested call belongs to; the call's own id always. */
  turn: { callId: string; shellCallId?: string; stepId?: string };
  /**
   * Who the session acts for. `principal`: whose credentials its calls use (OAuth sign-ins are
   * kept per principal) — `metadata.principal`, else `metadata.agent_id`, else `default`.
   * `client`: what reached it, set by the surface — `api:token-<n>` (the HTTP API token that
   * created it, by its place in the config), `mcp:<client name>` (the gateway), `cli:<user>`
   * (the CLI), `trigger:<id>`.
   */
  auth: { principal: string; agentId?: string; client?: string };
  /** What started this call, innermost first (a saved script inside a trigger: [script, trigger]). Empty for a call the model made. */
  parent: CallOrigin[];
}

/** Everything a tool's `execute` / a source's `invoke` can reach during one call. */
export interface InvokeContext {
  /** Aborts when the shell call ends or times out. */
  signal: AbortSignal;
  /** The session: id, metadata, turn, auth, parent lineage. */
  session: CallSessionInfo;
  /** Identifies this nested call, e.g. `call_bash_1:tools:0:get_weather`. */
  callId: string;
  /** The session's sandbox (virtual filesystem + the same shell); see tool/define.ts. */
  getSandbox: () => SandboxHandle;
  /** Reads a packaged skill. */
  getSkill: (id: string) => Promise<Skill>;
  /**
   * Reports this call's progress to the person: a `tool.progress` session event, a line on the
   * CLI's stderr, an MCP progress notification from the gateway (docs/mcp.md "Progress").
   * Never throws.
   */
  reportProgress?: (update: ProgressUpdate) => void;
  /**
   * Asks the person a question (form mode, MCP "Elicitation"); resolves with an answer that
   * matches the question's schema, or `decline` with `unanswered` when nobody can answer here.
   * Never rejects.
   */
  ask?: (question: Question) => Promise<QuestionAnswer & { unanswered?: string }>;
  /**
   * Inside a durable step (docs/sessions.md "Durable steps"), for a call an MCP server may answer
   * with a task (Tasks extension): `resume` is the task an earlier attempt of this call started,
   * followed instead of calling the tool again; `started` is told the task's id when the call is
   * answered with a task, so that a later attempt can re-attach to it. Never throws.
   */
  upstreamTask?: { resume?: string; started(taskId: string): void };
}

/** The session's sandbox as a tool sees it through `ctx.getSandbox()`. */
export interface SandboxHandle {
  readFile(path: string): Promise<string>;
  readFileBytes(path: string): Promise<Uint8Array>;
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  exists(path: string): Promise<boolean>;
  /** Runs a command in the same sandboxed shell (no `tools` budget is spent unless it calls `tools`). */
  run(command: string, options?: { stdin?: string; cwd?: string }): Promise<{ stdout: string; stderr: string; exitCode: number }>;
  /** The working directory of the shell. */
  cwd: string;
}

/** A packaged skill: `agent/skills/<id>/SKILL.md` with front matter, and the files beside it. */
export interface Skill {
  id: string;
  /** Front matter of SKILL.md (simple `key: value` lines). */
  metadata: Record<string, string>;
  /** SKILL.md without its front matter. */
  body: string;
  /** Paths of the other files, relative to the skill folder. */
  files: string[];
  readFile(relativePath: string): Promise<string>;
}

/** Approval policy answer of a tool's own `needsApproval` function (README "Use it from code", README "Approvals"). */
export type ApprovalVerdict =
  | "user-approval"
  | "not-applicable"
  | "approved"
  | "denied"
  | { type: "user-approval" | "not-applicable" | "approved" | "denied"; reason?: string }
  | boolean;

/** What an approval predicate receives. */
export interface ApprovalRequestInfo {
  toolName: string;
  input: Record<string, unknown>;
  session: { id: string; metadata: Record<string, unknown> };
  approvedTools: ReadonlySet<string>;
  callId: string;
}

/** A tool's approval policy: a helper's marker (always/once/never) or a predicate. */
export type ApprovalPolicy =
  | { kind: "always" }
  | { kind: "once" }
  | { kind: "never" }
  | { kind: "predicate"; fn: (info: ApprovalRequestInfo) => ApprovalVerdict | Promise<ApprovalVerdict> };

/** Check result of an input against a tool's schema. */
export type ValidationResult = { ok: true; value: Record<string, unknown> } | { ok: false; errors: string[] };

/**
 * A tool as the catalog sees it, whatever its source.
 * `name` is the tool's own name (e.g. `list_pulls`), unique within its source.
 */
export interface CatalogTool {
  name: string;
  /** The source's name: `local` for top-level tools, the server name for MCP, `scripts` for saved scripts. */
  source: string;
  /** True when the tool is grouped under its source (`tools <source> <name>`), false for top-level tools. */
  grouped: boolean;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  hints: Hints;
  /** True when the tool declared any hint (MCP annotations or definition hints). */
  hintsDeclared: boolean;
  /** The tool's own approval policy, when it has one (local tools). */
  approval?: ApprovalPolicy;
  /** True when the tool must stay a direct tool for the model (README "What the model sees"). */
  staysDirect?: boolean;
  /** Set for the stand-in of a tool file that did not load: the file and why (every call answers `unavailable`). */
  notLoaded?: string;
  /**
   * What provides the tool, when its name alone does not say (an MCP server's command or URL,
   * hashed). Approval answers are bound to it: a different server under the same name asks again.
   */
  identity?: string;
  /**
   * What else defines the tool beyond its description, schemas and hints (a saved script's body,
   * a local tool's `execute` code; SHA-256 hex): part of the definition approval answers are
   * bound to (`definitionHash`).
   */
  revision?: string;
  /**
   * Checks (and may coerce) an input against the input schema. Synchronous when the validator is
   * (ajv, most Standard Schema libraries), so the hot path of a nested call awaits nothing here.
   */
  validate(input: Record<string, unknown>): MaybePromise<ValidationResult>;
  /** Runs the tool. Throws ToolCallError for every failure. */
  invoke(input: Record<string, unknown>, ctx: InvokeContext): Promise<ToolOutput>;
  /** Shapes what a direct (non-shell) caller shows the model (README "Use it from code" → toModelOutput). */
  toModelOutput?: (output: unknown) => { type: "text"; value: string } | { type: "json"; value: unknown };
}

/** Where a call came from: a `tools` command inside a script, or a direct call by the model. */
export type CallVia = "shell" | "direct";

/**
 * One tool call, whatever surface made it (a script's `tools` command, the AI SDK adapter, the
 * MCP gateway, a saved script, a trigger, the HTTP API). The policy judges it, hooks see it, an
 * approval request is raised from it, and the call pipeline (`src/call/`) carries it through
 * its steps.
 */
export interface ToolCall {
  /** Unique within the session: `call_bash_1:tools:0:get_weather` nested, `direct:<id>` direct. */
  callId: string;
  tool: CatalogTool;
  /** The command words as the catalog spells them, e.g. `tools github list-pulls`. */
  command: string;
  /**
   * The input exactly as the script, the model or a before-hook gave it (JSON values only).
   * Approval answers are keyed on it and a person is shown it (see docs/security.md).
   */
  given: Record<string, unknown>;
  /** The input after the tool's schema parsed it: what `execute` receives. */
  input: Record<string, unknown>;
  sessionId: string;
  sessionMetadata: Record<string, unknown>;
  via: CallVia;
  /** The shell call a nested call runs in (`call_bash_<n>`). */
  parentId?: string;
  /** Position of a nested call in its shell call (0-based); the call budget counts it. */
  index?: number;
  /** 1-based script line of a nested call written out literally, when the preflight found it. */
  line?: number;
  /** The durable step the shell call belongs to (`session.bash(script, { stepId })`). */
  stepId?: string;
}

/** A value, or a promise of it: returned by hot-path steps that are usually synchronous. */
export type MaybePromise<T> = T | PromiseLike<T>;

/**
 * True for anything with a `then` method: a native promise, one from another realm (a `vm`
 * context) or a library's own thenable. `instanceof Promise` misses the last two, and a
 * validator's thenable read as a plain result would let any input through.
 */
export function isPromiseLike<T>(value: MaybePromise<T>): value is PromiseLike<T> {
  return (typeof value === "object" || typeof value === "function") && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** Load state of a source (MCP servers may load on demand). */
export type SourceState = "ready" | "not_loaded" | "failed";

/**
 * A source of tools: the local tools, one MCP server, or saved scripts.
 * `tools()` returns the current snapshot; `load()` brings an on-demand or failed source up.
 */
export interface ToolSource {
  readonly name: string;
  readonly kind: "local" | "mcp" | "scripts";
  /** `not_loaded` for an on-demand source not yet started. */
  state(): SourceState;
  /** Why the source failed, when state() is `failed`. */
  failure?(): ToolCallError | undefined;
  /** The tools known now (empty while not loaded). */
  tools(): CatalogTool[];
  /** Listed tools left out because their command words repeat an earlier tool's (`kept`). */
  leftOut?(): Array<{ name: string; kept: string }>;
  /** Re-reads what the source lists from where it is kept (saved scripts), before a shell call builds its catalog. Never throws. */
  refresh?(): Promise<void>;
  /** Loads (connects / spawns) the source; resolves when its tools are listed. Throws ToolCallError. */
  load(signal?: AbortSignal): Promise<void>;
  /** Stops processes and connections. */
  close?(): Promise<void>;
}
