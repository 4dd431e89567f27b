/**
 * The MCP gateway over HTTP with two real `toolshell mcp --http` replicas on one real
 * PostgreSQL (docs/deployment.md → The MCP gateway): an MCP SDK client whose requests alternate
 * between the two keeps one MCP session — its files, its shell-call count and its approvals —
 * and an approval answered through one replica lets the script run through the other.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { deployment, TOKEN } from "./helpers.js";

type Bash = { stdout: string; stderr: string; exit_code: number; tools?: { stopped?: { request_id: string } } };
const bash = (r: unknown): Bash => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Bash;

test("requests of one MCP session alternating between two gateway replicas keep one working session", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A", { kind: "mcp" }), d.start("B", { kind: "mcp" })]);
  const hits = new Map<string, number>();
  let turn = 0;
  const alternate = (_input: string | URL | Request, init?: RequestInit) => {
    const target = turn++ % 2 === 0 ? a.url : b.url;
    hits.set(target, (hits.get(target) ?? 0) + 1);
    return fetch(target, init);
  };
  const client = new Client({ name: "replica-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(a.url), { fetch: alternate, requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } });
  await client.connect(transport);
  t.after(() => client.close().catch(() => {}));

  const one = bash(await client.callTool({ name: "bash", arguments: { command: "echo one > n.txt; tools count label=g1 >/dev/null; cat n.txt" } }));
  assert.equal(one.exit_code, 0, one.stderr);
  const two = bash(await client.callTool({ name: "bash", arguments: { command: "echo two >> n.txt; cat n.txt" } }));
  assert.equal(two.stdout, "one\ntwo\n");

  const pay = "tools pay to=carol";
  const stopped = bash(await client.callTool({ name: "bash", arguments: { command: pay } }));
  const requestId = stopped.tools?.stopped?.request_id;
  assert.ok(requestId, JSON.stringify(stopped));
  const answered = (await client.callTool({ name: "toolshell_approve", arguments: { request_id: requestId, decision: "allow" } })) as CallToolResult;
  assert.notEqual(answered.isError, true, JSON.stringify(answered));
  const paid = bash(await client.callTool({ name: "bash", arguments: { command: pay } }));
  assert.equal(paid.exit_code, 0, paid.stderr);
  assert.equal(paid.stdout, "paid\n");
  assert.equal(d.lines().filter((l) => l.endsWith("pay carol")).length, 1);
  assert.equal(d.lines().filter((l) => l.endsWith(" g1")).length, 1);
  assert.ok((hits.get(a.url) ?? 0) >= 3 && (hits.get(b.url) ?? 0) >= 3, `both replicas answered: ${JSON.stringify([...hits])}`);
});
