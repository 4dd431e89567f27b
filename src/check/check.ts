/**
 * `toolshell check`: advisory findings about a configuration and the tools it brings. A finding
 * never blocks anything; the command always exits 0.
 *
 * Rules (rule_id — severity, category):
 * - `capabilities.superseded` — suggestion, structure: a tool-search tool or server is configured
 *   while toolshell is on (toolshell replaces tool search; README → Tool search).
 * - `tools.no_description` — warning, completeness: a tool with no description.
 * - `tools.short_description` — suggestion, effectiveness: a description under 20 characters.
 * - `tools.unrated` — info, safety: a tool that declares no hints and has no rating yet (it is
 *   rated when a script first calls it); warning when `rateUnlabeledTools` is off (such tools run
 *   without asking in `normal` mode).
 * - `tools.duplicate_name` — warning, structure: two tools of one source, two sources, or a
 *   server and a top-level tool that are one name once `-` and `_` fold; a server named like a
 *   word `tools` reserves.
 * - `tools.schema_too_large` — warning, cost: an input schema over the size limit (o200k tokens).
 * - `tools.schema_uncompiled` — warning, completeness: an input schema toolshell cannot check.
 * - `tools.not_loaded` — warning, completeness: a file of the tools folder that did not load (a
 *   syntax error, a missing import, no `defineTool()` default export); its tool answers why.
 * - `servers.failed_to_start` — warning, completeness: a server that does not start or list.
 * - `servers.annotations_not_taken` — info, safety: a server read with the stricter reading
 *   (`"trust": false`, or `approval.trustAnnotations: false` without `trust`) whose tools claim
 *   less risk (readOnlyHint, destructiveHint: false): those claims are not taken, the tools are
 *   rated and count as changes (README "Approvals").
 * - `config.keep_visible_unknown`, `config.approval_unknown` — warning, structure: a
 *   `keepVisible` entry or an `approval.tools` / `approval.servers` key that names nothing.
 * - `context.size` — info, cost (warning over 1,000 tokens): what the model's tool list costs
 *   with toolshell, against every tool listed directly.
 * - `config.note` — info, structure: what loading the config noted (keys of other clients, kept).
 * - `config.invalid` — warning, structure: the config file does not load (see `checkConfigError`).
 * - `store.unavailable` — warning, completeness: the store the config names (where ratings are
 *   kept) cannot be opened, so `tools.unrated` counts every unannotated tool (see `checkStoreError`).
 *
 * See docs/agents.md → `toolshell check`.
 */
import path from "node:path";
import { ConfigError } from "../config/index.js";
import { foldName, namesTool, RESERVED_WORDS } from "../catalog/index.js";
import { bashToolSpec, commandOf, directTools, directToolName, toolListTokens, countTokens } from "../surface/index.js";
import { ratingKey, type RatingCache } from "../policy/index.js";
import type { ToolShell } from "../runtime/index.js";
import type { CatalogTool, ToolSource } from "../tool/index.js";

/** How much a finding matters. */
export type Severity = "warning" | "info" | "suggestion";
/** What a finding is about. */
export type Category = "structure" | "completeness" | "effectiveness" | "safety" | "cost";

/** One finding. */
export interface Finding {
  rule_id: string;
  severity: Severity;
  category: Category;
  message: string;
  /** Where: a config key (`mcpServers.github`, `keepVisible[2]`) or a command (`tools github list-pulls`). */
  location: string;
}

/** Options of {@link checkToolShell}. */
export interface CheckOptions {
  /** Tokens (o200k) an input schema may take before `tools.schema_too_large` (default 1,000). */
  schemaTokenLimit?: number;
  /** Start servers that are not loaded (on demand or failed) to check their tools (default true). */
  load?: boolean;
  /** Where ratings are kept; without it every unannotated tool counts as not rated yet. */
  ratingCache?: RatingCache;
}

