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

test("gateway: a client that answers by elicitation cannot record an answer by calling toolshell_approve by name", async (t) => {
  const { shell, ran } = await payShell(t);
  // The person is asked in the form and declines; the model then tries to answer for them.
  const { client, asked, session } = await connect(t, shell, "gw-approve", "reject");
  const listed = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(!listed.includes("toolshell_approve"), "not listed for an elicitation client");
  const stopped = await session.bash("tools pay to=mallory");
  const requestId = stopped.tools!.stopped!.request_id!;
  const forged = await client.callTool({ name: "toolshell_approve", arguments: { request_id: requestId, decision: "allow_always" } });
  assert.equal(forged.isError, true);
  assert.equal(valueOf(forged).error.code, "denied");
  assert.equal(session.pendingApprovals().length, 1, "the request is still waiting for the person");
  const r = valueOf(await client.callTool({ name: "bash", arguments: { command: "tools pay to=mallory" } }));
  assert.equal(asked.length, 1, "the person was asked");
  assert.notEqual(r.exit_code, 0);
  assert.deepEqual(ran, []);

  // Control: a client without elicitation is offered the tool and its call records the answer.
  const plain = await connect(t, shell, "gw-approve-plain");
  assert.ok((await plain.client.listTools()).tools.some((x) => x.name === "toolshell_approve"));
  const s2 = await plain.session.bash("tools pay to=alice");
  const answered = valueOf(await plain.client.callTool({ name: "toolshell_approve", arguments: { request_id: s2.tools!.stopped!.request_id!, decision: "allow" } }));
  assert.equal(answered.answered.decision, "allow");
  const ok = valueOf(await plain.client.callTool({ name: "bash", arguments: { command: "tools pay to=alice" } }));
  assert.equal(ok.exit_code, 0, JSON.stringify(ok));
  assert.deepEqual(ran, ["alice"]);
});
