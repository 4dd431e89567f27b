/**
 * What the gateway relays between the servers behind it and its own MCP client (a real SDK
 * client; `toolshell mcp` as a child process over stdio): progress notifications during a
 * multi-call script (the client sent a progressToken), an upstream server's question as an
 * elicitation the client answers (accept, decline), a question declined with `tool_error` for a
 * client without elicitation, and integers beyond 2^53 with every digit in `bash`'s stdout and
 * a direct tool's text.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/client";
import type { CallToolResult, Progress } from "@modelcontextprotocol/client";
import { FEATURE_BIG_ID, FEATURE_SERVER, tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(root, "src/cli/main.ts");

type Answer = { action: "accept"; content: Record<string, string | number | boolean | string[]> } | { action: "decline" | "cancel" };

/** `toolshell mcp` over a config with the feature fixture, and a connected SDK client (which answers questions with `answer` when given). */
async function connect(t: { after: (fn: () => Promise<unknown>) => void }, answer?: Answer): Promise<{ client: Client; asked: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-relay-"));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { feature: { ...tsxCommand(FEATURE_SERVER), trust: true } }, keepVisible: ["feature big"], logDir: path.join(dir, "logs") }));
  const client = new Client({ name: "relay-test", version: "1.0.0" }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push(String((req.params as { message?: unknown }).message));
      return answer;
    });
  }
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
  t.after(() => client.close());
  return { client, asked };
}

function bashValue(r: unknown): { stdout: string; stderr: string; exit_code: number } {
  const res = r as CallToolResult;
  return JSON.parse((res.content[0] as { text: string }).text) as { stdout: string; stderr: string; exit_code: number };
}

test("a multi-call script sends progress for each nested call; the upstream question is answered by the client; big integers keep their digits", async (t) => {
  const { client, asked } = await connect(t, { action: "accept", content: { name: "Ada", count: 2 } });
  const progress: Progress[] = [];
  const script = `tools feature steps n=2\ntools feature ask message=$'Pick one\\u202e'\ntools feature big | jq .id`;
  const r = bashValue(await client.callTool({ name: "bash", arguments: { command: script } }, { onprogress: (p) => progress.push(p) }));
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout, `2 steps\nanswer: {"name":"Ada","count":2}\n${FEATURE_BIG_ID}\n`);
  assert.deepEqual(
    progress.map((p) => p.message),
    [
      "tools feature steps: started",
      "tools feature steps: step 1 (1/2)",
      "tools feature steps: step 2 (2/2)",
      "tools feature steps: completed",
      "tools feature ask: started",
      "tools feature ask: completed",
      "tools feature big: started",
      "tools feature big: completed",
    ],
  );
  assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3, 4, 5, 6, 7, 8], "the progress value grows with every notification");
  // The server's message reaches the person escaped, with who asks and a warning for the hidden character.
  assert.equal(asked.length, 1);
  assert.equal(asked[0], 'MCP server feature asks (during tools feature ask):\n> "Pick one\\u202e"\n⚠ hidden character U+202E RIGHT-TO-LEFT OVERRIDE at the input itself of the message');

  // The direct tool's text block carries every digit too.
  const direct = (await client.callTool({ name: "feature__big", arguments: {} })) as CallToolResult;
  assert.equal(direct.isError, undefined, JSON.stringify(direct));
  assert.match((direct.content[0] as { text: string }).text, new RegExp(`^\\{"id":${FEATURE_BIG_ID},`));
});

test("a question the client declines ends the call with the server's tool_error", async (t) => {
  const { client, asked } = await connect(t, { action: "decline" });
  const r = bashValue(await client.callTool({ name: "bash", arguments: { command: "tools feature ask" } }));
  assert.equal(asked.length, 1);
  assert.equal(r.exit_code, 1);
  assert.deepEqual(JSON.parse(r.stderr.trim().split("\n").pop()!), { error: { code: "tool_error", message: "the person did not answer (decline)", retryable: false } });
});

test("a client without elicitation: the question is declined and the tool_error says nobody could answer", async (t) => {
  const { client } = await connect(t);
  const r = bashValue(await client.callTool({ name: "bash", arguments: { command: "tools feature ask" } }));
  assert.equal(r.exit_code, 1);
  const error = JSON.parse(r.stderr.trim().split("\n").pop()!).error;
  assert.equal(error.code, "tool_error");
  assert.match(error.message, /declined: nobody can answer questions here/);
});
