/**
 * `toolshell mcp` over stdio tells its clients when the tools they see change because an upstream
 * server's tool list changed: a client pinned to 2026-07-28 through its `subscriptions/listen`
 * stream (MCP spec 2026-07-28 "Subscriptions"), a 2025 client through the unsolicited
 * `notifications/tools/list_changed` (spec 2025-06-18 "Tools" → List Changed Notification).
 * Real processes: the gateway as a child process, and behind it a 2026-only server built on the
 * SDK's v2 line (test/fixtures/mcp/modern-server.ts) whose `add_tool` adds a tool.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { tsxCommand } from "../fixtures/mcp/index.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const MAIN = path.resolve(here, "../../src/cli/main.ts");
const MODERN_SERVER = path.resolve(here, "../fixtures/mcp/modern-server.ts");

/** `toolshell mcp` over stdio in front of the 2026-only fixture server, with `client` connected. */
async function gateway(t: TestContext, client: Client): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-listen-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { modern: { ...tsxCommand(MODERN_SERVER), trust: true } }, approval: { servers: { modern: "never" } }, logDir: path.join(dir, "logs") }));
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
  t.after(() => client.close());
}

/** The `bash` tool's sources line, as listed now. */
async function sourcesLine(client: Client): Promise<string> {
  const bash = (await client.listTools()).tools.find((x) => x.name === "bash");
  return /^Sources: .*$/m.exec(bash?.description ?? "")?.[0] ?? "";
}

/**
 * Counts `notifications/tools/list_changed`. `toldUntil(re)` waits for notifications, listing the
 * tools after each, until the sources line matches `re`: the client learns of the change only by
 * being told (a missing notification fails after a long bound, never a short one).
 */
function changes(client: Client): { count: () => number; toldUntil: (re: RegExp) => Promise<string> } {
  let count = 0;
  let waiters: Array<() => void> = [];
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    count++;
    for (const w of waiters) w();
    waiters = [];
  });
  const beyond = (seen: number) =>
    new Promise<void>((resolve, reject) => {
      if (count > seen) return resolve();
      const timer = setTimeout(() => reject(new Error(`no notifications/tools/list_changed within 60 s (${count} so far)`)), 60_000);
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  return {
    count: () => count,
    toldUntil: async (re) => {
      for (let seen = 0; ; ) {
        await beyond(seen);
        seen = count;
        const line = await sourcesLine(client);
        if (re.test(line)) return line;
      }
    },
  };
}

async function addTool(client: Client, name: string): Promise<void> {
  const r = (await client.callTool({ name: "bash", arguments: { command: `tools modern add-tool --name ${name}` } })) as CallToolResult;
  const value = JSON.parse((r.content[0] as { text: string }).text) as { stdout: string; stderr: string; exit_code: number };
  assert.equal(value.exit_code, 0, value.stderr);
  assert.match(value.stdout, new RegExp(`added ${name}`));
}

// The fixture server has four tools (greet, open_link, add_tool, job); each add_tool adds one.
test("stdio: a 2026-07-28 client listening (subscriptions/listen) is told when an upstream server's tools change", async (t) => {
  const client = new Client({ name: "listener-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const told = changes(client);
  await gateway(t, client);
  assert.equal(client.getProtocolEra(), "modern");
  // Listening first, as a 2026 client does on connecting: no tools/list is needed before it.
  const subscription = await client.listen({ toolsListChanged: true });
  assert.equal(subscription.honoredFilter.toolsListChanged, true, "the gateway agrees to send tool list changes");
  await addTool(client, "late");
  assert.match(await told.toldUntil(/modern \(5 tools\)/), /modern \(5 tools\)/);
  await addTool(client, "later");
  assert.match(await told.toldUntil(/modern \(6 tools\)/), /modern \(6 tools\)/);
  await subscription.close();
});

test("stdio: a 2025 client is told through the unsolicited notifications/tools/list_changed, as before", async (t) => {
  const client = new Client({ name: "listener-2025", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  const told = changes(client);
  await gateway(t, client);
  assert.equal(client.getProtocolEra(), "legacy");
  // A 2025 client is told of changes to a list it has seen.
  assert.match(await sourcesLine(client), /^Sources: /);
  await addTool(client, "late");
  assert.match(await told.toldUntil(/modern \(5 tools\)/), /modern \(5 tools\)/);
});
