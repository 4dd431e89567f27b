/**
 * A server added or removed while the MCP gateway runs: a real SDK client that listed the tools
 * is sent `notifications/tools/list_changed`, and the `bash` tool's sources line then names (or
 * no longer names) the server (README "Changing servers while running").
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { createGatewayServer } from "../../src/gateway/index.js";
import { createToolShell } from "../../src/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";

test("adding and removing a server tells a listening MCP client: tools/list_changed, then the new sources line", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-servers-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const shell = await createToolShell({ config: {} });
  t.after(() => shell.close());
  const server = createGatewayServer(shell, shell.session("gw"));
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "servers-client", version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler('notifications/tools/list_changed', async () => {
    changes++;
  });
  await Promise.all([server.connect(b), client.connect(a)]);
  t.after(() => client.close());
  const description = async () => (await client.listTools()).tools.find((x) => x.name === "bash")!.description ?? "";
  assert.doesNotMatch(await description(), /memory/);

  await shell.addServer("memory", { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } });
  for (let i = 0; i < 100 && changes === 0; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(changes, 1, "one tools/list_changed for the added server");
  assert.match(await description(), /memory \(\d+ tools\)/);

  await shell.removeServer("memory");
  for (let i = 0; i < 100 && changes === 1; i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(changes, 2, "one more for the removed server");
  assert.doesNotMatch(await description(), /memory/);
});
