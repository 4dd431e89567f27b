/**
 * A running host acts on the settings the person has now, attacked on the MCP gateway
 * (`toolshell mcp` over stdio and over --http, through the built CLI) and the warm CLI host: an
 * `always` or `block` rule or `mode: protective` written while it runs judges the next call; a
 * tool file that gains `needsApproval` or a destructive hint asks from its next call, a deleted
 * one is gone; a part of the config a running host cannot take in is reported on its stderr.
 * Each form has a control: before the change, the call runs without asking.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { createToolShell } from "../../src/index.js";
import { watchConfigFile } from "../../src/runtime/config-watch.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { toolFile } from "../fixtures/tool-file.js";
import { eventually } from "../fixtures/eventually.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOKEN = "running-host-token-0123456789";
const SAFE = "hints: { readOnly: false, destructive: false, openWorld: false },";
const DESTRUCTIVE = "hints: { readOnly: false, destructive: true, openWorld: false },";
const NEEDS_APPROVAL = "needsApproval: () => true, hints: { readOnly: false, destructive: false, openWorld: false },";

/** A folder with a config and two safe tool files (`mark`, `note`). */
function project(t: TestContext, extra: Record<string, unknown> = {}) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-running-host-"));
  mkdirSync(path.join(dir, "agent/tools"), { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const cfg = path.join(dir, "toolshell.config.json");
  const write = (approval: unknown, more: Record<string, unknown> = {}) => writeFileSync(cfg, JSON.stringify({ server: { tokens: [TOKEN] }, ...extra, ...more, approval }));
  write({ mode: "normal" });
  const tool = (name: string, extraText: string) => writeFileSync(path.join(dir, `agent/tools/${name}.mjs`), toolFile(extraText));
  tool("mark", SAFE);
  tool("note", SAFE);
  return { dir, cfg, write, tool, remove: (name: string) => unlinkSync(path.join(dir, `agent/tools/${name}.mjs`)) };
}

type Bash = (script: string) => Promise<{ stdout: string; stderr: string; exit_code: number; tools?: { stopped?: { reason?: string } } }>;

/** The attack forms, run against a gateway whose client is `bash` and whose stderr is `err()`. */
async function attack(p: ReturnType<typeof project>, bash: Bash, err: () => string, restartPart: { more: Record<string, unknown>; name: string }) {
  const reloads = () => (err().match(/reloaded: /g) ?? []).length;
  const runs = async (tool: string) => (await bash(`tools ${tool}`)).stdout === "marked\n";
  const asks = async (tool: string) => (await bash(`tools ${tool}`)).tools?.stopped?.reason === "needs_approval";
  // Control: both run without asking.
  assert.ok(await runs("mark"), "control: mark runs");
  assert.ok(await runs("note"), "control: note runs");

  let seen = reloads();
  p.write({ mode: "normal", tools: { mark: "always" } });
  await eventually("the reload of an always rule", () => reloads() > seen);
  assert.ok(await asks("mark"), "an always rule written while the gateway runs was ignored");
  assert.ok(await runs("note"), "control: the other tool still runs");

  seen = reloads();
  p.write({ mode: "normal", tools: { "Mark ": "block" } });
  await eventually("the reload of a block rule", () => reloads() > seen);
  const blocked = await bash("tools mark");
  assert.notEqual(blocked.exit_code, 0);
  assert.doesNotMatch(blocked.stdout, /marked/, "a block rule written while the gateway runs was ignored");

  seen = reloads();
  p.write({ mode: "protective" });
  await eventually("the reload of mode protective", () => reloads() > seen);
  assert.ok(await asks("note"), "mode: protective written while the gateway runs was ignored");

  seen = reloads();
  p.write({ mode: "normal" });
  await eventually("the rules taken away", () => reloads() > seen);
  assert.ok(await runs("note"), "control: with the rules gone, note runs again");

  // Tool files: one gains a destructive hint, one needsApproval; then one is deleted.
  p.tool("mark", DESTRUCTIVE);
  await eventually("the destructive hint", async () => !(await runs("mark")));
  assert.ok(await asks("mark"), "a tool file that gained a destructive hint ran without asking");
  p.tool("note", NEEDS_APPROVAL);
  await eventually("needsApproval", async () => !(await runs("note")));
  assert.ok(await asks("note"), "a tool file that gained needsApproval ran without asking");
  p.remove("note");
  await eventually("the deleted tool gone", async () => /unknown_command/.test((await bash("tools note")).stderr));

  // A part the gateway cannot take in while it runs is reported, naming it.
  p.write({ mode: "normal" }, restartPart.more);
  await eventually(`the report that ${restartPart.name} needs a restart`, () => new RegExp(`${restartPart.name} changed but cannot be reloaded`).test(err()));
}

function bashOf(client: Client): Bash {
  return async (script) => {
    const r = (await client.callTool({ name: "bash", arguments: { command: script } })) as CallToolResult;
    return JSON.parse((r.content[0] as { text: string }).text);
  };
}

test("toolshell mcp (stdio): rules, mode and tool files written while it runs judge the next call; a part it cannot reload is reported", async (t) => {
  const p = project(t);
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp", "--config", p.cfg], cwd: p.dir, stderr: "pipe", env: { ...process.env } as Record<string, string> });
  let err = "";
  transport.stderr!.on("data", (d: Buffer) => (err += d));
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  await attack(p, bashOf(client), () => err, { more: { keepVisible: ["mark"] }, name: "keepVisible" });
});

test("toolshell mcp --http: rules, mode and tool files written while it runs judge the next call; a changed token list is reported as needing a restart", async (t) => {
  const p = project(t);
  const child: ChildProcess = spawn(process.execPath, [CLI, "mcp", "--http", "0", "--config", p.cfg], { cwd: p.dir, stdio: ["ignore", "ignore", "pipe"] });
  t.after(async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await gone;
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const m = /serving Streamable HTTP at (http:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", () => reject(new Error(`mcp --http exited: ${err}`)));
  });
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  t.after(() => client.close());
  await attack(p, bashOf(client), () => err, { more: { server: { tokens: ["another-token-0123456789abc"] } }, name: "server" });
});

test("warm CLI host: a tool file that gains needsApproval is asked about from its next call; control: before, it runs warm", async (t) => {
  const p = project(t);
  const sockets = path.join(p.dir, "sockets");
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: p.dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, TOOLSHELL_DAEMON_DIR: sockets } });
  t.after(() => void cli(["daemon", "stop"]));
  for (let i = 0; i < 2; i++) assert.equal(cli(["exec", "tools note"]).stdout, "marked\n", "control: the warm host runs it");
  assert.equal(cli(["daemon", "status"]).status, 0, "a warm host runs");
  p.tool("note", NEEDS_APPROVAL);
  const asked = cli(["exec", "tools note"]);
  assert.doesNotMatch(asked.stdout, /marked/, asked.stderr);
  assert.match(asked.stdout + asked.stderr, /approval/i);
});

