/**
 * The MCP gateway with the MCP SDK client as the peer: over stdio (`toolshell mcp` as a child
 * process) and over Streamable HTTP (a real HTTP server on 127.0.0.1), with a client that
 * answers elicitation and a second client that lacks it. Real servers behind: the npm memory
 * server (its `delete_entities` is destructive, so it needs approval) and the everything server
 * (on demand; its `get-tiny-image` kept visible, so it is a direct tool returning an image).
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { serveHttp } from "../../src/gateway/index.js";
import { createToolShell, type ToolShell } from "../../src/index.js";
import { NPM_SERVERS, tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(root, "src/cli/main.ts");

function writeConfig(keepVisible = ["everything get-tiny-image"]): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-gw-"));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(
    file,
    JSON.stringify({
      mcpServers: {
        memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") }, trust: true },
        everything: { command: NPM_SERVERS.everything, args: ["stdio"], load: "on_demand", trust: true },
      },
      keepVisible,
      logDir: path.join(dir, "logs"),
    }),
  );
  return { dir, file };
}

type Asked = Array<{ message: string }>;
/** An MCP SDK client; with `answer`, it declares form elicitation and answers every request so. */
function makeClient(answer?: { action: "accept" | "decline" | "cancel"; decision?: string }): { client: Client; asked: Asked } {
  const asked: Asked = [];
  const client = new Client({ name: "test-client", version: "1.0.0" }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  if (answer) {
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push({ message: String((req.params as { message?: string }).message) });
      return answer.action === "accept" ? { action: "accept", content: { decision: answer.decision ?? "allow" } } : { action: answer.action };
    });
  }
  return { client, asked };
}

type BashValue = { stdout: string; stderr: string; exit_code: number; tools?: { stopped?: { reason: string; request_id: string; before_start?: boolean; call?: { tool: string } }; done: unknown[] }; approval?: { request_id: string; how?: string; decision?: string; next?: string } };
function bashValue(r: unknown): BashValue {
  const res = r as CallToolResult;
  const text = res.content[0];
  assert.equal(text.type, "text");
  const parsed = JSON.parse((text as { text: string }).text) as BashValue;
  assert.deepEqual(res.structuredContent, parsed, "structuredContent carries the same result");
  return parsed;
}

const closers: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
});

const createScript = `tools memory create-entities <<'EOF' >/dev/null
{"entities":[{"name":"alpha","entityType":"note","observations":["a"]},{"name":"beta","entityType":"note","observations":["b"]}]}
EOF
tools memory read-graph | jq -c '[.entities[].name]'`;

test("stdio: `toolshell mcp` lists bash and the direct tools; an approval is asked through elicitation and the script runs", async () => {
  const { file, dir } = writeConfig();
  const { client, asked } = makeClient({ action: "accept", decision: "allow" });
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  const transport = new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" });
  let notices = 0;
  let wake = () => {};
  client.setNotificationHandler('notifications/tools/list_changed', async () => {
    notices++;
    wake();
  });
  await client.connect(transport);
  closers.push(() => client.close());
  // The gateway answers before the servers are up and says when their tools are there.
  let seen = notices;
  let { tools } = await client.listTools();
  while (/memory \(not loaded\)/.test(tools.find((t) => t.name === "bash")?.description ?? "")) {
    if (notices === seen) await new Promise<void>((resolve) => (wake = resolve));
    seen = notices;
    ({ tools } = await client.listTools());
  }
  assert.deepEqual(tools.map((t) => t.name).sort(), ["bash", "everything__get-tiny-image"], "no approve tool for a client with elicitation");
  const bash = tools.find((t) => t.name === "bash")!;
  // The gateway runs on the host of `toolshell serve`: saved scripts are a source too.
  assert.match(bash.description ?? "", /^Sources: memory \(11 tools\), everything \(\d+ tools\), scripts \(0 scripts\)$/m);
  assert.deepEqual(bash.inputSchema.required, ["command"]);
  const made = bashValue(await client.callTool({ name: "bash", arguments: { command: createScript } }));
  assert.equal(made.exit_code, 0, made.stderr);
  assert.equal(made.stdout, '["alpha","beta"]\n');
  assert.equal(asked.length, 0, "nothing needed approval yet");
  // A literal destructive call: the script would stop before start; the person is asked, then it runs.
  const del = bashValue(await client.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["alpha"]}' >/dev/null\ntools memory read-graph | jq -c '[.entities[].name]'` } }));
  assert.equal(asked.length, 1);
  assert.match(asked[0].message, /tools memory delete-entities \(destructive\)\n\{\n  "entityNames": \[\n    "alpha"\n  \]\n\}/);
  assert.equal(del.exit_code, 0, del.stderr);
  assert.equal(del.stdout, '["beta"]\n');
  assert.equal(del.approval?.decision, "allow");
  // The image tool kept visible is a direct tool: its image reaches the client as an image block.
  const img = (await client.callTool({ name: "everything__get-tiny-image", arguments: {} })) as CallToolResult;
  assert.ok(img.content.some((c) => c.type === "image" && c.mimeType === "image/png" && c.data.length > 20), JSON.stringify(img).slice(0, 300));
});

