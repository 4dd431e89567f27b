/**
 * A 2026-07-28 MCP client and two real `toolshell mcp --http` replicas on one real PostgreSQL
 * (docs/mcp.md → "Gateway, 2026-07-28 clients"): the approval one replica asks (an
 * `input_required` answer with a sealed `requestState`) is answered by a retry that lands on the
 * other, which verifies the state with the key kept in the store and runs the call once; the
 * token's toolshell session (its files) is the same on both.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { deployment, TOKEN } from "./helpers.js";

type Bash = { stdout: string; stderr: string; exit_code: number; approval?: { decision?: string } };
const bash = (r: unknown): Bash => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Bash;
type InputRequired = { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string };

/** A client pinned to 2026-07-28 that fulfils input_required rounds by hand. */
async function client(t: { after: (fn: () => Promise<unknown>) => void }, url: string): Promise<Client> {
  const c = new Client({ name: "modern-replica-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } }, inputRequired: { autoFulfill: false } });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  t.after(() => c.close().catch(() => {}));
  return c;
}

test("2026-07-28: an approval asked on replica A is answered on replica B, which runs the call once", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A", { kind: "mcp" }), d.start("B", { kind: "mcp" })]);
  const onA = await client(t, a.url);
  const onB = await client(t, b.url);

  const wrote = bash(await onA.callTool({ name: "bash", arguments: { command: "echo from-a > f.txt" } }));
  assert.equal(wrote.exit_code, 0, wrote.stderr);
  const read = bash(await onB.callTool({ name: "bash", arguments: { command: "cat f.txt" } }));
  assert.equal(read.stdout, "from-a\n", "the token's session is the same on both replicas");

  const args = { command: "tools pay to=carol" };
  const asked = (await onA.callTool({ name: "bash", arguments: args }, { allowInputRequired: true })) as unknown as InputRequired;
  assert.equal(asked.resultType, "input_required", JSON.stringify(asked).slice(0, 400));
  assert.equal(asked.inputRequests.approval?.method, "elicitation/create");
  assert.equal(d.lines().filter((l) => l.endsWith("pay carol")).length, 0, "nothing ran before the answer");

  const retry = { name: "bash", arguments: args, inputResponses: { approval: { action: "accept", content: { decision: "allow" } } }, requestState: asked.requestState };
  const paid = bash(await onB.callTool(retry as never));
  assert.equal(paid.exit_code, 0, paid.stderr);
  assert.equal(paid.stdout, "paid\n");
  assert.equal(paid.approval?.decision, "allow");
  // The same retry again, on A: the completed step's recorded result; pay ran once, on B.
  const again = bash(await onA.callTool(retry as never));
  assert.equal(again.stdout, "paid\n");
  assert.deepEqual(d.lines().filter((l) => l.endsWith("pay carol")), ["B pay carol"]);
});
