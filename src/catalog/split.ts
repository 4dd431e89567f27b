/**
 * The split: which tools the model calls directly and which sit behind `tools` in the shell.
 * One function, {@link placeTool}, decides both what is hidden from the model's tool list and
 * what the `tools` command can reach, so a tool is never reachable through `tools` if the agent
 * could not call it directly.
 *
 * - behind `tools` only (`shell`): MCP tools, integration tools, search and fetch, data tools,
 *   saved scripts — a tool that only does something and returns data;
 * - direct only (`direct`): turn-control tools (ask-user, approvals, subagents, todo lists), tools
 *   whose result the model must see as an image, structured file editing, and any tool marked
 *   `staysDirect` — calling them from a script makes no sense or loses what they are for;
 * - both (`both`): tools listed in `keepVisible`: the model still calls them directly, and they
 *   stay callable from the shell too;
 * - neither (`none`): tools the agent may not use at all (outside `allowed`).
 * The `bash` tool itself is not a catalog tool; the adapters add it.
 *
 * Name rules (turn control, images, file editing) apply to top-level tools only: an MCP server's
 * `read_file` is an MCP tool and moves behind `tools` like every MCP tool.
 *
 * See docs/agents.md → What the model sees; README → Configuration (`keepVisible`).
 */
import { entryNames, foldName } from "./names.js";
import type { CatalogTool, SourceState, ToolCallError, ToolSource } from "../tool/index.js";

/** Where a tool goes. */
export type Placement = "shell" | "direct" | "both" | "none";

/** What decides the split. */
export interface SplitRules {
  /** Tools the model keeps as direct tools; they stay callable from the shell too. */
  keepVisible?: readonly string[];
  /**
   * The tools the agent may use at all: names in the same spellings as `keepVisible`, or a
   * predicate. Undefined: every tool. A tool outside it is neither direct nor behind `tools`.
   */
  allowed?: readonly string[] | ((tool: CatalogTool) => boolean);
}

/** Top-level tools that pause or shape the turn (ask_user, approvals, spawn_agent, session tasks, write_todos). */
export const TURN_CONTROL_NAMES: ReadonlySet<string> = new Set([
  "bash", "lua", "ask_user", "ask_followup_question", "ask_question", "request_approval", "approve", "toolshell_approve",
  "spawn_agent", "subagent", "run_subagent", "delegate", "write_todos", "todo_write", "todowrite", "update_todos",
  "read_todos", "todo_read", "update_plan", "create_task", "update_task", "complete_task",
]);
/** Top-level tools whose result the model must see as an image (screenshots, read_file, computer, browser). */
export const IMAGE_RESULT_NAMES: ReadonlySet<string> = new Set([
  "screenshot", "take_screenshot", "read_file", "view_image", "read_image", "computer", "browser",
]);
/** Top-level structured file editing tools (write_file, edit_file). */
export const FILE_EDIT_NAMES: ReadonlySet<string> = new Set([
  "write_file", "edit_file", "multi_edit", "create_file", "apply_patch", "str_replace_based_edit_tool", "str_replace_editor",
]);

/** True when the config entry `entry` names `tool` (the one canonical form: catalog/names.ts `entryNames`). */
export function namesTool(entry: string, tool: CatalogTool): boolean {
  return entryNames(entry, tool);
}

/** Why a tool is where it is: the placement and a short reason. */
export interface PlacementReason {
  placement: Placement;
  reason: "not_allowed" | "keep_visible" | "stays_direct" | "turn_control" | "image_result" | "file_editing" | "shell";
}

/**
 * Decides where one tool goes. Pure: the same tool and rules always give the same answer.
 * Order: not allowed → `none`; marked `staysDirect` or a top-level turn-control / image-result /
 * file-editing tool → `direct` (listed in keepVisible or not); in `keepVisible` → `both`;
 * everything else → `shell`.
 */
