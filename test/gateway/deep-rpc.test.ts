/**
 * The HTTP gateway depth-checks every JSON-RPC message by the rule of tool inputs and API bodies
 * (`refuseDeepInput`, 64 levels; docs/security.md → What each limit defends): a `tools/call`
 * whose `arguments` nest deeper answers a JSON-RPC error (-32602) naming the field, from a 2025
 * session and from a 2026-07-28 client alike, over HTTP and over stdio, and the gateway goes on serving. The messages are
 * written by hand: a client's JSON.stringify would itself run out of stack on them.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { stopChild } from "../fixtures/child.js";
import { eventually } from "../fixtures/eventually.js";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";
import { serveHttp } from "../../src/gateway/index.js";
import { openHost } from "../../src/server/index.js";

const deep = (levels: number) => "[".repeat(levels) + "1" + "]".repeat(levels);
const ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const MODERN_META = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`;

/** The JSON-RPC message of a response, JSON or one server-sent event. */
async function message(res: Response): Promise<{ id?: unknown; result?: { structuredContent?: { stdout?: string; stderr?: string } }; error?: { code: number; message: string } }> {
  const text = await res.text();
  return JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text);
}

test("a JSON-RPC message nested deeper than a tool's input may be answers a JSON-RPC error on both eras; the gateway keeps serving", async (t) => {
  const host = await openHost({ config: {} });
  t.after(() => host.close());
  const gateway = await serveHttp(host.shell, { port: 0, elicitation: false });
  t.after(() => gateway.close());

  const init = await fetch(gateway.url, { method: "POST", headers: ACCEPT, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "deep", version: "1" } } }) });
  const sid = init.headers.get("mcp-session-id")!;
  await init.text();
  const legacy = { ...ACCEPT, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18" };
  await (await fetch(gateway.url, { method: "POST", headers: legacy, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) })).text();
  const modern = { ...ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "bash" };
  const call = (id: number, command: string, x: string, era: "legacy" | "modern") =>
    fetch(gateway.url, {
      method: "POST",
      headers: era === "legacy" ? legacy : modern,
      body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"bash","arguments":{"command":${JSON.stringify(command)}${x ? `,"x":${x}` : ""}}${era === "modern" ? `,${MODERN_META}` : ""}}}`,
    }).then(message);

  for (const era of ["legacy", "modern"] as const) {
    for (const levels of [100, 100_000]) {
      const refused = await call(levels, "echo ran", deep(levels), era);
      assert.equal(refused.id, levels, `${era} ${levels}`);
      assert.equal(refused.error?.code, -32602, `${era} ${levels}: ${JSON.stringify(refused).slice(0, 300)}`);
      assert.equal(refused.error?.message, `"params.arguments" is nested more than 64 levels deep: send a flatter value`);
    }
    // Up to the bound the message reaches the tool (which reads the field and refuses it by name),
    // and the gateway still answers.
    const reached = await call(7, "echo ok", deep(60), era);
    assert.match(reached.result?.structuredContent?.stderr ?? "", /unknown field x/, `${era}: ${JSON.stringify(reached).slice(0, 300)}`);
    const made = await call(8, "echo ok", "", era);
    assert.equal(made.result?.structuredContent?.stdout, "ok\n", `${era}: ${JSON.stringify(made).slice(0, 300)}`);
  }
  // A notification too deep has no id to answer: HTTP 400 with the error.
  const note = await fetch(gateway.url, { method: "POST", headers: legacy, body: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${deep(100)}}}` });
  assert.equal(note.status, 400);
  assert.equal((await message(note)).error?.code, -32602);
});

