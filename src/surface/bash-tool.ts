/**
 * What the model sees, shared by the MCP gateway and the AI SDK adapter: the `bash` tool (its
 * input schema, its description with the one-line list of sources, its result), the direct tools
 * and their names, and the approvals a `bash` call is held for.
 *
 * See docs/agents.md → What the model sees; README → Approvals.
 */
import type { Person } from "../call/index.js";
import { Catalog, shortDescription, sourceSummary } from "../catalog/index.js";
import { describeScripts, type ApprovalRequest } from "../policy/index.js";
import { describeFlags, showInput, showName } from "../display/show-input.js";
import type { Session, ShellResult, StopReport, ToolShell } from "../runtime/index.js";
// The shell's own notes for agents (docs/shell.md); the CLI reads them from the same file.
import { SHELL_NOTES } from "../shell/defaults.js";
import type { CatalogTool, JsonSchema, ToolSource } from "../tool/index.js";

/** The name of the one tool every other tool sits behind. */
export const BASH_TOOL_NAME = "bash";
/** The approve tool of MCP clients that cannot answer an elicitation (docs/agents.md). */
export const APPROVE_TOOL_NAME = "toolshell_approve";
/** Characters of stdout (and of stderr) a `bash` result keeps before cutting the middle. */
export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;
/** Top-level tools named one by one in the sources line; past this only their count. */
const TOP_LEVEL_NAMED = 8;
/** Servers listed as `name (N tools)`; past this, as `name N`. */
const COMPACT_AFTER = 10;

/** The `bash` tool's input. */
export interface BashToolInput {
  /** The bash script to run as one shell call. */
  command: string;
  /** Time limit of this call in milliseconds (default and maximum: the host's `timeoutMs`, option or config). */
  timeout_ms?: number;
}

/** A tool definition as a model (or an MCP client) receives it. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/**
 * The `bash` tool's input schema: `{ command: string, timeout_ms?: integer }`.
 * @param maxTimeoutMs the largest `timeout_ms` accepted (the configured time limit).
 */
export function bashInputSchema(maxTimeoutMs: number): JsonSchema {
  return {
    type: "object",
    properties: {
      command: { type: "string", description: "The bash script" },
      timeout_ms: { type: "integer", description: `Time limit in ms (default and max ${maxTimeoutMs})` },
    },
    required: ["command"],
    additionalProperties: false,
  };
}

/**
 * The one-line list of sources: each MCP server with its tool count or `(not loaded)` /
 * `(failed …)`, saved scripts, then the top-level tools (named when few, else counted), e.g.
 * `github (35 tools), linear (not loaded); top-level: triage, word-stats`. Past ten servers the
 * counts go bare: `(tool counts) github 35, linear (not loaded), …`.
 */
export function describeSources(catalog: Catalog): string {
  const parts: string[] = [];
  const grouped = catalog.groupedSources();
  // Past COMPACT_AFTER servers, counts alone (`github 35`) keep the line short.
  const compact = grouped.length > COMPACT_AFTER;
  for (const s of grouped) {
    const text = summary(s);
    parts.push(compact && /^\d+ /.test(text) ? `${s.name} ${text.split(" ")[0]}` : `${s.name} (${text})`);
  }
  if (compact) parts[0] = `(tool counts) ${parts[0]}`;
  const top = catalog.topLevelTools();
  let line = parts.join(", ");
  if (top.length) {
    const names = top.map((t) => t.name.replace(/_/g, "-"));
    const list = top.length <= TOP_LEVEL_NAMED ? names.join(", ") : `${top.length} (tools --help lists them)`;
    line += `${line ? "; " : ""}top-level: ${list}`;
  }
  return line || "none configured";
}

function summary(s: ToolSource): string {
  const state = s.state();
  if (state === "failed") return "failed to start; tools --help says why";
  return sourceSummary(s).replace(/^\((.*)\)$/, "$1");
}

/**
 * The `bash` tool's description: what it is, the sources line, how to find and call tools,
 * quoting advice (JSON with quotes goes on stdin through a quoted here-doc), output and errors,
 * approvals and the shell's known limits (`SHELL_NOTES`).
 * @param notes the shell's notes (default: `SHELL_NOTES` of shell/defaults.ts).
 */
