/**
 * One call through every surface: a script's `tools` command, a direct call through the AI SDK
 * adapter, a direct call through the MCP gateway (a real SDK client over an in-memory MCP
 * transport), a saved script, a trigger, and the HTTP API on 127.0.0.1. Each must give the same
 * event, the same redaction of a config secret, and the same approval decision — they all go
 * through the one call pipeline.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { createToolshellTools } from "../../src/ai/index.js";
import { createGatewayServer } from "../../src/gateway/index.js";
import { always, defineTool, type SessionEvent, type ToolCallEvent } from "../../src/index.js";
import { openHost, startApi } from "../../src/server/index.js";

const SECRET = "sk-live-0123456789abcdef";
const TOKEN = "surface-token-0123456789abcdef";

type Setup = Awaited<ReturnType<typeof setup>>;

async function setup(t: import("node:test").TestContext) {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-surfaces-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const events: SessionEvent[] = [];
  const hookSaw: Array<{ via: string; command: string; given: unknown }> = [];
  const host = await openHost({
    store: path.join(dir, "state.db"),
    env: { TS_SURFACE_SECRET: SECRET },
    config: {
      // A server never started (on demand) whose env holds a secret from the environment: the
      // redactor knows it from the config.
      mcpServers: { vault: { command: "node", args: ["-e", "0"], env: { API_KEY: "${TS_SURFACE_SECRET}" }, load: "on_demand" } },
      keepVisible: ["leaky", "danger"],
      server: { tokens: [TOKEN] },
    },
    tools: {
      leaky: defineTool({
        description: "Returns the key it should not.",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        hints: { readOnly: true },
        execute: ({ n }) => ({ n, key: SECRET }),
      }),
      danger: defineTool({
        description: "Needs a person.",
        inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        approval: always(),
        execute: ({ n }) => ({ n }),
      }),
    },
    hooks: {
      beforeToolCall: (call) => {
        hookSaw.push({ via: call.via, command: call.command, given: call.given });
      },
    },
    onEvent: (e) => events.push(e),
  });
  t.after(() => host.close());
  return { host, events, hookSaw };
}

/** The fields of a call event that must not depend on the surface. */
function shape(e: ToolCallEvent) {
  return { tool_name: e.tool_name, command: e.command, status: e.status, input_preview: e.input_preview, error: e.error?.code };
}

function lastCallEvent(s: Setup, tool: string): ToolCallEvent {
  const hits = s.events.filter((e): e is ToolCallEvent => (e.type === "tool.nested_call" || e.type === "tool.direct_call") && e.tool_name === tool);
  assert.ok(hits.length > 0, `an event for ${tool}`);
  return hits[hits.length - 1];
}

