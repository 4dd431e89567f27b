/**
 * Context economy: prompt tokens of what the model sees with toolshell (the `bash`
 * tool + the direct tools) against every tool listed directly, in one run:
 * 1. the demo's servers (examples/toolshell.config.json: filesystem, memory, everything) and its
 *    two local tools, as the model first sees them (`everything` is on demand, not loaded);
 * 2. generated catalogs of 50, 200 and 500 tools across servers of 25 tools each, with
 *    descriptions and schemas about the size of the demo servers' tools.
 * Tokens: o200k_base (gpt-tokenizer); each tool serialised as a function definition
 * `{"type":"function","name","description","parameters"}` and the counts summed
 * (src/gateway/tokens.ts). Goals: toolshell under 1,000 tokens whatever the number of tools;
 * ≥ 85% fewer at the demo's size; ≥ 99% fewer at 500 tools.
 *
 * Run: `node --import tsx bench/context.bench.ts`
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bashToolSpec, directDescription, directTools, directToolName, type ToolSpec } from "../src/gateway/index.js";
import { toolListTokens } from "../src/surface/tokens.js";
import { createToolShell, type ToolShell } from "../src/runtime/index.js";
import type { CatalogTool, JsonSchema, ToolSource } from "../src/tool/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** What the model sees with toolshell: bash + direct tools. */
function toolshellSpecs(shell: ToolShell): ToolSpec[] {
  return [bashToolSpec(shell), ...directTools(shell).map((d) => ({ name: d.name, description: directDescription(d.tool), inputSchema: d.tool.inputSchema }))];
}

/** Every tool listed directly, as a client that lists all tools would. */
function allDirectSpecs(tools: CatalogTool[]): ToolSpec[] {
  return tools.map((t) => ({ name: directToolName(t), description: t.description, inputSchema: t.inputSchema }));
}

interface Row {
  catalog: string;
  tools: number;
  all: number;
  toolshell: number;
}

async function demo(): Promise<Row[]> {
  const shell = await createToolShell({ config: path.join(root, "examples/toolshell.config.json") });
  try {
    const seen = toolshellSpecs(shell); // before anything loads on demand: what the first prompt carries
    const ts = toolListTokens(seen);
    for (const s of shell.sources) if (s.state() !== "ready") await s.load().catch(() => {});
    const servers = shell.sources.filter((s) => s.kind === "mcp").flatMap((s) => s.tools());
    const all = shell.sources.flatMap((s) => s.tools());
    const loaded = toolListTokens(toolshellSpecs(shell));
    console.log(`demo bash tool description as first seen:\n${seen[0].description.replace(/^/gm, "  | ")}`);
    console.log(`  (once \`everything\` has loaded, the sources line grows: ${loaded} tokens)`);
    return [
      { catalog: "demo: 3 MCP servers", tools: servers.length, all: toolListTokens(allDirectSpecs(servers)), toolshell: ts },
      { catalog: "demo: servers + 2 local tools", tools: all.length, all: toolListTokens(allDirectSpecs(all)), toolshell: ts },
    ];
  } finally {
    await shell.close();
  }
}

const SERVICES = ["github", "linear", "slack", "jira", "notion", "stripe", "gdrive", "postgres", "sentry", "datadog", "zendesk", "hubspot", "salesforce", "figma", "asana", "calendar", "gmail", "s3", "vercel", "cloudflare"];
const VERBS = ["list", "get", "create", "update", "delete", "search", "archive", "assign", "add", "remove"];
const NOUNS = ["issue", "comment", "project", "user", "team", "label", "file", "page", "message", "channel", "invoice", "customer", "event", "alert", "record", "task", "document", "folder", "deployment", "webhook"];