/** Default schema size limit, in o200k tokens. */
export const SCHEMA_TOKEN_LIMIT = 1000;
/** Tool-search tools and capabilities toolshell replaces (folded names). */
export const TOOL_SEARCH_NAMES: ReadonlySet<string> = new Set([
  "tool_search", "auto_tool_search", "openai_tool_search", "claude_tool_search", "search_tools", "tools_search", "find_tools",
  "tool_finder", "discover_tools", "toolsearch", "tool_search_tool", "mcp_tool_search",
]);

const where = (tool: CatalogTool): string => commandOf(tool);
const serverKey = (s: ToolSource): string => (s.kind === "mcp" ? `mcpServers.${s.name}` : s.kind === "scripts" ? "scripts" : "tools");

/**
 * Checks a ToolShell: loads every server (unless `load: false`), then applies the rules of the
 * module docstring. Never throws; a rule that fails is skipped.
 * @returns findings, warnings first, then suggestions, then info.
 */
export async function checkToolShell(shell: ToolShell, options: CheckOptions = {}): Promise<Finding[]> {
  const findings: Finding[] = [];
  const add = (f: Finding) => findings.push(f);
  const limit = options.schemaTokenLimit ?? SCHEMA_TOKEN_LIMIT;
  if (options.load !== false) await Promise.allSettled(shell.sources.filter((s) => s.state() !== "ready").map((s) => s.load()));

  // Servers that did not start.
  for (const s of shell.sources) {
    if (s.state() === "failed") {
      add({ rule_id: "servers.failed_to_start", severity: "warning", category: "completeness", message: `server ${s.name} did not start: ${s.failure?.()?.message ?? "unknown reason"}`, location: serverKey(s) });
    } else if (s.kind === "mcp" && s.state() === "not_loaded" && options.load === false) {
      add({ rule_id: "servers.not_checked", severity: "info", category: "completeness", message: `server ${s.name} is not loaded; its tools were not checked (run without --no-load)`, location: serverKey(s) });
    }
  }

  const all = shell.sources.flatMap((s) => s.tools());

  // The stricter reading of annotations: say which claims are not taken.
  for (const s of shell.sources) {
    if (s.kind !== "mcp" || shell.policy.trusts(s.name)) continue;
    const lowering = s.tools().filter((t) => t.hints.readOnly === true || t.hints.destructive === false || t.hints.openWorld === false);
    if (lowering.length === 0) continue;
    add({
      rule_id: "servers.annotations_not_taken",
      severity: "info",
      category: "safety",
      message: `server ${s.name} is read with the stricter reading (its "trust": false, or approval.trustAnnotations: false): the claims of ${lowering.length} of its tools that lower caution (readOnlyHint, destructiveHint: false) are not taken, so they are rated and count as changes (${lowering.slice(0, 3).map(where).join(", ")}${lowering.length > 3 ? ", …" : ""})`,
      location: serverKey(s),
    });
  }

  // Tool search is superseded.
  for (const s of shell.sources) {
    if (s.kind === "mcp" && (TOOL_SEARCH_NAMES.has(foldName(s.name)) || foldName(s.name).includes("tool_search"))) {
      add({ rule_id: "capabilities.superseded", severity: "suggestion", category: "structure", message: `server ${s.name} looks like a tool-search capability; toolshell replaces tool search (tools search <words>, tools --help), so it adds nothing while toolshell is on — remove it`, location: serverKey(s) });
    }
  }
  for (const t of all) {
    if (TOOL_SEARCH_NAMES.has(foldName(t.name))) {
      add({ rule_id: "capabilities.superseded", severity: "suggestion", category: "structure", message: `${t.name} is a tool-search tool; toolshell replaces tool search (tools search <words>), so it adds nothing while toolshell is on — remove it`, location: where(t) });
    }
  }

  // Descriptions, hints, schemas.
  const ratingsOn = shell.config.rateUnlabeledTools;
  for (const t of all) {
    if (t.notLoaded) {
      add({ rule_id: "tools.not_loaded", severity: "warning", category: "completeness", message: `${where(t)} did not load (${t.notLoaded}): every call answers unavailable until the file is fixed`, location: where(t) });
      continue;
    }
    const desc = t.description.trim();
    if (!desc) add({ rule_id: "tools.no_description", severity: "warning", category: "completeness", message: `${where(t)} has no description: the model cannot tell what it does (tools search finds it by name only)`, location: where(t) });
    else if (desc.length < 20) add({ rule_id: "tools.short_description", severity: "suggestion", category: "effectiveness", message: `${where(t)} has a very short description (${JSON.stringify(desc)}); say what it does and returns`, location: where(t) });
    if (desc.includes("(toolshell: the input schema could not be compiled")) {
      add({ rule_id: "tools.schema_uncompiled", severity: "warning", category: "completeness", message: `${where(t)}: its input schema could not be compiled, so inputs are passed unchecked`, location: where(t) });
    }
    if (!t.hintsDeclared && t.approval === undefined) {
      const rated = await options.ratingCache?.get(ratingKey(t)).catch(() => undefined);
      if (!ratingsOn) {
        add({ rule_id: "tools.unrated", severity: "warning", category: "safety", message: `${where(t)} declares nothing about its risk and rateUnlabeledTools is off: in normal mode it runs without asking; add annotations (readOnlyHint, destructiveHint) or an approval override`, location: where(t) });
      } else if (!rated) {
        add({ rule_id: "tools.unrated", severity: "info", category: "safety", message: `${where(t)} declares nothing about its risk and has no rating yet; it is rated when a script first calls it (annotations would make that unnecessary)`, location: where(t) });
      }
    }
    let tokens = 0;
    try {
      tokens = countTokens(JSON.stringify(t.inputSchema));
    } catch {}
    if (tokens > limit) {
      add({ rule_id: "tools.schema_too_large", severity: "warning", category: "cost", message: `${where(t)}: its input schema is ${tokens} tokens (limit ${limit}); tools --help cuts it, and listed directly it costs that much on every request`, location: where(t) });
    }
  }

  // Names that collide once - and _ fold.
  const byFold = new Map<string, string>();
  for (const s of shell.sources) {
    if (s.kind === "local") continue;
    const f = foldName(s.name);
    if (RESERVED_WORDS.has(f) || f === "scripts" || f === "plan" || f === "search") {
      add({ rule_id: "tools.duplicate_name", severity: "warning", category: "structure", message: `server ${s.name} has a name \`tools\` reserves (${[...RESERVED_WORDS].join(", ")}, scripts); rename it`, location: serverKey(s) });
    }
    const other = byFold.get(f);
    if (other) add({ rule_id: "tools.duplicate_name", severity: "warning", category: "structure", message: `servers ${other} and ${s.name} are one name once - and _ fold`, location: serverKey(s) });
    byFold.set(f, s.name);
  }
  for (const s of shell.sources) {
    const seen = new Map<string, string>();
    for (const t of s.tools()) {
      const f = foldName(t.name);
      const other = seen.get(f);
      if (other) add({ rule_id: "tools.duplicate_name", severity: "warning", category: "structure", message: `${other} and ${t.name} of ${s.name} are one command once - and _ fold: only the first is reachable as ${where(t)}`, location: where(t) });
      else seen.set(f, t.name);
      if (!t.grouped && byFold.has(f)) {
        add({ rule_id: "tools.duplicate_name", severity: "warning", category: "structure", message: `top-level tool ${t.name} has the name of server ${byFold.get(f)}: tools ${t.name.replace(/_/g, "-")} names the server`, location: where(t) });
      }
    }
    for (const { name, kept } of s.leftOut?.() ?? []) {
      const words = `tools ${s.name} ${name.replace(/_/g, "-")}`;
      add({ rule_id: "tools.duplicate_name", severity: "warning", category: "structure", message: `${kept} and ${name} of ${s.name} are one command once - and _ fold: ${name} is left out (${words} calls ${kept})`, location: words });
    }
  }

  // Config entries that name nothing.
  (shell.splitRules.keepVisible ?? []).forEach((entry, i) => {
    if (!all.some((t) => namesTool(entry, t))) {
      add({ rule_id: "config.keep_visible_unknown", severity: "warning", category: "structure", message: `keepVisible entry ${JSON.stringify(entry)} names no tool (top-level: name; MCP: "server tool" or server__tool)`, location: `keepVisible[${i}]` });
    }
  });
  for (const key of Object.keys(shell.config.approval.tools ?? {})) {
    if (!all.some((t) => namesTool(key, t))) add({ rule_id: "config.approval_unknown", severity: "warning", category: "structure", message: `approval.tools key ${JSON.stringify(key)} names no tool`, location: `approval.tools.${key}` });
  }
  for (const key of Object.keys(shell.config.approval.servers ?? {})) {
    if (!shell.sources.some((s) => s.kind === "mcp" && foldName(s.name) === foldName(key))) add({ rule_id: "config.approval_unknown", severity: "warning", category: "structure", message: `approval.servers key ${JSON.stringify(key)} names no server`, location: `approval.servers.${key}` });
  }
  for (const note of shell.config.notes) add({ rule_id: "config.note", severity: "info", category: "structure", message: note, location: shell.config.file ?? "config" });

  // What the model's tool list costs.
  try {
    const direct = directTools(shell);
    const seen = toolListTokens([bashToolSpec(shell), ...direct.map((d) => ({ name: d.name, description: d.description, inputSchema: d.inputSchema }))]);
    const listed = toolListTokens(all.map((t) => ({ name: directToolName(t), description: t.description, inputSchema: t.inputSchema })));
    const over = seen > 1000;
    add({
      rule_id: "context.size",
      severity: over ? "warning" : "info",
      category: "cost",
      message: `the model's tool list is ${seen} tokens (bash + ${direct.length} direct tools) instead of ${listed} for all ${all.length} tools listed directly${over ? "; keep fewer tools in keepVisible" : ""}`,
      location: "keepVisible",
    });
  } catch (err) {
    add({ rule_id: "context.size", severity: "warning", category: "structure", message: `the direct tools cannot be listed: ${(err as Error).message}`, location: "keepVisible" });
  }

  const order: Record<Severity, number> = { warning: 0, suggestion: 1, info: 2 };
  return findings.sort((a, b) => order[a.severity] - order[b.severity]);
}