/** `toolshell mcp` over stdio in a folder of its own: its stdin, and the JSON lines it wrote so far. */
function stdioGateway(t: TestContext): { child: ChildProcessWithoutNullStreams; lines: () => Array<{ id?: unknown; result?: { structuredContent?: { stdout?: string } }; error?: { code: number; message: string } }> } {
  const dir = tempDir(t);
  const config = path.join(dir, "toolshell.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: {}, logDir: path.join(dir, "logs") }));
  const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/cli/main.ts");
  const cmd = tsxCommand(MAIN, ["mcp", "--config", config]);
  const child = spawn(cmd.command, cmd.args, { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
  t.after(() => stopChild(child));
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.resume();
  return { child, lines: () => out.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l)) };
}

test("over stdio too: a deep tools/call answers JSON-RPC -32602 on both eras, and the next call is served", async (t) => {
  for (const era of ["legacy", "modern"] as const) {
    const { child, lines } = stdioGateway(t);
    const answer = (id: number) => eventually(`${era}: the answer to ${id}`, () => lines().find((m) => m.id === id));
    const meta = era === "modern" ? `,${MODERN_META}` : "";
    if (era === "legacy") {
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "deep", version: "1" } } }) + "\n");
      await answer(1);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
    }
    child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo ran","x":${deep(100_000)}}${meta}}}\n`);
    child.stdin.write(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{"command":"echo alive"}${meta}}}\n`);
    const refused = await answer(2);
    assert.equal(refused.error?.code, -32602, `${era}: ${JSON.stringify(refused).slice(0, 300)}`);
    assert.equal(refused.error?.message, `"params.arguments" is nested more than 64 levels deep: send a flatter value`);
    assert.equal((await answer(3)).result?.structuredContent?.stdout, "alive\n");
    child.stdin.end();
  }
});

test("over stdio, every malformed line is answered with JSON-RPC's error (-32700, -32600, id null when unknown) and the gateway goes on serving", async (t) => {
  const { child, lines } = stdioGateway(t);
  const bad: Array<[string, number, unknown]> = [
    ["not json", -32700, null],
    ["[]", -32600, null],
    ["5", -32600, null],
    ['{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600, null],
    ['{"jsonrpc":"2.0","id":41}', -32600, 41],
    ['{"jsonrpc":"1.0","id":42,"method":"ping"}', -32600, 42],
    [`{"jsonrpc":"2.0","id":43,"method":"tools/call","params":${deep(100_000)}}`, -32600, 43],
    // What the SDK's own message schema refuses, it dropped without an answer.
    ['[{"jsonrpc":"2.0","id":"b","method":"ping"}]', -32600, null],
    ['{"jsonrpc":"2.0","id":44,"method":"ping","params":5}', -32600, 44],
    ['{"jsonrpc":"2.0","id":45,"method":"ping","result":{}}', -32600, 45],
    ['{"jsonrpc":"2.0","id":"x46","method":"ping","foo":1}', -32600, "x46"],
    ['{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600, null],
    ['{"jsonrpc":"2.0","id":47,"method":"ping","params":{"_meta":5}}', -32600, 47],
  ];
  for (const [line] of bad) child.stdin.write(`${line}\n`);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bad", version: "1" } } }) + "\n");
  await eventually("the answer to initialize", () => lines().find((m) => m.id === 1));
  const errors = lines().filter((m) => m.error);
  assert.deepEqual(errors.map((m) => [m.error!.code, m.id]), bad.map(([, code, id]) => [code, id]), JSON.stringify(errors).slice(0, 800));
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bash", arguments: { command: "echo alive" } } }) + "\n");
  const alive = await eventually("the answer to 2", () => lines().find((m) => m.id === 2));
  assert.equal(alive.result?.structuredContent?.stdout, "alive\n");
  child.stdin.end();
});

test("over stdio, a line longer than the SDK's 10 MiB buffer is answered -32700 and skipped; the lines after it in the same write are served; a character cut between writes arrives whole", async (t) => {
  const { child, lines } = stdioGateway(t);
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "long", version: "1" } } }) + "\n");
  await eventually("the answer to initialize", () => lines().find((m) => m.id === 1));
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
  // 11 MiB in one line, then a ping in the same write: the SDK alone dropped both unanswered.
  const long = `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"${"x".repeat(11 * 1024 * 1024)}"}}`;
  child.stdin.write(`${long}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n`);
  const pong = await eventually("the answer to the ping after the long line", () => lines().find((m) => m.id === 3));
  assert.deepEqual(pong.result, {});
  const refused = lines().find((m) => m.error?.code === -32700);
  assert.match(refused?.error?.message ?? "", /a message is at most 10485759 bytes on one line; this one was longer and was skipped/, JSON.stringify(lines()).slice(0, 500));
  // "é" is two bytes: written as two pieces, the second piece starting inside the character.
  const call = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "bash", arguments: { command: "echo café" } } }) + "\n");
  const cut = call.indexOf(Buffer.from("é")) + 1;
  child.stdin.write(call.subarray(0, cut));
  await new Promise((r) => setTimeout(r, 50));
  child.stdin.write(call.subarray(cut));
  const echoed = await eventually("the answer to 4", () => lines().find((m) => m.id === 4));
  assert.equal(echoed.result?.structuredContent?.stdout, "café\n");
  child.stdin.end();
});