test("stdio: a run-time stop is asked about; a decline is stored as reject and the call is refused", async () => {
  const { file, dir } = writeConfig();
  const { client, asked } = makeClient({ action: "decline" });
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
  closers.push(() => client.close());
  bashValue(await client.callTool({ name: "bash", arguments: { command: createScript } }));
  const script = `name=$(tools memory read-graph | jq -r '.entities[0].name')\njq -n --arg n "$name" '{entityNames: [$n]}' | tools memory delete-entities\necho not-reached`;
  const r = bashValue(await client.callTool({ name: "bash", arguments: { command: script } }));
  assert.equal(asked.length, 1);
  assert.equal(r.exit_code, 1);
  assert.equal(r.stdout, "", "nothing after the stopped call ran");
  assert.equal(r.tools?.stopped?.reason, "needs_approval");
  assert.equal(r.tools?.stopped?.before_start, undefined);
  assert.equal(r.approval?.decision, "reject");
  const again = bashValue(await client.callTool({ name: "bash", arguments: { command: script } }));
  assert.match(again.stderr, /"code":"denied"/, "the one-off reject refuses the same call");
  const left = bashValue(await client.callTool({ name: "bash", arguments: { command: "tools memory read-graph | jq -c '[.entities[].name]'" } }));
  assert.equal(left.stdout, '["alpha","beta"]\n');
});

async function httpGateway(keepVisible?: string[], approveTool?: boolean): Promise<{ shell: ToolShell; url: string; port: number }> {
  const { file } = writeConfig(keepVisible);
  const shell = await createToolShell({ config: file });
  closers.push(() => shell.close());
  const running = await serveHttp(shell, { port: 0, approveTool });
  closers.push(() => running.close());
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return { shell, url: running.url, port: running.port };
}

test("Streamable HTTP: elicitation over the call's stream; a client without elicitation gets the stop report and toolshell_approve", async () => {
  const { url } = await httpGateway();
  const withForm = makeClient({ action: "accept", decision: "allow_always" });
  await withForm.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => withForm.client.close());
  const plain = makeClient();
  await plain.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => plain.client.close());

  const names = async (c: Client) => (await c.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(await names(withForm.client), ["bash", "everything__get-tiny-image"]);
  assert.deepEqual(await names(plain.client), ["bash", "everything__get-tiny-image", "toolshell_approve"]);

  bashValue(await withForm.client.callTool({ name: "bash", arguments: { command: createScript } }));
  const del = `tools memory delete-entities '{"entityNames":["alpha"]}' | jq -r .message`;
  const a = bashValue(await withForm.client.callTool({ name: "bash", arguments: { command: del } }));
  assert.equal(withForm.asked.length, 1);
  assert.equal(a.exit_code, 0, a.stderr);

  // The second client is its own session: allow_always of the first does not cover it.
  const stopped = bashValue(await plain.client.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["beta"]}' | jq -r .message` } }));
  assert.equal(stopped.exit_code, 1);
  assert.equal(stopped.tools?.stopped?.before_start, true);
  const id = stopped.tools!.stopped!.request_id;
  assert.equal(stopped.approval?.request_id, id);
  assert.match(stopped.approval?.how ?? "", /toolshell_approve/);
  const bad = (await plain.client.callTool({ name: "toolshell_approve", arguments: { request_id: id, decision: "maybe" } })) as CallToolResult;
  assert.equal(bad.isError, true);
  const ok = (await plain.client.callTool({ name: "toolshell_approve", arguments: { request_id: id, decision: "allow" } })) as CallToolResult;
  assert.equal(ok.isError, undefined);
  const ran = bashValue(await plain.client.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["beta"]}' | jq -r .message` } }));
  assert.equal(ran.exit_code, 0, ran.stderr);
  const twice = (await plain.client.callTool({ name: "toolshell_approve", arguments: { request_id: id, decision: "allow" } })) as CallToolResult;
  assert.equal(twice.isError, true, "an answered request cannot be answered again");
});