/**
 * The finding for a config file that does not load. The file is the finding's location, so the
 * message does not name it again (a ConfigError's lines, a read or JSON error's `<file>: ` prefix).
 */
export function checkConfigError(file: string, err: unknown): Finding {
  if (err instanceof ConfigError) return { rule_id: "config.invalid", severity: "warning", category: "structure", message: err.withoutFile(), location: err.file ?? file };
  let message = err instanceof Error ? err.message : String(err);
  for (const named of [file, path.resolve(file)]) if (message.startsWith(`${named}: `)) message = message.slice(named.length + 2);
  return { rule_id: "config.invalid", severity: "warning", category: "structure", message, location: file };
}

/**
 * The finding for a store that cannot be opened (docs/agents.md → `toolshell check`).
 * @param err the store's error, which names a `postgres://` store without its password.
 */
export function checkStoreError(err: unknown): Finding {
  const why = err instanceof Error ? err.message : String(err);
  return { rule_id: "store.unavailable", severity: "warning", category: "completeness", message: `${why}; ratings were not read, so every tool that declares nothing counts as not rated yet`, location: "store" };
}

/** Findings as text: one line each, `severity category rule_id location: message`, and a count. */
export function renderFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return "No findings.\n";
  const lines = findings.map((f) => `${f.severity.padEnd(10)} ${f.category.padEnd(13)} ${f.rule_id}  ${f.location}: ${f.message}`);
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  lines.push("", `${plural(findings.length, "finding")}: ${plural(count("warning"), "warning")}, ${plural(count("suggestion"), "suggestion")}, ${count("info")} info. Advisory only: nothing is blocked.`);
  return lines.join("\n") + "\n";
}