/** A tool about the size of the demo servers' tools (≈ 100 tokens), deterministic by index. */
function generatedTool(server: string, i: number): CatalogTool {
  const verb = VERBS[i % VERBS.length];
  const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
  const name = `${verb}_${noun}${i >= VERBS.length * NOUNS.length ? `_${i}` : ""}`;
  const props: Record<string, JsonSchema> = {
    [`${noun}_id`]: { type: "string", description: `The ${noun}'s id, as returned by list_${noun}.` },
    workspace: { type: "string", description: `The ${server} workspace or organisation slug.` },
  };
  if (verb === "list" || verb === "search") {
    props.limit = { type: "integer", minimum: 1, maximum: 100, description: "How many items to return (default 25)." };
    props.cursor = { type: "string", description: "Cursor from the previous page." };
  }
  if (verb === "create" || verb === "update") {
    props.title = { type: "string", description: `Title of the ${noun}.` };
    props.body = { type: "string", description: "Markdown body." };
  }
  if (i % 3 === 0) props.state = { type: "string", enum: ["open", "closed", "all"], description: "Filter by state." };
  return {
    name,
    source: server,
    grouped: true,
    description: `${verb[0].toUpperCase()}${verb.slice(1)} ${noun}s in ${server}. Returns the ${noun} with its id, title, state and owner.`,
    inputSchema: { type: "object", properties: props, required: verb === "list" || verb === "search" ? ["workspace"] : [`${noun}_id`, "workspace"], additionalProperties: false },
    hints: { readOnly: verb === "list" || verb === "get" || verb === "search" },
    hintsDeclared: true,
    validate: async (input) => ({ ok: true, value: input }),
    invoke: async () => ({ kind: "text", text: "" }),
  };
}

function generatedSources(count: number, perServer = 25): ToolSource[] {
  const out: ToolSource[] = [];
  for (let s = 0; s * perServer < count; s++) {
    const name = SERVICES[s % SERVICES.length] + (s >= SERVICES.length ? `${Math.floor(s / SERVICES.length) + 1}` : "");
    const tools = Array.from({ length: Math.min(perServer, count - s * perServer) }, (_, i) => generatedTool(name, i + s * 7));
    out.push({ name, kind: "mcp", state: () => "ready", tools: () => tools, load: async () => {} });
  }
  return out;
}

async function generated(count: number): Promise<Row> {
  const shell = await createToolShell({ config: {}, sources: generatedSources(count), connect: false });
  try {
    const all = shell.sources.flatMap((s) => s.tools());
    return { catalog: `generated: ${count} tools`, tools: all.length, all: toolListTokens(allDirectSpecs(all)), toolshell: toolListTokens(toolshellSpecs(shell)) };
  } finally {
    await shell.close();
  }
}

const rows = [...(await demo()), ...(await Promise.all([50, 200, 500].map(generated)))];
const pct = (r: Row) => (1 - r.toolshell / r.all) * 100;
console.log("\ncatalog                          tools   listed directly   bash + direct   reduction   tokens/tool");
for (const r of rows) {
  console.log(
    `${r.catalog.padEnd(32)} ${String(r.tools).padStart(5)}   ${String(r.all).padStart(15)}   ${String(r.toolshell).padStart(13)}   ${pct(r).toFixed(1).padStart(8)}%   ${(r.all / r.tools).toFixed(0).padStart(11)}`,
  );
}
const maxToolshell = Math.max(...rows.map((r) => r.toolshell));
const demoRow = rows[0];
const big = rows.find((r) => r.tools === 500)!;
const goals = [
  [`bash + direct tools under 1,000 tokens at every size (max ${maxToolshell})`, maxToolshell < 1000],
  [`≥ 85% fewer tokens at the demo's size (${pct(demoRow).toFixed(1)}% against the 3 servers; the issue's figure for them is 3,775, measured here ${demoRow.all})`, pct(demoRow) >= 85],
  [`≥ 99% fewer tokens at 500 tools (${pct(big).toFixed(2)}%)`, pct(big) >= 99],
] as const;
console.log("");
for (const [text, ok] of goals) console.log(`${ok ? "PASS" : "MISS"}  ${text}`);
