/**
 * The MCP gateway as an attacker's client would use it: the MCP SDK client against the gateway
 * server (in memory, and over Streamable HTTP on 127.0.0.1). Each attack has a control that
 * shows the attacked thing works when allowed.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createGatewayServer } from "../../src/gateway/index.js";
import { always, createToolShell, defineTool, type ToolShell } from "../../src/index.js";

/** A ToolShell with one local tool that always needs a person; `ran` counts its runs. */
async function payShell(t: { after: (fn: () => unknown) => void }): Promise<{ shell: ToolShell; ran: string[] }> {
  const ran: string[] = [];
  const shell = await createToolShell({
    config: {},
    tools: {
      pay: defineTool({
        description: "Pays someone.",
        inputSchema: { type: "object", properties: { to: { type: "string" } } },
        approval: always(),
        execute: ({ to }) => {
          ran.push(String(to));
          return "paid";
        },
      }),
    },
  });
  t.after(() => shell.close());
  return { shell, ran };
}

/** A client connected in memory to a gateway over `shell`; with `decision`, it answers elicitation so. */
async function connect(t: { after: (fn: () => unknown) => void }, shell: ToolShell, sessionId: string, decision?: string) {
  const asked: string[] = [];
  const client = new Client({ name: "attacker", version: "1.0.0" }, { capabilities: decision ? { elicitation: { form: {} } } : {} });
  if (decision) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(String((req.params as { message?: string }).message));
      return { action: "accept", content: { decision } };
    });
  }
  const session = shell.session(sessionId);
  await session.ready;
  const server = createGatewayServer(shell, session);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  await client.connect(b);
  t.after(async () => {
    await client.close();
    await server.close();
  });
  return { client, asked, session };
}

function valueOf(r: unknown): any {
  const res = r as CallToolResult;
  return JSON.parse((res.content[0] as { text: string }).text);
}

test("gateway: the elicitation form shows the input with hidden characters escaped and named", async (t) => {
  const { shell, ran } = await payShell(t);
  const { client, asked } = await connect(t, shell, "gw-hidden", "allow");
  const r = valueOf(await client.callTool({ name: "bash", arguments: { command: "tools pay to='alice\u202Eecila'" } }));
  assert.equal(asked.length, 1);
  assert.ok(!asked[0]!.includes("\u202E"), `the raw override reached the person: ${JSON.stringify(asked[0])}`);
  assert.match(asked[0]!, /alice\\u202eecila/);
  assert.match(asked[0]!, /U\+202E RIGHT-TO-LEFT OVERRIDE at \/to/);
  // Control: the person's answer covers that call, and it ran.
  assert.equal(r.exit_code, 0, JSON.stringify(r));
  assert.deepEqual(ran, ["alice\u202Eecila"]);
});
