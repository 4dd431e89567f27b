/**
 * Who acts for whom, for a stored session: it belongs to the principal that created it. An
 * agent-role API token creates a session with an id the person's own surfaces open by default
 * (`mcp` for `toolshell mcp`, `cli` for the CLI, or a `--session` name the person uses), answers
 * `allow_always` there and leaves a file; the person's surface on the same config and store then
 * refuses that session, so the agent's answer never covers the person's destructive call and the
 * person's events never land where the agent reads them. Controls: the person's own session and
 * the agent's own session keep working. Real API on 127.0.0.1, the built CLI, a real SQLite
 * store. See docs/security.md ("Who acts for whom").
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client, type CallToolResult } from "@modelcontextprotocol/client";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { toolFile } from "../fixtures/tool-file.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const BOT = "bot-agent-token-0123456789abcd";
const DESTRUCTIVE = "hints: { readOnly: false, destructive: true, openWorld: false },";

/** A config with an agent token `bot` and a destructive tool `mark`; the API served on its store. */
async function start(t: TestContext) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-session-owner-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, "agent/tools"), { recursive: true });
  writeFileSync(path.join(dir, "agent/tools/mark.mjs"), toolFile(DESTRUCTIVE));
  const cfg = path.join(dir, "toolshell.config.json");
  const store = path.join(dir, "state.db");
  writeFileSync(cfg, JSON.stringify({ store, server: { tokens: [{ name: "bot", token: BOT, role: "agent" }] } }));
  const host = await openHost({ config: cfg, store });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const bot = apiCaller(api.url, BOT);
  /** The bot makes session `id`, answers `allow_always` to `mark` there and leaves a file. */
  const plant = async (id: string) => {
    assert.equal((await bot("POST", "/v1/sessions", { id })).status, 201, `bot creates ${id}`);
    const asked = await bot("POST", `/v1/sessions/${id}/bash`, { script: "echo planted > /tmp/bot-file; tools mark" });
    assert.equal(asked.json.tools?.stopped?.reason, "needs_approval", JSON.stringify(asked.json));
    const pending = (await bot("GET", `/v1/sessions/${id}/tool-approvals`)).json.pending;
    const answered = await bot("POST", `/v1/sessions/${id}/tool-approvals`, { decisions: [{ request_id: pending[0].id, decision: "allow_always" }] });
    assert.equal(answered.status, 200, JSON.stringify(answered.json));
    assert.equal((await bot("POST", `/v1/sessions/${id}/bash`, { script: "tools mark" })).json.stdout, "marked\n", "control: the agent's own session runs under its answer");
  };
  // Not spawnSync: this process serves the API meanwhile.
  const cli = (args: string[]) =>
    new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, "--config", cfg, "--no-daemon", ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += String(d)));
      child.stderr.on("data", (d) => (stderr += String(d)));
      child.on("error", reject);
      child.on("close", () => resolve({ stdout, stderr }));
    });
  const events = async (id: string) => JSON.stringify((await bot("GET", `/v1/sessions/${id}/events`)).json);
  return { dir, cfg, store, bot, plant, cli, events };
}

test("the CLI refuses a session the agent's token created as `cli` or as a --session name; control: the person's own session asks, the agent's runs", async (t) => {
  const s = await start(t);
  for (const [id, args] of [["cli", []], ["work", ["--session", "work"]]] as const) {
    await s.plant(id);
    const r = await s.cli([...args, "exec", "cat /tmp/bot-file; tools mark"]);
    assert.doesNotMatch(r.stdout, /marked|planted/, `${id}: the person's call ran under the bot's answer: ${r.stdout}`);
    assert.match(r.stdout + r.stderr, /acts for principal \\?"bot/, `${id}: ${r.stderr}`);
    assert.doesNotMatch(await s.events(id), /"by":"[^"]*cli/, `${id}: no event of the person reached the bot's session`);
  }
  // Controls: the person's own session works and asks for the destructive call; the agent's still runs.
  const own = await s.cli(["--session", "mine", "exec", "echo mine"]);
  assert.equal(own.stdout, "mine\n", own.stderr);
  assert.doesNotMatch((await s.cli(["--session", "mine", "exec", "tools mark"])).stdout, /marked/, "control: the person's own session asks");
  assert.equal((await s.bot("POST", "/v1/sessions/work/bash", { script: "tools mark" })).json.stdout, "marked\n");
});