export function bashToolDescription(catalog: Catalog, options: { notes?: string; callLimit?: number } = {}): string {
  const notes = (options.notes ?? SHELL_NOTES).trim();
  const limit = options.callLimit ?? 50;
  const lines = [
    "Run a bash script in a sandbox (files persist between calls, variables don't). Your other tools are commands behind `tools`: chain them in one script, filter with jq, print only what you need.",
    `Sources: ${describeSources(catalog)}`,
    "Find: tools --help, tools <server> --help, tools search <words>, tools <server> <tool> --help",
    "Call: tools <server> <tool> '{\"k\":\"v\"}' or k=v --k v --flag (top-level: tools <tool> …). JSON with quotes: pass it on stdin, tools … <<'EOF'",
    `Output: text, else JSON. Errors: a JSON line on stderr, exit 1. Max ${limit} tool calls per script.`,
    "A call needing a person's approval stops the script; the `tools` report says what ran. Once answered, write a new script for the rest. `tools plan` shows risks without running.",
  ];
  if (notes) lines.push(notes);
  return lines.join("\n");
}

/** The `bash` tool as a model sees it now (the sources line reflects the current catalog). */
export function bashToolSpec(shell: ToolShell, session?: Session, options: { notes?: string } = {}): ToolSpec {
  const catalog = session ? session.catalog() : shell.catalog();
  return {
    name: BASH_TOOL_NAME,
    description: bashToolDescription(catalog, { notes: options.notes, callLimit: shell.config.callLimit }),
    inputSchema: bashInputSchema(shell.timeoutMs),
  };
}

/** The `bash` result as the model gets it: the shell result without duplicates, outputs bounded. */
export interface BashToolResult {
  stdout: string;
  stderr: string;
  exit_code: number;
  success: boolean;
  /** The stop report (without its copies of stdout and stderr), when the call stopped or failed after changing something. */
  tools?: Omit<StopReport, "stdout" | "stderr">;
}

/**
 * Cuts the middle of a text longer than `max` characters, keeping the start and the last fifth,
 * with a line saying how much was cut.
 */
export function boundText(text: string, max = DEFAULT_MAX_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  const tail = Math.floor(max / 5);
  const head = max - tail;
  const cut = text.length - head - tail;
  return `${text.slice(0, head)}\n… [toolshell: ${cut} characters cut; write long output to a file and read it in parts] …\n${text.slice(text.length - tail)}`;
}

/** Shapes a shell result for the model (see {@link BashToolResult}). */
export function shapeShellResult(result: ShellResult, maxChars = DEFAULT_MAX_OUTPUT_CHARS): BashToolResult {
  const out: BashToolResult = {
    stdout: boundText(result.stdout, maxChars),
    stderr: boundText(result.stderr, maxChars),
    exit_code: result.exit_code,
    success: result.success,
  };
  if (result.tools) {
    const { stdout: _o, stderr: _e, ...rest } = result.tools;
    out.tools = rest;
  }
  return out;
}

/**
 * Checks a `bash` tool input. @returns the script and time limit, or an error message naming the
 * bad field.
 */
export function checkBashInput(input: unknown, maxTimeoutMs: number): { ok: true; command: string; timeoutMs?: number } | { ok: false; message: string } {
  if (!input || typeof input !== "object" || Array.isArray(input)) return { ok: false, message: "bash: the input must be an object {command, timeout_ms?}" };
  const o = input as Record<string, unknown>;
  if (typeof o.command !== "string") return { ok: false, message: "bash: `command` must be a string (the script)" };
  const extra = Object.keys(o).filter((k) => k !== "command" && k !== "timeout_ms");
  if (extra.length) return { ok: false, message: `bash: unknown field ${extra.join(", ")} (fields: command, timeout_ms)` };
  const t = o.timeout_ms;
  if (t !== undefined && t !== null) {
    if (typeof t !== "number" || !Number.isInteger(t) || t < 100 || t > maxTimeoutMs) {
      return { ok: false, message: `bash: \`timeout_ms\` must be a whole number from 100 to ${maxTimeoutMs}` };
    }
    return { ok: true, command: o.command, timeoutMs: t };
  }
  return { ok: true, command: o.command };
}

/**
 * Runs one `bash` tool call: checks the input, runs the script as one shell call and shapes the
 * result. With `stepId` (a tool call id) and a session store, the call is a durable step: asked
 * again, a completed one returns its recorded result (docs/sessions.md). Never throws: a bad input is a
 * result with exit code 2 and the message on stderr.
 */
export async function runBashTool(session: Session, shell: ToolShell, input: unknown, options: { signal?: AbortSignal; maxOutputChars?: number; stepId?: string; person?: Person } = {}): Promise<BashToolResult> {
  const checked = checkBashInput(input, shell.timeoutMs);
  if (!checked.ok) return { stdout: "", stderr: checked.message + "\n", exit_code: 2, success: false };
  try {
    const result = await session.bash(checked.command, { timeoutMs: checked.timeoutMs, signal: options.signal, person: options.person, ...(options.stepId ? { stepId: options.stepId } : {}) });
    return shapeShellResult(result, options.maxOutputChars);
  } catch (err) {
    // session.bash promises never to throw; this keeps the promise of this function if it did.
    return { stdout: "", stderr: `toolshell: the shell call failed: ${err instanceof Error ? err.message : String(err)}\n`, exit_code: 1, success: false };
  }
}

