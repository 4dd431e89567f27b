/**
 * Sign-in through the MCP gateway for a client pinned to 2026-07-28: a script meets an
 * OAuth-protected MCP server (a real one on 127.0.0.1) that needs the person; the gateway's
 * answer is an `input_required` result with a URL-mode elicitation (MCP spec 2026-07-28 "Multi
 * Round-Trip Requests", "Elicitation" → URL mode). The person opens the URL (the authorization
 * server approves and redirects to the gateway's loopback listener), the client sends the call
 * again with the answer and the `requestState`, and the gateway reports the sign-in done; the
 * next script runs as the signed-in person. Over Streamable HTTP (`serveHttp` in this process)
 * and over stdio (`toolshell mcp` as a child process, its own sign-in host).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { serveHttp } from "../../src/gateway/index.js";
import { createToolShell } from "../../src/index.js";
import { startOAuthServer, type OAuthFixture } from "../fixtures/mcp/oauth-server.js";
import { tsxCommand } from "../fixtures/mcp/index.js";

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.ts");
const value = (r: unknown) => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Record<string, any>;

type Asked = { mode?: string; url?: string; elicitationId?: string; message?: string };
/** A v2 client pinned to 2026-07-28 declaring URL-mode elicitation only; `opens` says whether the person opens the link. */
function urlClient(opens: () => boolean): { client: Client; asked: Asked[] } {
  const asked: Asked[] = [];
  const client = new Client({ name: "url-client-2026", version: "1.0.0" }, { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  client.setRequestHandler("elicitation/create", async (req) => {
    const p = req.params as Asked;
    asked.push(p);
    if (!opens()) return { action: "decline" };
    // The person opens the link in a browser: the authorization server approves and redirects.
    const res = await fetch(p.url!, { redirect: "manual" });
    assert.equal((await fetch(res.headers.get("location")!)).status, 200);
    return { action: "accept" };
  });
  return { client, asked };
}

async function signInFlow(client: Client, asked: Asked[], f: OAuthFixture, decline: { opens: boolean }): Promise<void> {
  assert.equal(client.getProtocolEra(), "modern");
  // Declined: the call's own result, the note says how to sign in later; nothing signed in.
  decline.opens = false;
  const no = value(await client.callTool({ name: "bash", arguments: { command: "tools tracker whoami" } }));
  assert.equal(asked.length, 1);
  assert.equal(asked[0].mode, "url");
  assert.match(asked[0].url!, /^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  assert.match(asked[0].message!, /"tracker" needs you to sign in/);
  assert.match(no.stderr, /"code":"connection_required"/);
  assert.deepEqual(no.sign_in, [{ server: "tracker", action: "decline", signed_in: false, next: "not signed in: the person can run `toolshell auth tracker`" }]);
  assert.equal(f.counts.codeExchanges, 0);

  decline.opens = true;
  const first = value(await client.callTool({ name: "bash", arguments: { command: "tools tracker whoami" } }));
  assert.equal(asked.length, 2, "asked once more, through input_required");
  assert.equal(asked[1].mode, "url");
  assert.match(first.stderr, /"code":"connection_required"/, `the script is not run again: its recorded result: ${JSON.stringify(first)}`);
  assert.deepEqual(first.sign_in, [{ server: "tracker", action: "accept", signed_in: true, next: "signed in: run the script again (a new one for what is left)" }]);
  assert.equal(f.counts.codeExchanges, 1);

  const second = value(await client.callTool({ name: "bash", arguments: { command: "tools tracker whoami | jq -r .user" } }));
  assert.equal(second.exit_code, 0, second.stderr);
  assert.equal(second.stdout, "alice\n");
  assert.equal(asked.length, 2, "nothing more to ask");
}

test("--http: a 2026-07-28 client is asked to sign in through input_required (URL mode); after the redirect the next script runs as the person", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw26-signin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const shell = await createToolShell({ config: { mcpServers: { tracker: { url: f.url, load: "on_demand" } }, logDir: path.join(dir, "logs") }, baseDir: dir });
  t.after(() => shell.close());
  const gw = await serveHttp(shell, { port: 0 });
  t.after(() => gw.close());
  const flag = { opens: true };
  const { client, asked } = urlClient(() => flag.opens);
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url!)));
  t.after(() => client.close());
  await signInFlow(client, asked, f, flag);
});

async function stdioGateway(t: TestContext, client: Client, f: OAuthFixture): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw26-signin-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { tracker: { url: f.url, load: "on_demand" } }, logDir: path.join(dir, "logs") }));
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe", env: { ...process.env, HOME: dir } as Record<string, string> }));
  t.after(() => client.close());
}

test("stdio: a 2026-07-28 client is asked to sign in through input_required (URL mode); after the redirect the next script runs as the person", async (t) => {
  const f = await startOAuthServer();
  t.after(() => f.close());
  const flag = { opens: true };
  const { client, asked } = urlClient(() => flag.opens);
  await stdioGateway(t, client, f);
  await signInFlow(client, asked, f, flag);
});
