/**
 * Help pages of the `tools` command: the index (`tools --help`), one source (`tools <server>
 * --help`), one tool (`tools [<server>] <tool> --help`), and search results. All bounded in size.
 *
 * See README → The `tools` command.
 */
import type { CatalogTool, ToolSource } from "../tool/index.js";
import type { Catalog, SearchHit } from "./catalog.js";
import { displayName } from "./names.js";
import { objectFields } from "./schema.js";
import { signature, typeOf } from "./signature.js";
import { terminalText } from "../display/show-input.js";

/** Lines with a description in a source page before the rest are listed by name only. */
export const SOURCE_PAGE_DESCRIBED = 60;
/** Characters of a description shown on one line. */
export const SHORT_DESCRIPTION = 90;
/** Characters of a tool's input schema shown by `--help` before it is cut. */
export const SCHEMA_HELP_LIMIT = 6000;

/** The first sentence of a description, on one line, at most `max` characters. */
export function shortDescription(text: string, max = SHORT_DESCRIPTION): string {
  const one = text.replace(/\s+/g, " ").trim();
  const sentence = /^(.+?[.!?])(\s|$)/.exec(one)?.[1] ?? one;
  return sentence.length > max ? sentence.slice(0, max - 1).trimEnd() + "…" : sentence;
}

function pad(s: string, width: number): string {
  return s.length >= width ? s + "  " : s + " ".repeat(width - s.length);
}

/** One line per grouped source: `name  N tools`, `(not loaded)`, or `(failed: …)`. */
export function sourceSummary(source: ToolSource): string {
  const state = source.state();
  if (state === "not_loaded") return "(not loaded)";
  if (state === "failed") return `(failed: ${shortDescription(source.failure?.()?.message ?? "could not start", 70)})`;
  const n = source.tools().length;
  return `${n} ${source.kind === "scripts" ? (n === 1 ? "script" : "scripts") : n === 1 ? "tool" : "tools"}`;
}

/** `tools --help`: servers with counts, then top-level tools, then how to call. */
function renderIndexRaw(catalog: Catalog, footer = ""): string {
  const lines: string[] = [];
  const servers = catalog.groupedSources().filter((s) => s.kind === "mcp");
  const scripts = catalog.groupedSources().filter((s) => s.kind === "scripts");
  const top = catalog.topLevelTools();
  const width = Math.min(28, Math.max(12, ...servers.map((s) => s.name.length + 2), ...top.map((t) => t.name.length + 2)));
  if (servers.length) {
    lines.push("MCP servers (tools <server> --help lists one):");
    for (const s of servers) lines.push(`  ${pad(s.name, width)}${sourceSummary(s)}`);
  }
  if (top.length) {
    lines.push("Tools (tools <tool> --help shows one):");
    const shown = top.slice(0, SOURCE_PAGE_DESCRIBED);
    for (const t of shown) lines.push(`  ${pad(displayName(t.name), width)}${shortDescription(t.description)}`);
    if (top.length > shown.length) lines.push(`  … ${top.length - shown.length} more: ${top.slice(shown.length).map((t) => displayName(t.name)).join(", ")}`);
  }
  for (const s of scripts) lines.push(`Saved scripts: tools ${s.name} (${sourceSummary(s)})`);
  if (!servers.length && !top.length && !scripts.length) lines.push("No tools are configured.");
  lines.push(
    "",
    "Call:   tools <server> <tool> '{\"key\":\"value\"}'   or  key=value  --key value  --flag",
    "        echo '{...}' | tools <tool>     (JSON on stdin, or - )",
    "Find:   tools search <words>            Help: tools <server> <tool> --help",
    "Output: text as is, anything else JSON (pipe to jq). Errors: one JSON line on stderr, exit 1.",
  );
  if (footer) lines.push(footer.trimEnd());
  return lines.join("\n") + "\n";
}

