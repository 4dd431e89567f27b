/**
 * A server that is slow to start (the reference memory server behind `sleep`): the CLI says on
 * stderr which server it waits for; the gateway answers `initialize` at once, lists the server as
 * not loaded, and sends `notifications/tools/list_changed` when its tools are there (MCP spec
 * "Tools" → List Changed Notification).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/client";
import { NPM_SERVERS, tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(root, "src/cli/main.ts");
const DELAY_S = 6;

function project(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-slow-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const slow = { command: "bash", args: ["-c", `sleep ${DELAY_S}; exec "$0"`, NPM_SERVERS.memory], env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } };
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { slow }, logDir: path.join(dir, "logs") }));
  return dir;
}

test("the CLI names the server it is waiting for on stderr, then runs as usual", (t) => {
  const dir = project(t);
  const cmd = tsxCommand(MAIN, ["exec", "tools slow read-graph | jq -c ."]);
  const r = spawnSync(cmd.command, cmd.args, { cwd: dir, encoding: "utf8", timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '{"entities":[],"relations":[]}\n');
  assert.equal(r.stderr, `toolshell: waiting for server slow to start (gives up after 30 s; its stderr: ${path.join(dir, "logs", "slow.log")})\n`);
});

test("the gateway answers initialize before the server is up and tells the client when its tools are there", async (t) => {
  const dir = project(t);
  const cmd = tsxCommand(MAIN, ["mcp"]);
  const client = new Client({ name: "slow-start", version: "1.0.0" });
  let changed!: () => void;
  const listChanged = new Promise<void>((resolve) => (changed = resolve));
  client.setNotificationHandler('notifications/tools/list_changed', async () => changed());
  const transport = new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  await client.connect(transport);
  t.after(() => client.close());

  const first = await client.listTools();
  const bash = () => first.tools.find((x) => x.name === "bash")!.description ?? "";
  assert.match(bash(), /slow \(not loaded\)/, "initialize and tools/list were answered while the server was still starting");
  await listChanged;
  const second = await client.listTools();
  assert.match(second.tools.find((x) => x.name === "bash")!.description ?? "", /slow \(11 tools\)/);
  assert.match(stderr, /toolshell mcp: waiting for server slow to start \(gives up after 30 s; its stderr: /);
});
