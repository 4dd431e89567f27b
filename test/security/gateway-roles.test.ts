/**
 * Who acts for whom on `toolshell mcp --http`: its tokens have the shape and meaning of
 * `server.tokens` (`{ name, token, role }`). An agent token's MCP sessions act for its name (its
 * own OAuth sign-ins and saved scripts) and it reaches no other token's session, in any era; an
 * operator token acts as the config's person and reaches every session. Real gateway over HTTP
 * on 127.0.0.1, real MCP clients. See docs/security.md ("Who acts for whom").
 */
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { createToolShell, defineTool } from "../../src/index.js";
import { parseServerConfig } from "../../src/server/index.js";

const OPS = "carol-operator-0123456789ab";
const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef00";

async function start(t: TestContext) {
  const shell = await createToolShell({
    config: { server: { tokens: [{ name: "carol", token: OPS, role: "operator" }, { name: "alice", token: ALICE, role: "agent" }, { name: "bob", token: BOB }] } },
    tools: {
      whoami: defineTool({
        description: "Says whom the session acts for.",
        inputSchema: { type: "object", properties: {} },
        hints: { readOnly: true },
        execute: async (_input, ctx) => JSON.stringify({ principal: ctx.session.auth.principal, agent: ctx.session.auth.agentId ?? null }),
      }),
    },
  });
  t.after(() => shell.close());
  // The tokens go through the config's one rule, as `toolshell mcp --http` reads them.
  const server = parseServerConfig(shell.config, {});
  const { serveHttp } = await import("../../src/gateway/index.js");
  const gw = await serveHttp(shell, { port: 0, tokens: server.tokens, tokenNames: server.tokenNames, tokenRoles: server.tokenRoles });
  t.after(() => gw.close());
  const connect = async (token: string) => {
    const client = new Client({ name: "c", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(gw.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    await client.connect(transport);
    t.after(() => client.close().catch(() => {}));
    return { client, id: transport.sessionId! };
  };
  /** A raw `tools/call` of `bash` on MCP session `sid` with `token`. */
  const raw = async (token: string, sid: string, command: string) => {
    const res = await fetch(gw.url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "bash", arguments: { command } } }),
    });
    return { status: res.status, text: await res.text() };
  };
  return { connect, raw, url: gw.url };
}

const who = async (client: Client) => {
  const r = (await client.callTool({ name: "bash", arguments: { command: "tools whoami" } })) as CallToolResult;
  const out = JSON.parse((r.content[0] as { text: string }).text) as { stdout: string };
  return JSON.parse(out.stdout) as { principal: string; agent: string | null };
};

test("mcp --http: an agent token's session acts for its own name, whatever the client sends; control: the operator's acts as the config's person", async (t) => {
  const { connect } = await start(t);
  const alice = await connect(ALICE);
  assert.deepEqual(await who(alice.client), { principal: "alice", agent: "alice" });
  // A token written without a role beside others is an agent (server.tokens' default rule).
  assert.deepEqual(await who((await connect(BOB)).client), { principal: "bob", agent: "bob" });
  // Control: the operator's session is the config's person's, as a single-token gateway's always was.
  assert.deepEqual(await who((await connect(OPS)).client), { principal: "default", agent: null });
});

test("mcp --http: an agent token cannot use another token's MCP session, in any form; control: the owner and the operator can", async (t) => {
  const { connect, raw, url } = await start(t);
  const alice = await connect(ALICE);
  const carol = await connect(OPS);
  const attacks: Array<[string, string]> = [
    [BOB, alice.id],
    [BOB, carol.id],
    [ALICE, carol.id],
  ];
  for (const [token, sid] of attacks) {
    const r = await raw(token, sid, "tools whoami");
    assert.equal(r.status, 403, `${sid}: ${r.text}`);
    assert.doesNotMatch(r.text, /principal\\":/, "nothing ran");
    // The session's stream (GET) and its end (DELETE) are the same door.
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(url, { method, headers: { authorization: `Bearer ${token}`, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18", accept: "text/event-stream" } });
      assert.equal(res.status, 403, `${method} ${sid}`);
      await res.body?.cancel();
    }
  }
  // Controls: the owner, and the operator, reach alice's session.
  const own = await raw(ALICE, alice.id, "tools whoami");
  assert.equal(own.status, 200, own.text);
  assert.match(own.text, /\\"principal\\":\\"alice\\"/);
  const ops = await raw(OPS, alice.id, "tools whoami");
  assert.equal(ops.status, 200, ops.text);
  assert.match(ops.text, /\\"principal\\":\\"alice\\"/, "the operator reaches it; the session still acts for alice");
});
