/**
 * Sign-in through the MCP gateway: a script meets an OAuth-protected MCP server (a real one on
 * 127.0.0.1) that needs the person; the gateway asks a client that supports URL-mode elicitation
 * to open the authorization URL, waits for the redirect, sends `notifications/elicitation/complete`,
 * and the next script runs as the signed-in person. A client without URL elicitation gets the
 * `connection_required` line with the URL.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { serveHttp } from "../../src/gateway/index.js";
import { createToolShell } from "../../src/index.js";
import { startOAuthServer } from "../fixtures/mcp/oauth-server.js";

const value = (r: unknown) => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Record<string, any>;

test("gateway: URL-mode elicitation asks the person to sign in; after the redirect the next script runs as them", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-signin-"));
  const shell = await createToolShell({ config: { mcpServers: { tracker: { url: f.url, load: "on_demand" } }, logDir: path.join(dir, "logs") }, baseDir: dir });
  t.after(() => shell.close());
  const gw = await serveHttp(shell, { port: 0 });
  t.after(() => gw.close());

  const client = new Client({ name: "url-client", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } } });
  const asked: Array<{ mode?: string; url?: string; elicitationId?: string }> = [];
  const completed: string[] = [];
  client.setRequestHandler('elicitation/create', async (req) => {
    const p = req.params as { mode?: string; url?: string; elicitationId?: string };
    asked.push(p);
    // The person opens the link in a browser: the authorization server approves and redirects.
    const res = await fetch(p.url!, { redirect: "manual" });
    assert.equal((await fetch(res.headers.get("location")!)).status, 200);
    return { action: "accept" };
  });
  client.setNotificationHandler('notifications/elicitation/complete', (n) => {
    completed.push(n.params.elicitationId);
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
  t.after(() => client.close());

  const first = value(await client.callTool({ name: "bash", arguments: { command: "tools tracker whoami" } }));
  assert.equal(first.exit_code, 1);
  assert.match(first.stderr, /"code":"connection_required"/);
  assert.equal(asked.length, 1);
  assert.equal(asked[0].mode, "url");
  assert.match(asked[0].url!, /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  assert.deepEqual(first.sign_in, [{ server: "tracker", action: "accept", signed_in: true, next: "signed in: run the script again (a new one for what is left)" }]);
  assert.deepEqual(completed, [asked[0].elicitationId]);

  const second = value(await client.callTool({ name: "bash", arguments: { command: "tools tracker whoami | jq -r .user" } }));
  assert.equal(second.exit_code, 0, second.stderr);
  assert.equal(second.stdout, "alice\n");
  assert.equal(asked.length, 1, "nothing more to ask");
});

test("gateway: a client without URL elicitation gets connection_required with the URL and nothing is asked", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-signin-"));
  const shell = await createToolShell({ config: { mcpServers: { tracker: { url: f.url, load: "on_demand" } }, logDir: path.join(dir, "logs") }, baseDir: dir });
  t.after(() => shell.close());
  const gw = await serveHttp(shell, { port: 0 });
  t.after(() => gw.close());
  const client = new Client({ name: "form-only", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } } });
  let asked = 0;
  client.setRequestHandler('elicitation/create', async () => {
    asked++;
    return { action: "decline" };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
  t.after(() => client.close());
  const r = value(await client.callTool({ name: "bash", arguments: { command: "tools tracker whoami" } }));
  assert.equal(asked, 0);
  assert.equal(r.sign_in, undefined);
  const line = JSON.parse(r.stderr.trim()) as { error: { code: string; message: string; retryable: boolean } };
  assert.equal(line.error.code, "connection_required");
  assert.equal(line.error.retryable, true);
  assert.match(line.error.message, /open http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+ to sign in/);
});