test("a once() tool's yes is bound to its definition: its file redefined (a destructive hint) asks again; control: unchanged, it runs without asking", (t) => {
  const p = project(t);
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, "--no-daemon", ...args], { cwd: p.dir, encoding: "utf8", timeout: 60_000 });
  const once = `needsApproval: (await import(${JSON.stringify(path.join(REPO_ROOT, "dist/index.js"))})).once(),`;
  p.tool("pay", `${once} ${SAFE}`);
  const asked = cli(["exec", "tools pay"]);
  assert.equal(asked.status, 3, asked.stderr);
  const requestId = /apr_[0-9a-f]+/.exec(asked.stderr)?.[0];
  assert.ok(requestId, asked.stderr);
  assert.equal(cli(["approve", requestId, "allow"]).status, 0);
  // Control: once said yes to, it runs without asking, again and again.
  for (let i = 0; i < 2; i++) assert.equal(cli(["exec", "tools pay"]).stdout, "marked\n");
  // Its code changed alone (same description, schema, hints): the yes was for the tool as it was.
  writeFileSync(path.join(p.dir, "agent/tools/pay.mjs"), toolFile(`${once} ${SAFE}`).replace('execute: () => "marked"', 'execute: () => "marked, and more"'));
  const code = cli(["exec", "tools pay"]);
  assert.doesNotMatch(code.stdout, /marked/, code.stderr);
  assert.equal(code.status, 3, code.stderr);
  // Redefined: the yes was for the tool as shown.
  p.tool("pay", `${once} ${DESTRUCTIVE}`);
  const again = cli(["exec", "tools pay"]);
  assert.doesNotMatch(again.stdout, /marked/, again.stderr);
  assert.equal(again.status, 3, again.stderr);
  assert.match(again.stderr, /needs a person's approval/);
});

test("library watcher: a changed part that needs a restart is reported, with its name as the file writes it; control: a rules-only change reports none", async (t) => {
  const p = project(t);
  const shell = await createToolShell({ config: p.cfg });
  const parts: string[][] = [];
  const changed: string[][] = [];
  const w = watchConfigFile(shell, p.cfg, { debounceMs: 50, onNotReloaded: (x) => parts.push(x), onReload: (c) => changed.push(c), onError: () => {} });
  t.after(async () => {
    w.close();
    await shell.close();
  });
  const settle = async (ok: () => boolean) => {
    await eventually("the config change seen", ok);
    await w.settled();
  };
  p.write({ mode: "protective" });
  await settle(() => changed.length >= 1);
  assert.deepEqual(parts, [], "a rules change needs no restart");
  assert.deepEqual(w.notReloaded(), []);
  p.write({ mode: "protective" }, { timeoutMs: 5000, tools: "agent/tools", keepVisible: ["mark"], server: { tokens: ["another-token-0123456789abc"] } });
  await settle(() => parts.length >= 1);
  assert.deepEqual(parts.at(-1), ["server", "timeoutMs", "keepVisible"]);
  assert.deepEqual(w.notReloaded(), ["server", "timeoutMs", "keepVisible"]);
});