test("`toolshell mcp` over stdio refuses the session `mcp` the agent's token created; control: the agent's session runs and the person's gateway on its own session works", async (t) => {
  const s = await start(t);
  await s.plant("mcp");
  const open = async (args: string[]) => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", s.cfg, ...args], cwd: s.dir, stderr: "pipe", env: { ...process.env } as Record<string, string> });
    let err = "";
    transport.stderr?.on("data", (d) => (err += String(d)));
    const client = new Client({ name: "person", version: "1" });
    t.after(() => client.close());
    try {
      await client.connect(transport);
    } catch {
      return { err: () => err };
    }
    const bash = async (command: string) => JSON.parse((((await client.callTool({ name: "bash", arguments: { command } })) as CallToolResult).content[0] as { text: string }).text);
    return { err: () => err, bash };
  };
  const refused = await open([]);
  if (refused.bash) {
    const r = await refused.bash("cat /tmp/bot-file; tools mark");
    assert.doesNotMatch(r.stdout, /marked|planted/, `the person's call ran under the bot's answer: ${JSON.stringify(r)}`);
    assert.match(r.stderr, /acts for principal \\?"bot/);
  } else {
    assert.match(refused.err(), /acts for principal \\?"bot/);
  }
  const own = await open(["--session", "mcp-person"]);
  assert.ok(own.bash, own.err());
  assert.equal((await own.bash("echo mine")).stdout, "mine\n", "control: the person's own gateway session works");
  assert.equal((await s.bot("POST", "/v1/sessions/mcp/bash", { script: "tools mark" })).json.stdout, "marked\n", "control: the agent's session runs");
});

test("the library refuses a stored session of another principal, and a live one in the same process; control: its own opens", async (t) => {
  const s = await start(t);
  await s.plant("lib");
  // The library's ToolShell, another process's view of the same store.
  const lib = await openHost({ config: s.cfg, store: s.store });
  t.after(() => lib.close());
  const shell = lib.shell;
  const stored = shell.session("lib");
  await assert.rejects(stored.ready, /acts for principal \\?"bot/);
  const r = await stored.bash("cat /tmp/bot-file; tools mark");
  assert.doesNotMatch(r.stdout, /marked|planted/);
  assert.match(r.stderr, /acts for principal \\?"bot/);
  assert.equal((await shell.session("lib", { principal: "bot" }).bash("tools mark")).stdout, "marked\n", "control: opened for its owner, it works");
  assert.throws(() => shell.session("lib"), /acts for principal \\?"bot/, "the live session is refused too");
  // The library's message says what a program does, not a CLI flag.
  assert.throws(() => shell.session("lib"), (err: Error) => /pass the Session object itself/.test(err.message) && !err.message.includes("--session"));
  assert.equal((await shell.session("person").bash("echo mine")).stdout, "mine\n", "control: the person's own session");
});

test("a stored session acts for one agent: opened naming another agent of the same principal it is refused, stored or live; control: its own agent opens it", async (t) => {
  const s = await start(t);
  const first = await openHost({ config: s.cfg, store: s.store });
  t.after(() => first.close());
  const made = first.shell.session("shared", { principal: "ops", agent_id: "alpha" });
  assert.equal((await made.bash("echo alpha > /tmp/alpha-file; echo made")).stdout, "made\n");
  // Another process on the same store, as `toolshell scripts run --agent beta --session shared` opens it.
  const other = await openHost({ config: s.cfg, store: s.store });
  t.after(() => other.close());
  const beta = other.shell.session("shared", { principal: "ops", agent_id: "beta" });
  await assert.rejects(beta.ready, /session shared serves agent "alpha", not "beta"/);
  assert.doesNotMatch((await beta.bash("cat /tmp/alpha-file")).stdout, /alpha/, "beta never reads alpha's files");
  assert.throws(() => first.shell.session("shared", { principal: "ops", agent_id: "beta" }), /serves agent "alpha"/, "the live session is refused too");
  assert.equal((await other.shell.session("shared", { principal: "ops", agent_id: "alpha" }).bash("cat /tmp/alpha-file")).stdout, "alpha\n", "control: its own agent");
});