export function explainPlacement(tool: CatalogTool, rules: SplitRules = {}): PlacementReason {
  const allowed = rules.allowed;
  if (allowed !== undefined) {
    const ok = typeof allowed === "function" ? safe(() => allowed(tool)) : allowed.some((e) => namesTool(e, tool));
    if (!ok) return { placement: "none", reason: "not_allowed" };
  }
  if (tool.staysDirect === true) return { placement: "direct", reason: "stays_direct" };
  if (!tool.grouped) {
    const n = foldName(tool.name);
    if (TURN_CONTROL_NAMES.has(n)) return { placement: "direct", reason: "turn_control" };
    if (IMAGE_RESULT_NAMES.has(n)) return { placement: "direct", reason: "image_result" };
    if (FILE_EDIT_NAMES.has(n)) return { placement: "direct", reason: "file_editing" };
  }
  if ((rules.keepVisible ?? []).some((e) => namesTool(e, tool))) return { placement: "both", reason: "keep_visible" };
  return { placement: "shell", reason: "shell" };
}

/** Where one tool goes (see {@link explainPlacement}). */
export function placeTool(tool: CatalogTool, rules: SplitRules = {}): Placement {
  return explainPlacement(tool, rules).placement;
}

/** True when `tools` may reach the tool: placement `shell` or `both`. */
export function reachableFromShell(tool: CatalogTool, rules: SplitRules = {}): boolean {
  const p = placeTool(tool, rules);
  return p === "shell" || p === "both";
}

/** True when the model calls the tool directly: placement `direct` or `both`. */
export function callableDirectly(tool: CatalogTool, rules: SplitRules = {}): boolean {
  const p = placeTool(tool, rules);
  return p === "direct" || p === "both";
}

/** A list of tools split by placement. */
export interface ToolSplit {
  /** Tools the model calls directly (`direct` and `both`), in source order. */
  direct: CatalogTool[];
  /** Tools `tools` reaches (`shell` and `both`). */
  shell: CatalogTool[];
  /** Tools the agent may not use (`none`). */
  hidden: CatalogTool[];
}

/** Splits tools by {@link placeTool}. A `both` tool is in `direct` and in `shell`. */
export function splitTools(tools: readonly CatalogTool[], rules: SplitRules = {}): ToolSplit {
  const out: ToolSplit = { direct: [], shell: [], hidden: [] };
  for (const t of tools) {
    const p = placeTool(t, rules);
    if (p === "none") out.hidden.push(t);
    if (p === "direct" || p === "both") out.direct.push(t);
    if (p === "shell" || p === "both") out.shell.push(t);
  }
  return out;
}

/**
 * A view of a source that shows only the tools `keep(tool)` accepts; loading, state and closing
 * go to the source itself. The catalog of every shell call is built over these views.
 */
export class FilteredSource implements ToolSource {
  readonly inner: ToolSource;
  private readonly keep: (tool: CatalogTool) => boolean;
  constructor(inner: ToolSource, keep: (tool: CatalogTool) => boolean) {
    this.inner = inner;
    this.keep = keep;
  }
  get name(): string {
    return this.inner.name;
  }
  get kind(): ToolSource["kind"] {
    return this.inner.kind;
  }
  state(): SourceState {
    return this.inner.state();
  }
  failure(): ToolCallError | undefined {
    return this.inner.failure?.();
  }
  tools(): CatalogTool[] {
    return this.inner.tools().filter((t) => this.keep(t));
  }
  /** True when `tool` passes this filter (the split's rules), listed or not. Never throws. */
  admits(tool: CatalogTool): boolean {
    try {
      return this.keep(tool);
    } catch {
      return false;
    }
  }
  load(signal?: AbortSignal): Promise<void> {
    return this.inner.load(signal);
  }
  async refresh(): Promise<void> {
    await this.inner.refresh?.();
  }
  async close(): Promise<void> {
    await this.inner.close?.();
  }
}

function safe(fn: () => boolean): boolean {
  try {
    return fn() === true;
  } catch {
    return false;
  }
}
