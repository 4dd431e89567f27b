/**
 * The docs' examples, run as written against the packed package in a project made as a user makes
 * one (test/package/consumer.ts): docs/agents.md's AI SDK turn with the shipped
 * examples/ai-sdk-loop.ts, docs/sessions.md's host and HTTP API, and the README's CLI commands
 * (`exec`, `approvals`, `approve`, `events`, `daemon stop`) through the package's `toolshell` bin.
 *
 * The project's MCP server is a stdio server of a few lines speaking JSON-RPC as the MCP
 * specification writes it (no SDK), named `github` as the docs' examples name theirs: a read-only
 * `list_pulls` and a destructive `delete_branch` that appends the branch to `deleted.log`, so a
 * test sees how many times the side effect happened. TypeScript examples run with jiti, which the
 * package installs (`npx jiti file.ts`).
 */
import assert from "node:assert/strict";
import { copyFileSync, cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { docBlock, makeConsumer, npmInstall, root, run } from "./consumer.js";

const GITHUB_SERVER = `
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
const tools = [
  { name: "list_pulls", description: "List pull requests.", inputSchema: { type: "object", properties: { state: { type: "string" } } }, annotations: { readOnlyHint: true } },
  { name: "delete_branch", description: "Delete a branch.", inputSchema: { type: "object", properties: { branch: { type: "string" } }, required: ["branch"] }, annotations: { readOnlyHint: false, destructiveHint: true } },
];
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\\n");
const text = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) }] });
createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  if (m.method === "initialize") return send({ id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "github", version: "1.0.0" } } });
  if (m.method === "ping") return send({ id: m.id, result: {} });
  if (m.method === "tools/list") return send({ id: m.id, result: { tools } });
  if (m.method === "tools/call" && m.params.name === "list_pulls") return send({ id: m.id, result: text([{ number: 7 }, { number: 8 }]) });
  if (m.method === "tools/call" && m.params.name === "delete_branch") {
    appendFileSync("deleted.log", m.params.arguments.branch + "\\n");
    return send({ id: m.id, result: text({ deleted: m.params.arguments.branch }) });
  }
  send({ id: m.id, error: { code: -32601, message: "Method not found: " + m.method } });
});
`;

/** The AI SDK's mock model as an agent: runs `script` with `bash`, once more if it stopped for approval, then answers. */
const MOCK_MODEL = (script: string) => `
import { MockLanguageModelV4 } from "ai/test";
const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
let calls = 0;
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    const results = prompt.flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.type === "tool-result");
    const last = results.at(-1)?.output?.value;
    if (calls === 0 || (last?.tools?.stopped?.reason === "needs_approval" && calls < 2)) {
      calls++;
      return { content: [{ type: "tool-call", toolCallId: "c" + calls, toolName: "bash", input: JSON.stringify({ command: ${JSON.stringify(script)} }) }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
    }
    return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
  },
});
`;

const CONFIG = { mcpServers: { github: { command: "node", args: ["github-server.mjs"] } } };

test("docs/agents.md, docs/sessions.md and the README's CLI work as written against the packed package", { timeout: 30 * 60_000 }, async (t) => {
  const { proj } = makeConsumer(t, (proj) => {
    writeFileSync(path.join(proj, "github-server.mjs"), GITHUB_SERVER);
    writeFileSync(path.join(proj, "toolshell.config.json"), JSON.stringify(CONFIG, null, 2));
  });
  const nm = path.join(proj, "node_modules");
  const jiti = path.join(nm, "jiti", "lib", "jiti-cli.mjs");
  const deleted = () => (existsSync(path.join(proj, "deleted.log")) ? readFileSync(path.join(proj, "deleted.log"), "utf8") : "");
  const env = { ...process.env, TOOLSHELL_API_TOKEN: "docs-example-token-0123456789", TOOLSHELL_CONFIG: undefined };

  await t.test("docs/agents.md: an approved MCP call made through bash runs once in the AI SDK loop", () => {
    npmInstall(["install", "ai@7"], proj);
    copyFileSync(path.join(nm, "toolshell", "examples", "ai-sdk-loop.ts"), path.join(proj, "ai-sdk-loop.ts"));
    const turn = docBlock("docs/agents.md", /## With the AI SDK/, "ts");
    const program = MOCK_MODEL("tools github delete-branch branch=fix-x") + turn + '\nconsole.log("RESULT " + JSON.stringify(conversation.filter((m) => m.role === "tool")));\n';
    writeFileSync(path.join(proj, "agent.ts"), program);
    const r = run(process.execPath, [jiti, "agent.ts"], proj, env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^tools github delete-branch .*fix-x.*destructive/m, "approve() was shown the waiting call");
    assert.equal(deleted(), "fix-x\n", "the approved call ran, once");
    const tool = JSON.parse(/^RESULT (.*)$/m.exec(r.stdout)![1]!) as Array<{ content: Array<{ type: string; output?: { value?: { stdout?: string; exit_code?: number } } }> }>;
    const results = tool.flatMap((m) => m.content).filter((p) => p.type === "tool-result");
    assert.deepEqual(results.at(-1)!.output!.value!.exit_code, 0);
    assert.match(results.at(-1)!.output!.value!.stdout!, /"deleted":"fix-x"/);
  });

  await t.test("docs/sessions.md: a host's session, a step replayed from the store on a second run, and the HTTP API", () => {
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    if (major < 22 || (major === 22 && minor < 13)) {
      // README "Install": on Node 20 the store needs `npm install better-sqlite3@12` beside toolshell.
      // That compiles it (minutes); the checkout's copy, built for this same Node, is the same package.
      for (const pkg of ["better-sqlite3", "bindings", "file-uri-to-path"]) cpSync(path.join(root, "node_modules", pkg), path.join(nm, pkg), { recursive: true });
    }
    const block = docBlock("docs/sessions.md", /## How it fits together/, "ts");
    assert.match(block, /port: 8787/);
    // Port 0 instead of 8787 so the test does not depend on a free well-known port.
    const program = block.replace("port: 8787", "port: 0") + '\nconsole.log("RESULT " + JSON.stringify({ r, checked, api: api.url }));\nawait api.close();\nawait host.close();\n';
    writeFileSync(path.join(proj, "host.ts"), program);
    const once = () => {
      const r = run(process.execPath, [jiti, "host.ts"], proj, env);
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(/^RESULT (.*)$/m.exec(r.stdout)![1]!) as { r: { stdout: string; exit_code: number }; checked: string; api: string };
    };
    const first = once();
    assert.equal(first.r.stdout, "2\n");
    assert.equal(first.r.exit_code, 0);
    assert.match(first.api, /^http:\/\/127\.0\.0\.1:\d+$/);
    const second = once();
    assert.equal(second.checked, first.checked, "the step's recorded result comes back, not a new one");
    assert.deepEqual(second.r, first.r);
    assert.ok(existsSync(path.join(proj, ".toolshell", "state.db")), "the store is .toolshell/state.db beside the config");
  });

  await t.test("README: exec stops before start, approvals lists it, approve allows it, exec runs it once, events show it", (t) => {
    const bin = path.join(nm, ".bin", "toolshell");
    const cli = (...args: string[]) => run(bin, args, proj, env);
    t.after(() => cli("daemon", "stop"));
    const before = deleted();
    const stopped = cli("exec", "tools github delete-branch branch=cli-1");
    assert.equal(stopped.status, 3, stopped.stdout + stopped.stderr); // README: a run that stops for approval exits 3
    assert.match(stopped.stdout + stopped.stderr, /needs_approval/);
    const pending = JSON.parse(cli("approvals", "--json").stdout) as Array<{ id: string; tool: string }>;
    const mine = pending.find((p) => p.tool === "tools github delete-branch");
    assert.ok(mine, JSON.stringify(pending));
    assert.equal(cli("approve", mine.id, "allow").status, 0);
    const ran = cli("exec", "tools github delete-branch branch=cli-1 | jq -r .deleted");
    assert.equal(ran.status, 0, ran.stderr);
    assert.equal(ran.stdout, "cli-1\n");
    assert.equal(deleted(), before + "cli-1\n");
    const events = cli("events", "cli");
    assert.equal(events.status, 0, events.stderr);
    assert.match(events.stdout, /approval .* answered: allow \(tools github delete-branch\)/);
  });
});