/** `tools <server> --help`: one line per tool; past SOURCE_PAGE_DESCRIBED tools, names only. */
function renderSourceRaw(catalog: Catalog, source: ToolSource): string {
  const tools = [...source.tools()].sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }));
  const lines = [`${source.name}: ${sourceSummary(source)}. Call: tools ${source.name} <tool> …; help: tools ${source.name} <tool> --help`];
  const width = Math.min(32, Math.max(12, ...tools.map((t) => displayName(t.name).length + 2)));
  const shown = tools.slice(0, SOURCE_PAGE_DESCRIBED);
  for (const t of shown) lines.push(`  ${pad(displayName(t.name), width)}${shortDescription(t.description)}`);
  if (tools.length > shown.length) {
    lines.push(`  … ${tools.length - shown.length} more (tools search <words> finds by description):`);
    lines.push(wrap(tools.slice(shown.length).map((t) => displayName(t.name)).join(", "), 100, "    "));
  }
  void catalog;
  return lines.join("\n") + "\n";
}

/** `tools … <tool> --help`: command, signature, description, hints, input schema (cut past SCHEMA_HELP_LIMIT). */
function renderToolRaw(catalog: Catalog, tool: CatalogTool): string {
  const lines = [catalog.commandFor(tool), "", signature(tool.name, tool.inputSchema), ""];
  lines.push(tool.description.trim() || "(no description)");
  const hints = Object.entries(tool.hints).filter(([, v]) => typeof v === "boolean").map(([k, v]) => `${k}=${v}`);
  if (hints.length) lines.push("", `Hints: ${hints.join(", ")}`);
  let schema = JSON.stringify(tool.inputSchema, null, 2);
  if (schema.length > SCHEMA_HELP_LIMIT) schema = JSON.stringify(tool.inputSchema);
  if (schema.length > SCHEMA_HELP_LIMIT) schema = schema.slice(0, SCHEMA_HELP_LIMIT) + `… (cut; ${schema.length} characters in all)`;
  lines.push("", "Input schema:", schema);
  if (tool.outputSchema) {
    const out = JSON.stringify(tool.outputSchema);
    lines.push("", "Output schema:", out.length > SCHEMA_HELP_LIMIT / 2 ? out.slice(0, SCHEMA_HELP_LIMIT / 2) + "… (cut)" : out);
  }
  return lines.join("\n") + "\n";
}

/**
 * Search results: one runnable line per hit — the command, its required fields as
 * `key=<type>` placeholders — then `# short description`.
 */
function renderSearchRaw(hits: SearchHit[], words: string[]): string {
  if (hits.length === 0) return `No tools match "${words.join(" ")}". See: tools --help\n`;
  return (
    hits
      .map((h) => {
        const { properties: props, required } = objectFields(h.tool.inputSchema);
        const args = [...required].map((k) => `${k}=<${typeOf(props[k], 2)}>`);
        return `${[h.command, ...args].join(" ")}  # ${shortDescription(h.tool.description, 70)}`;
      })
      .join("\n") + "\n"
  );
}

function wrap(text: string, width: number, indent: string): string {
  const out: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if ((line + " " + word).length > width && line) {
      out.push(indent + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(indent + line);
  return out.join("\n");
}

/*
 * The help pages are text toolshell writes from what servers say (names, descriptions, schemas):
 * every page goes through the terminal escaping (docs/security.md "Text on the terminal"), so an
 * ESC, CR or bidirectional override in a server's description reaches neither a terminal (through
 * `toolshell exec 'tools x --help'`) nor the model raw.
 */

/** The index page (`tools --help`), escaped. */
export function renderIndex(catalog: Catalog, footer = ""): string {
  return terminalText(renderIndexRaw(catalog, footer));
}

/** One source's page (`tools <server> --help`), escaped. */
export function renderSource(catalog: Catalog, source: ToolSource): string {
  return terminalText(renderSourceRaw(catalog, source));
}

/** One tool's page (`tools <server> <tool> --help`), escaped. */
export function renderTool(catalog: Catalog, tool: CatalogTool): string {
  return terminalText(renderToolRaw(catalog, tool));
}

/** Search results (`tools search …`), escaped. */
export function renderSearch(hits: SearchHit[], words: string[]): string {
  return terminalText(renderSearchRaw(hits, words));
}
