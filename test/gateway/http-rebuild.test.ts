/**
 * The HTTP gateway finds MCP sessions in the store (docs/deployment.md → The MCP gateway): two
 * gateways over one host and its SQLite store, and an MCP SDK client whose requests alternate
 * between them. The gateway that did not open the session rebuilds it from the store (its files,
 * its approval requests: answered through one gateway, seen by the other), and a session ended
 * with DELETE is answered 404 by both. Elicitation is off, as it is over a store replicas share
 * (the client's answer could reach the wrong replica).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { serveHttp } from "../../src/gateway/index.js";
import { always, defineTool } from "../../src/index.js";
import { openHost } from "../../src/server/index.js";

test("an MCP session opened on one gateway keeps working when its requests land on another; DELETE ends it on both", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-rebuild-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let payRuns = 0;
  const host = await openHost({
    store: path.join(dir, "state.db"),
    config: {},
    tools: {
      pay: defineTool({
        description: "Pays (needs a person).",
        inputSchema: { type: "object", properties: { amount: { type: "number" } } },
        approval: always(),
        execute: ({ amount }) => {
          payRuns++;
          return { paid: amount };
        },
      }),
    },
  });
  t.after(() => host.close());
  const a = await serveHttp(host.shell, { port: 0, store: host.store, elicitation: false });
  t.after(() => a.close());
  const b = await serveHttp(host.shell, { port: 0, store: host.store, elicitation: false });
  t.after(() => b.close());

  // Every request goes to the other gateway than the one before.
  const seen: string[] = [];
  let turn = 0;
  const alternate = (input: string | URL | Request, init?: RequestInit) => {
    const target = turn++ % 2 === 0 ? a.url : b.url;
    seen.push(target);
    return fetch(target, init);
  };
  const client = new Client({ name: "rebuild-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(a.url), { fetch: alternate });
  await client.connect(transport);
  t.after(() => client.close().catch(() => {}));

  type Bash = { stdout: string; exit_code: number; stderr: string; tools?: { stopped?: { request_id: string } } };
  const text = (r: unknown) => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Bash;
  const first = text(await client.callTool({ name: "bash", arguments: { command: "echo one > /tmp/n; cat /tmp/n" } }));
  assert.equal(first.stdout, "one\n");
  const second = text(await client.callTool({ name: "bash", arguments: { command: "echo two >> /tmp/n; cat /tmp/n" } }));
  assert.equal(second.stdout, "one\ntwo\n");
  const pay = "tools pay amount=5 | jq -c .";
  const stopped = text(await client.callTool({ name: "bash", arguments: { command: pay } }));
  assert.equal(stopped.exit_code, 1);
  const requestId = stopped.tools?.stopped?.request_id;
  assert.ok(requestId, JSON.stringify(stopped));
  // Answered through the other gateway than the one that stopped the script.
  const answered = (await client.callTool({ name: "toolshell_approve", arguments: { request_id: requestId, decision: "allow" } })) as CallToolResult;
  assert.notEqual(answered.isError, true, JSON.stringify(answered));
  const paid = text(await client.callTool({ name: "bash", arguments: { command: pay } }));
  assert.equal(paid.exit_code, 0, paid.stderr);
  assert.equal(paid.stdout, '{"paid":5}\n');
  assert.equal(payRuns, 1);
  assert.ok(seen.includes(a.url) && seen.includes(b.url), "both gateways answered");
  assert.equal(a.sessions(), 1);
  assert.equal(b.sessions(), 1);

  const sessionId = transport.sessionId!;
  await transport.terminateSession();
  // Whichever gateway the DELETE reached, neither answers that session any more.
  for (const url of [a.url, b.url]) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    await res.text();
    assert.equal(res.status, 404, url);
  }
});