test("Streamable HTTP: bound to 127.0.0.1; a foreign Host or Origin is refused; an unknown session id is 404", async () => {
  const { port, url } = await httpGateway();
  const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const evil = await fetch(url, { method: "POST", headers: { ...headers, origin: "http://evil.example" }, body: JSON.stringify(init) });
  assert.equal(evil.status, 403);
  const { request } = await import("node:http");
  const status = await new Promise<number>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { ...headers, host: `attacker.example:${port}` } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(JSON.stringify(init));
  });
  assert.equal(status, 403);
  const gone = await fetch(url, { method: "POST", headers: { ...headers, "mcp-session-id": "nope" }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
  assert.equal(gone.status, 404);
  const fine = await fetch(url, { method: "POST", headers, body: JSON.stringify(init) });
  assert.equal(fine.status, 200);
  assert.ok(fine.headers.get("mcp-session-id"));
  await fine.body?.cancel();
});

test("a server loaded on demand by a script: the client is told the tool list changed, and the sources line shows its count", async () => {
  const { url } = await httpGateway([]);
  const { client } = makeClient();
  let changed = 0;
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    changed++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => client.close());
  const before = (await client.listTools()).tools.find((t) => t.name === "bash")!.description ?? "";
  assert.match(before, /everything \(not loaded\)/);
  bashValue(await client.callTool({ name: "bash", arguments: { command: "echo no load" } }));
  assert.equal(changed, 0);
  bashValue(await client.callTool({ name: "bash", arguments: { command: "tools everything --help >/dev/null" } }));
  for (let i = 0; i < 50 && changed === 0; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(changed, 1);
  const after = (await client.listTools()).tools.find((t) => t.name === "bash")!.description ?? "";
  assert.match(after, /everything \(\d+ tools\)/);
});

test("bad calls are tool errors, not protocol failures", async () => {
  const { url } = await httpGateway();
  const { client } = makeClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => client.close());
  const missing = bashValue(await client.callTool({ name: "bash", arguments: { script: "echo" } }));
  assert.equal(missing.exit_code, 2);
  assert.match(missing.stderr, /`command` must be a string/);
  const unknown = (await client.callTool({ name: "nope", arguments: {} })) as CallToolResult;
  assert.equal(unknown.isError, true);
  assert.match(JSON.stringify(unknown.content), /unknown_command/);
  const approveUnknown = (await client.callTool({ name: "toolshell_approve", arguments: { request_id: "apr_missing", decision: "allow" } })) as CallToolResult;
  assert.equal(approveUnknown.isError, true);
});

test("stdio: answers persist in the store across gateway restarts (session `mcp`)", async () => {
  const { file, dir } = writeConfig();
  const cmd = tsxCommand(MAIN, ["mcp", "--config", file]);
  const start = async () => {
    const { client } = makeClient();
    await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
    return client;
  };
  const first = await start();
  bashValue(await first.callTool({ name: "bash", arguments: { command: createScript } }));
  const stopped = bashValue(await first.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["alpha"]}' >/dev/null` } }));
  const id = stopped.tools!.stopped!.request_id;
  const ok = (await first.callTool({ name: "toolshell_approve", arguments: { request_id: id, decision: "allow_always" } })) as CallToolResult;
  assert.equal(ok.isError, undefined, JSON.stringify(ok));
  // Asked before the script started: the answer says what the stop report said, run it again.
  assert.equal(JSON.parse((ok.content[0] as { text: string }).text).next, "nothing ran: run the same script again");
  await first.close();
  const second = await start();
  closers.push(() => second.close());
  const ran = bashValue(await second.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["beta"]}' >/dev/null && tools memory read-graph | jq -c '[.entities[].name]'` } }));
  assert.equal(ran.exit_code, 0, ran.stderr);
  assert.equal(ran.stdout, '["alpha"]\n', "beta was deleted without asking; alpha's stopped script was never resumed");
});