test("the same call through every surface: same event, same redaction, same approval decision", async (t) => {
  const s = await setup(t);
  const { host } = s;
  const outputs: Record<string, string> = {};
  const dangerEvents: Record<string, ReturnType<typeof shape>> = {};
  const leakyEvents: Record<string, ReturnType<typeof shape>> = {};
  const decisions: Record<string, string> = {};

  // 1. A script's tools command.
  const shellSession = host.session("shell-s");
  const r1 = await shellSession.bash("tools leaky n=1");
  outputs.shell = r1.stdout;
  leakyEvents.shell = shape(lastCallEvent(s, "leaky"));
  const d1 = await shellSession.bash('x=1; tools danger n="$x"');
  decisions.shell = `${d1.tools?.stopped?.reason}/${d1.tools?.stopped?.why}`;
  dangerEvents.shell = shape(lastCallEvent(s, "danger"));

  // 2. A direct call through the AI SDK adapter.
  const aiSession = host.session("ai-s");
  const tools = await createToolshellTools({ shell: host.shell, session: aiSession });
  const opts = (id: string) => ({ toolCallId: id, messages: [], abortSignal: new AbortController().signal }) as never;
  const aiOut = (await tools.leaky.execute!({ n: 1 }, opts("ai-1"))) as { status: string; view: { value: unknown } };
  outputs.ai = JSON.stringify(aiOut.view.value);
  leakyEvents.ai = shape(lastCallEvent(s, "leaky"));
  const aiDanger = (await tools.danger.execute!({ n: 1 }, opts("ai-2"))) as { status: string; why?: string };
  decisions.ai = `${aiDanger.status}/${aiDanger.why}`;
  dangerEvents.ai = shape(lastCallEvent(s, "danger"));

  // 3. A direct call through the MCP gateway, from a real MCP client.
  const gwSession = host.session("gw-s");
  const server = createGatewayServer(host.shell, gwSession, { approveTool: false });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "surface-test", version: "1.0.0" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  t.after(() => client.close());
  const gw = (await client.callTool({ name: "leaky", arguments: { n: 1 } })) as CallToolResult;
  outputs.gateway = (gw.content[0] as { text: string }).text;
  leakyEvents.gateway = shape(lastCallEvent(s, "leaky"));
  const gwDanger = (await client.callTool({ name: "danger", arguments: { n: 1 } })) as CallToolResult;
  const gwText = (gwDanger.content[0] as { text: string }).text;
  decisions.gateway = /needs_approval/.test(gwText) && /policy/.test(gwText) ? "needs_approval/policy" : gwText;
  dangerEvents.gateway = shape(lastCallEvent(s, "danger"));

  // 4. A saved script that makes the call.
  await host.store.saveScript("default", { name: "leak-it", description: "Calls leaky.", input_schema: { type: "object" }, body: "tools leaky n=1\n" });
  await host.store.saveScript("default", { name: "risk-it", description: "Calls danger.", input_schema: { type: "object" }, body: 'x=1; tools danger n="$x"\n' });
  const scriptSession = host.session("script-s");
  const r4 = await scriptSession.bash("tools scripts leak-it");
  outputs.script = r4.stdout;
  leakyEvents.script = shape(lastCallEvent(s, "leaky"));
  const d4 = await scriptSession.bash("tools scripts risk-it");
  decisions.script = `${d4.tools?.stopped?.reason}/${d4.tools?.stopped?.why}`;
  dangerEvents.script = shape(lastCallEvent(s, "danger"));

  // 5. A trigger running the saved script (no model).
  const leakTrigger = await host.triggers.create("default", { name: "leak", kind: "schedule", cron: "0 0 1 1 *", timezone: "UTC", script: "leak-it", input: {}, enabled: false, wake_agent_on_failure: false });
  await host.triggers.run(leakTrigger.trigger.id, "manual");
  leakyEvents.trigger = shape(lastCallEvent(s, "leaky"));
  const leakOut = s.events.filter((e) => e.type === "shell_call.ended" && e.session_id === `trg_${leakTrigger.trigger.id}`);
  assert.equal(leakOut.length, 1);
  const riskTrigger = await host.triggers.create("default", { name: "risk", kind: "schedule", cron: "0 0 1 1 *", timezone: "UTC", script: "risk-it", input: {}, enabled: false, wake_agent_on_failure: false });
  const run = await host.triggers.run(riskTrigger.trigger.id, "manual");
  decisions.trigger = `${run.status}/${(await host.session(`trg_${riskTrigger.trigger.id}`).pendingApprovals())[0]?.why}`;
  dangerEvents.trigger = shape(lastCallEvent(s, "danger"));

  // 6. The HTTP API.
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const post = async (p: string, body: unknown) => {
    const res = await fetch(api.url + p, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    return (await res.json()) as { id?: string; stdout?: string; tools?: { stopped?: { reason: string; why?: string } } };
  };
  const created = await post("/v1/sessions", { id: "http-s" });
  assert.equal(created.id, "http-s");
  const r6 = await post("/v1/sessions/http-s/bash", { script: "tools leaky n=1" });
  outputs.http = r6.stdout ?? "";
  leakyEvents.http = shape(lastCallEvent(s, "leaky"));
  const d6 = await post("/v1/sessions/http-s/bash", { script: 'x=1; tools danger n="$x"' });
  decisions.http = `${d6.tools?.stopped?.reason}/${d6.tools?.stopped?.why}`;
  dangerEvents.http = shape(lastCallEvent(s, "danger"));

  // Same redaction everywhere: the secret never leaves, the marker stands in its place.
  for (const [surface, out] of Object.entries(outputs)) {
    assert.ok(!out.includes(SECRET), `${surface} leaked the secret: ${out}`);
    assert.match(out, /\[REDACTED\]/, `${surface}: ${out}`);
  }
  // The trigger's run output is in its shell call's result; its events are redacted too.
  assert.ok(!JSON.stringify(s.events).includes(SECRET), "no event holds the secret");

  // Same event everywhere.
  const expectedLeaky = { tool_name: "leaky", command: "tools leaky", status: "completed", input_preview: '{"n":1}', error: undefined };
  for (const [surface, e] of Object.entries(leakyEvents)) assert.deepEqual(e, expectedLeaky, surface);
  const expectedDanger = { tool_name: "danger", command: "tools danger", status: "needs_approval", input_preview: '{"n":1}', error: "needs_approval" };
  for (const [surface, e] of Object.entries(dangerEvents)) assert.deepEqual(e, expectedDanger, surface);

  // Same approval decision everywhere.
  assert.deepEqual(decisions, {
    shell: "needs_approval/policy",
    ai: "needs_approval/policy",
    gateway: "needs_approval/policy",
    script: "needs_approval/policy",
    trigger: "stopped/policy",
    http: "needs_approval/policy",
  });

  // Hooks saw every surface's call, marked with where it came from.
  const vias = new Set(s.hookSaw.filter((h) => h.command === "tools leaky").map((h) => h.via));
  assert.deepEqual([...vias].sort(), ["direct", "shell"]);
});