/**
 * The direct-tool name of a tool: a top-level tool keeps its name; an MCP tool is
 * `<server>__<tool>`. Characters outside `[A-Za-z0-9_-]` become `_`; at most 64 characters.
 */
export function directToolName(tool: CatalogTool): string {
  const raw = tool.grouped ? `${tool.source}__${tool.name}` : tool.name;
  return raw.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** One direct tool: its model-facing name, description and input schema, and the catalog tool behind it. */
export interface DirectTool {
  name: string;
  /** {@link directDescription}, redacted. */
  description: string;
  /** The tool's input schema, redacted. */
  inputSchema: Record<string, unknown>;
  tool: CatalogTool;
}

/**
 * The direct tools of a ToolShell now (`shell.split().direct`), with model-facing names.
 * @throws Error when two direct tools (or a direct tool and `bash` / `reserved`) get one name.
 */
export function directTools(shell: ToolShell, reserved: readonly string[] = [BASH_TOOL_NAME]): DirectTool[] {
  const seen = new Map<string, string>(reserved.map((r) => [r.toLowerCase(), r]));
  const out: DirectTool[] = [];
  // What a server says of its tool reaches the model as written: its secrets are redacted there
  // as in any output (docs/security.md "Secrets"); the name is made from the redacted one.
  const r = shell.redactor;
  for (const tool of shell.split().direct) {
    const shown = r.active ? { ...tool, source: r.text(tool.source), name: r.text(tool.name) } : tool;
    const name = directToolName(shown as CatalogTool);
    const other = seen.get(name.toLowerCase());
    if (other !== undefined) throw new Error(`direct tool ${name} has the same name as ${other}; rename one or leave it out of keepVisible`);
    seen.set(name.toLowerCase(), `${tool.source}/${tool.name}`);
    out.push({ name, description: r.text(directDescription(tool)), inputSchema: r.value(tool.inputSchema as Record<string, unknown>), tool });
  }
  return out;
}

/** The catalog command of a tool (`tools github list-pulls`), as approvals and events name it. */
export function commandOf(tool: CatalogTool): string {
  return new Catalog([]).commandFor(tool);
}

/** A description for a direct tool: the tool's own, or a stand-in when it has none. */
export function directDescription(tool: CatalogTool): string {
  return tool.description.trim() || `${shortDescription(commandOf(tool))} (no description)`;
}

/** True for a request raised by a shell call (at run time or before start), not by a direct call. */
export function isShellRequest(req: ApprovalRequest): boolean {
  return !req.tool_call_id.startsWith("direct:");
}

/**
 * The approval card of requests: the tool and why, the saved script version it is in, then the
 * whole input as indented JSON, never cut (a person approves exactly what they were shown),
 * with invisible and bidirectional characters escaped and named below it (see `showInput`).
 */
export function describeRequests(requests: readonly ApprovalRequest[]): string {
  return requests
    .map((r) => {
      const shown = showInput(r.input, { pretty: true });
      const name = showName(r.tool);
      const warnings = [...name.warnings, ...describeFlags(shown.flags)].map((l) => `\n⚠ ${l}`).join("");
      const scripts = describeScripts(r);
      return `${name.text}${r.why ? ` (${r.why})` : ""}${scripts ? `\n${scripts}` : ""}\n${shown.text}${warnings}`;
    })
    .join("\n");
}

/**
 * Loads the servers not loaded yet (on demand, or failed at start) that a `keepVisible` entry
 * names, so their kept tools can be listed as direct tools. Never throws: a server that does not
 * load stays out of the list (and `toolshell check` says why).
 */
export async function loadKeptServers(shell: ToolShell): Promise<void> {
  const keep = (shell.splitRules.keepVisible ?? []).map((k) => k.trim().replace(/^tools\s+/, "").toLowerCase().replace(/-/g, "_"));
  const names = (s: ToolSource) => {
    const n = s.name.toLowerCase().replace(/-/g, "_");
    return [`${n} `, `${n}__`, `mcp_${n}__`, `${n}/`, `${n}.`];
  };
  const wanted = shell.sources.filter((s) => s.kind === "mcp" && s.state() !== "ready" && keep.some((k) => names(s).some((p) => k.startsWith(p))));
  await Promise.allSettled(wanted.map((s) => s.load()));
}
