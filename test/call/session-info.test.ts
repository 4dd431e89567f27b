/**
 * What a tool's `ctx.session` carries, from every surface: the turn (the shell call and durable
 * step of a nested call, the call id always), the principal the session acts for (the HTTP API
 * token, the MCP client, the CLI user, the trigger), and what started the call (saved scripts,
 * a trigger, a parent session).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { createToolshellTools } from "../../src/ai/index.js";
import { createGatewayServer } from "../../src/gateway/index.js";
import { openHost, startApi } from "../../src/server/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TOOLS = path.join(root, "test/fixtures/tools-whoami");
const TOKENS = ["first-token-0123456789abcdef", "second-token-0123456789abcdef"];

test("ctx.session: turn, auth and parent lineage from the library, a saved script in a trigger, the HTTP API, the gateway and the AI SDK", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-info-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const host = await openHost({ store: path.join(dir, "state.db"), toolsDir: TOOLS, config: { keepVisible: ["whoami"], server: { tokens: TOKENS } } });
  t.after(() => host.close());

  // The library: a durable step of a session opened with a parent session.
  const lib = host.session("child", { parent_session_id: "parent-1" });
  const r = await lib.bash("tools whoami", { stepId: "turn-7" });
  assert.deepEqual(JSON.parse(r.stdout), {
    turn: { callId: `${r.tool_call_id}:tools:0:whoami`, shellCallId: r.tool_call_id, stepId: "turn-7" },
    auth: { principal: "default" },
    parent: [{ kind: "session", id: "parent-1" }],
  });

  // A saved script inside a saved script, run by a trigger: innermost first.
  await host.store.saveScript("ops", { name: "inner", description: "Asks.", input_schema: { type: "object" }, body: "tools whoami\n" });
  await host.store.saveScript("ops", { name: "outer", description: "Runs inner.", input_schema: { type: "object" }, body: "tools scripts inner\n" });
  const { trigger } = await host.triggers.create("ops", { name: "nightly", kind: "schedule", cron: "0 0 1 1 *", timezone: "UTC", script: "outer", input: {}, enabled: false, wake_agent_on_failure: false });
  const run = await host.triggers.run(trigger.id, "manual");
  assert.equal(run.status, "ok", JSON.stringify(run));
  const who = JSON.parse((run.result as { stdout: string }).stdout);
  assert.deepEqual(who.auth, { principal: "ops", agentId: "ops", client: `trigger:${trigger.id}` });
  const sha = (body: string) => createHash("sha256").update(body).digest("hex");
  assert.deepEqual(who.parent, [
    { kind: "saved_script", id: "inner", version: 1, sha256: sha("tools whoami\n") },
    { kind: "saved_script", id: "outer", version: 1, sha256: sha("tools scripts inner\n") },
    { kind: "trigger", id: trigger.id, name: "nightly" },
  ]);

  // The HTTP API: the principal is the token that created the session, named by its place; an
  // agent token (one of several tokens without a role) acts for its own agent only.
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const post = async (p: string, body: unknown) =>
    (await (await fetch(api.url + p, { method: "POST", headers: { authorization: `Bearer ${TOKENS[1]}`, "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as { stdout?: string };
  await post("/v1/sessions", { id: "api-s" });
  const viaApi = JSON.parse((await post("/v1/sessions/api-s/bash", { script: "tools whoami" })).stdout!);
  assert.deepEqual(viaApi.auth, { principal: "token-2", agentId: "token-2", client: "api:token-2" });
  assert.deepEqual(viaApi.parent, []);

  // The MCP gateway: the client as it names itself; a direct call has no shell call.
  const gwSession = host.session("gw-s");
  const server = createGatewayServer(host.shell, gwSession);
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "info-client", version: "1.0.0" });
  await Promise.all([server.connect(b), client.connect(a)]);
  t.after(() => client.close());
  const gw = JSON.parse(((await client.callTool({ name: "whoami", arguments: {} })) as CallToolResult).content.map((c) => (c as { text: string }).text).join(""));
  assert.equal(gw.auth.client, "mcp:info-client");
  assert.equal(gw.auth.principal, "default");
  assert.equal(gw.turn.shellCallId, undefined);
  assert.match(gw.turn.callId, /^direct:/);

  // The AI SDK adapter: a direct call, its tool call id in the turn.
  const tools = await createToolshellTools({ shell: host.shell, session: host.session("ai-s", { principal: "user:ada" }) });
  const out = (await tools.whoami.execute!({}, { toolCallId: "tc-1", messages: [], abortSignal: new AbortController().signal } as never)) as { view: { value: { turn: unknown; auth: unknown } } };
  assert.deepEqual(out.view.value.turn, { callId: "direct:tc-1" });
  assert.deepEqual(out.view.value.auth, { principal: "user:ada" });
});

test("ctx.session from the CLI: the user who runs it", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-info-cli-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const config = path.join(dir, "toolshell.config.json");
  writeFileSync(config, JSON.stringify({ tools: TOOLS }));
  const r = spawnSync(process.execPath, [path.join(root, "dist/cli/main.js"), "exec", "--config", config, "tools whoami"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const who = JSON.parse(r.stdout);
  assert.deepEqual(who.auth, { principal: "default", client: `cli:${userInfo().username}` });
  assert.match(who.turn.shellCallId, /^call_bash_\d+$/);
});
