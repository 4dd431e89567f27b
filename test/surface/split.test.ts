/**
 * The split: one function decides what the model calls directly and what `tools` reaches; a
 * tool is never reachable through `tools` unless the agent could call it directly. Real MCP
 * server (memory) for the MCP side; local tools for the name rules.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { z } from "zod";
import { describeSources, directTools } from "../../src/gateway/index.js";
import { createToolShell, defineTool, type ToolShell } from "../../src/index.js";
import { explainPlacement, namesTool, placeTool, type SplitRules } from "../../src/catalog/index.js";
import type { CatalogTool } from "../../src/tool/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";

function fake(name: string, source = "local", extra: Partial<CatalogTool> = {}): CatalogTool {
  return {
    name,
    source,
    grouped: source !== "local",
    description: "d",
    inputSchema: { type: "object" },
    hints: {},
    hintsDeclared: false,
    validate: async (v) => ({ ok: true, value: v }),
    invoke: async () => ({ kind: "text", text: "" }),
    ...extra,
  };
}

test("placement: turn control, images and file editing stay direct (top-level only); keepVisible is both; allowed gates everything", () => {
  const rules: SplitRules = { keepVisible: ["web_fetch", "github list-pulls", "mcp_linear__create_issue"] };
  const cases: Array<[CatalogTool, string, string]> = [
    [fake("ask_user"), "direct", "turn_control"],
    [fake("write-todos"), "direct", "turn_control"],
    [fake("spawn_agent"), "direct", "turn_control"],
    [fake("screenshot"), "direct", "image_result"],
    [fake("read_file"), "direct", "image_result"],
    [fake("edit_file"), "direct", "file_editing"],
    [fake("anything", "local", { staysDirect: true }), "direct", "stays_direct"],
    [fake("web-fetch"), "both", "keep_visible"],
    [fake("list_pulls", "github"), "both", "keep_visible"],
    [fake("create_issue", "linear"), "both", "keep_visible"],
    [fake("read_file", "filesystem"), "shell", "shell"],
    [fake("ask_user", "someserver"), "shell", "shell"],
    [fake("word_stats"), "shell", "shell"],
  ];
  for (const [tool, placement, reason] of cases) assert.deepEqual(explainPlacement(tool, rules), { placement, reason }, `${tool.source}/${tool.name}`);
  const only: SplitRules = { allowed: ["word_stats", "github list_pulls"] };
  assert.equal(placeTool(fake("word_stats"), only), "shell");
  assert.equal(placeTool(fake("list_pulls", "github"), only), "shell");
  assert.equal(placeTool(fake("ask_user"), only), "none", "not allowed: neither direct nor in the shell");
  assert.equal(placeTool(fake("x"), { allowed: () => { throw new Error("boom"); } }), "none", "a failing predicate allows nothing");
  for (const spelling of ["github list-pulls", "tools github list_pulls", "github__list_pulls", "mcp_github__list-pulls", "github/list_pulls", "GitHub.List_Pulls"]) {
    assert.ok(namesTool(spelling, fake("list_pulls", "github")), spelling);
  }
  assert.equal(namesTool("list_pulls", fake("list_pulls", "github")), false, "an MCP tool is named with its server");
});

const shells: ToolShell[] = [];
after(async () => {
  await Promise.all(shells.map((s) => s.close()));
});

test("the ToolShell's catalog follows the split; directTools names MCP tools server__tool", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-split-"));
  const shell = await createToolShell({
    config: { mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } } }, keepVisible: ["memory read_graph"], logDir: path.join(dir, "logs") },
    tools: {
      ask_user: defineTool({ description: "Ask the person.", inputSchema: z.object({ q: z.string() }), execute: () => "ok" }),
      stats: defineTool({ description: "Stats.", inputSchema: z.object({}), hints: { readOnly: true }, execute: () => ({ n: 1 }) }),
    },
    allowedTools: (t) => t.name !== "delete_entities",
  });
  shells.push(shell);
  const split = shell.split();
  assert.deepEqual(split.direct.map((t) => `${t.source}/${t.name}`).sort(), ["local/ask_user", "memory/read_graph"]);
  assert.deepEqual(split.hidden.map((t) => t.name), ["delete_entities"]);
  assert.ok(split.shell.some((t) => t.name === "read_graph"), "kept visible, still in the shell");
  assert.deepEqual(directTools(shell).map((d) => d.name).sort(), ["ask_user", "memory__read_graph"]);
  assert.match(describeSources(shell.catalog()), /^memory \(10 tools\); top-level: stats$/);
  assert.doesNotMatch(shell.listing(), /ask-user/);
  const s = shell.session();
  const hidden = await s.bash(`tools memory delete-entities '{"entityNames":["x"]}'`);
  assert.match(hidden.stderr, /"code":"unknown_command"/);
  const direct = await s.bash("tools ask-user q=hi");
  assert.match(direct.stderr, /"code":"unknown_command"/);
  const both = await s.bash("tools memory read-graph | jq -c .entities");
  assert.equal(both.stdout, "[]\n", both.stderr);
});

test("past ten servers the sources line keeps counts bare", async () => {
  const sources = Array.from({ length: 12 }, (_, i) => ({ name: `srv${i}`, kind: "mcp" as const, state: () => "ready" as const, tools: () => [fake("a", `srv${i}`), fake("b", `srv${i}`)], load: async () => {} }));
  const shell = await createToolShell({ config: {}, sources, connect: false });
  shells.push(shell);
  assert.match(describeSources(shell.catalog()), /^\(tool counts\) srv0 2, srv1 2, .* srv11 2$/);
});