test("stdio with --no-approve-tool: the way to answer names the gateway's config file, and run as written from another folder it answers", async () => {
  const { file, dir } = writeConfig();
  const cmd = tsxCommand(MAIN, ["mcp", "--no-approve-tool", "--no-elicitation", "--config", file]);
  const { client } = makeClient();
  await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
  closers.push(() => client.close());
  const stopped = bashValue(await client.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["alpha"]}'` } }));
  const how = stopped.approval?.how ?? "";
  assert.ok(how.includes(`toolshell --config ${file} approve ${stopped.tools!.stopped!.request_id} `), how);
  // The person runs it from elsewhere (here: the temp folder's parent), answering "allow".
  const words = how.replace(/^ask the person to answer with: /, "").split(" ").slice(1, 5);
  const answer = spawnSync(process.execPath, [...tsxCommand(MAIN, []).args, ...words, "allow"], { cwd: path.dirname(dir), encoding: "utf8", timeout: 60_000 });
  assert.equal(answer.status, 0, answer.stderr);
  assert.match(answer.stdout, /^allow: tools memory delete-entities/);
});

test("a direct tool that needs approval: asked through elicitation, or refused with a request id the approve tool answers", async () => {
  const { url } = await httpGateway(["memory delete_entities"]);
  const asking = makeClient({ action: "accept", decision: "allow" });
  await asking.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => asking.client.close());
  bashValue(await asking.client.callTool({ name: "bash", arguments: { command: createScript } }));
  const done = (await asking.client.callTool({ name: "memory__delete_entities", arguments: { entityNames: ["alpha"] } })) as CallToolResult;
  assert.equal(done.isError, undefined, JSON.stringify(done));
  assert.equal(asking.asked.length, 1);
  assert.match(asking.asked[0].message, /tools memory delete-entities \(destructive\)\n\{\n  "entityNames": \[\n    "alpha"\n  \]\n\}/);

  const plain = makeClient();
  await plain.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => plain.client.close());
  const refused = (await plain.client.callTool({ name: "memory__delete_entities", arguments: { entityNames: ["beta"] } })) as CallToolResult;
  assert.equal(refused.isError, true);
  const body = JSON.parse((refused.content[0] as { text: string }).text) as { error: { code: string }; approval: { request_id: string } };
  assert.equal(body.error.code, "needs_approval");
  const answered = (await plain.client.callTool({ name: "toolshell_approve", arguments: { request_id: body.approval.request_id, decision: "allow" } })) as CallToolResult;
  assert.equal(JSON.parse((answered.content[0] as { text: string }).text).next, "call the tool again (tools memory delete-entities)");
  const ran = (await plain.client.callTool({ name: "memory__delete_entities", arguments: { entityNames: ["beta"] } })) as CallToolResult;
  assert.equal(ran.isError, undefined, JSON.stringify(ran));
  const left = bashValue(await plain.client.callTool({ name: "bash", arguments: { command: "tools memory read-graph | jq -c '[.entities[].name]'" } }));
  assert.equal(left.stdout, "[]\n");
});

test("the approve tool is marked destructive (clients confirm it with the person) and can be left out", async () => {
  const { url } = await httpGateway(undefined, false);
  const plain = makeClient();
  await plain.client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => plain.client.close());
  assert.deepEqual((await plain.client.listTools()).tools.map((t) => t.name).sort(), ["bash", "everything__get-tiny-image"]);
  const stopped = bashValue(await plain.client.callTool({ name: "bash", arguments: { command: `tools memory delete-entities '{"entityNames":["x"]}'` } }));
  assert.equal(stopped.tools?.stopped?.reason, "needs_approval");
  assert.match(stopped.approval?.how ?? "", /toolshell approve apr_/);
  const refused = (await plain.client.callTool({ name: "toolshell_approve", arguments: { request_id: stopped.tools!.stopped!.request_id, decision: "allow" } })) as CallToolResult;
  assert.equal(refused.isError, true, "the model cannot record an answer when the tool is off");
  const { approveToolSpec } = await import("../../src/gateway/index.js");
  assert.equal(approveToolSpec().annotations?.destructiveHint, true);
});
