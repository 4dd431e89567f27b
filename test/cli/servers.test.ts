/**
 * `toolshell servers …` and a running host whose servers change: the built CLI in its own
 * process, a real `toolshell serve` on a free port of 127.0.0.1, a real `toolshell mcp` over
 * stdio, real MCP servers (memory from npm over stdio, the kit fixture, an HTTP fixture).
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { KIT_SERVER, NPM_SERVERS, REPO_ROOT, startStreamableHttpServer, tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(root, "dist/cli/main.js");
const TOKEN = "servers-test-token-0123456789";

function project(t: { after(fn: () => void): void }, text: string): { dir: string; file: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-servers-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(file, text);
  return { dir, file };
}

/** Runs the CLI without blocking this process (an in-process fixture server must keep answering). */
function toolshell(cwd: string, args: string[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => resolve({ stdout, stderr, code }));
  });
}

/** Starts `toolshell serve --port 0` in `cwd`; resolves with its URL once it listens. */
async function serve(t: { after(fn: () => Promise<void>): void }, cwd: string): Promise<{ url: string; bash(script: string): Promise<{ stdout: string; stderr: string; exit_code: number }>; call(method: string, p: string, body?: unknown): Promise<{ status: number; json: any }> }> {
  const child: ChildProcess = spawn(process.execPath, [CLI, "serve", "--port", "0", "--no-triggers"], { cwd, stdio: ["ignore", "ignore", "pipe"] });
  t.after(async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    // Cleanup only: a serve that has not ended after a while is killed (its exit is asserted elsewhere).
    const late = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await gone;
    clearTimeout(late);
  });
  let err = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (d: Buffer) => {
      err += d;
      const m = /serving (http:\/\/\S+) /.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", () => reject(new Error(`serve exited: ${err}`)));
  });
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(url + p, { method, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined };
  };
  assert.equal((await call("POST", "/v1/sessions", { id: "s1" })).status, 201);
  return { url, call, bash: async (script) => (await call("POST", "/v1/sessions/s1/bash", { script })).json };
}

/** Asks again (a bounded number of times) until `ok` holds for the answer; returns the last answer. */
async function until<T>(ask: () => Promise<T>, ok: (x: T) => boolean): Promise<T> {
  let x = await ask();
  for (let i = 0; i < 300 && !ok(x); i++) {
    await new Promise((r) => setTimeout(r, 50));
    x = await ask();
  }
  return x;
}

test("no host running: servers add, update and remove edit the config file in place; bad input exits 1 and leaves the file byte for byte", async (t) => {
  const text = '{\n    "approval": { "mode": "off" },\n    "mcpServers": {\n        "a": { "command": "/bin/true" }\n    }\n}\n';
  const { dir, file } = project(t, text);
  const list = await toolshell(dir, ["servers", "list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /no toolshell serve or warm host of it runs/);
  assert.match(list.stdout, /^NAME +STATE +TOOLS +TRANSPORT +LOAD +NOTE$/m);
  assert.match(list.stdout, /^a +configured +- +stdio +eager$/m);

  const added = await toolshell(dir, ["servers", "add", "mem", "--env", "MEMORY_FILE_PATH=m.jsonl", "--load", "on_demand", "--", NPM_SERVERS.memory, "--flag"]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /^Added server mem \(stdio, on-demand\) in .*toolshell\.config\.json; no toolshell serve of this config runs/);
  const after = readFileSync(file, "utf8");
  assert.ok(after.startsWith('{\n    "approval": { "mode": "off" },\n    "mcpServers": {\n        "a": { "command": "/bin/true" },\n        "mem": {\n            "command": '), after);
  assert.deepEqual(JSON.parse(after).mcpServers.mem, { command: NPM_SERVERS.memory, args: ["--flag"], env: { MEMORY_FILE_PATH: "m.jsonl" }, load: "on_demand" });

  // Bad input: a clear error, exit 1, the file as it was.
  const bad: Array<[string[], RegExp]> = [
    [["servers", "add", "web", "--url", "ftp://x"], /mcpServers\.web\.url: must be http:\/\/ or https:\/\//],
    [["servers", "add", "help", "--", "x"], /server name "help" is reserved/],
    [["servers", "add", "bad name", "--", "x"], /a server name must be 1-64 letters/],
    [["servers", "add", "s".repeat(300), "--", "x"], /a server name must be 1-64 letters.*\(this one has 300\)/],
    [["servers", "add", "mem", "--", "x"], /server mem already exists .*use toolshell servers update/],
    [["servers", "add", "empty"], /give the server's command/],
    [["servers", "add", "e", "--env", "NOEQUALS", "--", "x"], /--env takes NAME=VALUE/],
    [["servers", "add", "j", "--entry", "{nope"], /--entry is not JSON/],
    [["servers", "update", "mem", "--load", "sometimes"], /"sometimes" is not "eager" or "on_demand"/],
    [["servers", "remove", "nope"], /no server named nope in .*; a server added through the API or console lives in the store: remove it with a toolshell serve of this config running/],
  ];
  for (const [args, message] of bad) {
    const r = await toolshell(dir, args);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(readFileSync(file, "utf8"), after, `${args.join(" ")} wrote nothing`);
  }
  const asJson = await toolshell(dir, ["servers", "remove", "nope", "--json"]);
  assert.deepEqual(JSON.parse(asJson.stderr).error.code, "not_found");

  const updated = await toolshell(dir, ["servers", "update", "mem", "--no-trust", "--json"]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.equal(JSON.parse(updated.stdout).action, "update");
  assert.equal(JSON.parse(readFileSync(file, "utf8")).mcpServers.mem.trust, false);
  const listed = JSON.parse((await toolshell(dir, ["servers", "list", "--json"])).stdout);
  assert.equal(listed.host, null);
  assert.deepEqual(listed.servers.map((s: { name: string; load: string; trust?: boolean }) => [s.name, s.load, s.trust]), [["a", "eager", undefined], ["mem", "on_demand", false]]);

  const removed = await toolshell(dir, ["servers", "remove", "a"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers), ["mem"]);
  assert.ok(readFileSync(file, "utf8").startsWith('{\n    "approval": { "mode": "off" },\n'), "the rest kept as written");
});

test("servers add with a path typed relative to the current folder writes it relative to the config's folder, and the server runs; control: an absolute path and a bare command stay as typed", async (t) => {
  const { dir, file } = project(t, '{ "mcpServers": {} }\n');
  const conf = path.join(dir, "conf");
  mkdirSync(conf);
  const moved = path.join(conf, "toolshell.config.json");
  renameSync(file, moved);
  // From `dir`, the memory server's entry file by a path relative to here (node_modules is linked in).
  symlinkSync(path.join(REPO_ROOT, "node_modules"), path.join(dir, "node_modules"));
  const rel = "node_modules/@modelcontextprotocol/server-memory/dist/index.js";
  const added = await toolshell(dir, ["--config", moved, "servers", "add", "mem", "--env", `MEMORY_FILE_PATH=${path.join(dir, "m.jsonl")}`, "--", "node", rel]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stderr, new RegExp(`${rel} is written as \\.\\./${rel}`));
  const entry = JSON.parse(readFileSync(moved, "utf8")).mcpServers.mem;
  assert.deepEqual([entry.command, entry.args], ["node", [`../${rel}`]]);
  const ran = await toolshell(dir, ["--config", moved, "--no-daemon", "exec", "tools mem read-graph | jq -c .entities"]);
  assert.equal(ran.stdout, "[]\n", ran.stderr);
  const abs = await toolshell(dir, ["--config", moved, "servers", "add", "mem2", "--", "node", path.join(dir, rel)]);
  assert.equal(abs.code, 0, abs.stderr);
  assert.deepEqual(JSON.parse(readFileSync(moved, "utf8")).mcpServers.mem2.args, [path.join(dir, rel)]);
});

test("a real toolshell serve whose config file is edited: the next shell call sees the new server; renamed away, the old name answers unknown_command with the closest", async (t) => {
  const memory = { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: "m.jsonl" } };
  const config = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers, approval: { mode: "off" }, server: { tokens: [TOKEN] } }, null, 2);
  const { dir, file } = project(t, config({}));
  const host = await serve(t, dir);
  const first = await host.bash("tools --help");
  assert.equal(first.exit_code, 0, first.stderr);
  assert.doesNotMatch(first.stdout, /memory/);

  writeFileSync(file, config({ memory }));
  const seen = await until(() => host.bash("tools memory --help"), (r) => r.exit_code === 0);
  assert.equal(seen.exit_code, 0, seen.stderr);
  assert.match(seen.stdout, /read-graph/);
  assert.equal((await host.bash("tools memory read_graph")).exit_code, 0);

  // Renamed: the next shell calls see mem, and the old name points at it.
  writeFileSync(file, config({ mem: memory }));
  const renamed = await until(() => host.bash("tools mem --help"), (r) => r.exit_code === 0);
  assert.equal(renamed.exit_code, 0, renamed.stderr);
  const gone = await host.bash("tools memory --help");
  assert.equal(gone.exit_code, 1);
  const error = JSON.parse(gone.stderr.trim().split("\n").pop()!).error;
  assert.equal(error.code, "unknown_command");
  assert.match(error.message, /no command "memory"; closest: tools mem/);
});

test("toolshell servers against a running serve: add (stdio and HTTP), list, update and remove reach it at once and the file; what it refuses is not written", async (t) => {
  const http = await startStreamableHttpServer();
  t.after(() => http.close());
  // An agent's token first: the CLI changes servers with the operator's (a change needs one).
  const tokens = [{ name: "bot", token: "agent-token-0123456789abcdef", role: "agent" }, { name: "ops", token: TOKEN, role: "operator" }];
  const { dir, file } = project(t, JSON.stringify({ mcpServers: {}, approval: { mode: "off" }, server: { tokens } }, null, 2));
  const host = await serve(t, dir);
  const kit = tsxCommand(KIT_SERVER);

  const added = await toolshell(dir, ["servers", "add", "kit", "--", kit.command, ...kit.args]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, new RegExp(`^Added server kit \\(stdio, eager\\) in .*; the toolshell serve at ${host.url} has it: loaded, \\d+ tools\\.\\n$`));
  assert.ok(JSON.parse(readFileSync(file, "utf8")).mcpServers.kit, "written to the file");
  const annotated = await host.bash("tools kit annotated");
  assert.equal(annotated.exit_code, 0, annotated.stderr);

  const web = await toolshell(dir, ["servers", "add", "web", "--url", http.url, "--json"]);
  assert.equal(web.code, 0, web.stderr);
  const webOut = JSON.parse(web.stdout);
  assert.equal(webOut.host, host.url);
  assert.equal(webOut.server.state, "loaded");
  assert.equal(webOut.server.type, "http");

  // Something only the running host knows: a server added through its API alone.
  assert.equal((await host.call("POST", "/v1/servers", { name: "apionly", entry: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: "a.jsonl" } } })).status, 201);
  const before = readFileSync(file, "utf8");
  const clash = await toolshell(dir, ["servers", "add", "apionly", "--", "x"]);
  assert.equal(clash.code, 1);
  assert.match(clash.stderr, /server apionly already exists in the toolshell serve at/);
  assert.equal(readFileSync(file, "utf8"), before);

  const list = await toolshell(dir, ["servers", "list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`as the toolshell serve at ${host.url} \\(pid \\d+\\) has them`));
  assert.match(list.stdout, /^kit +loaded +\d+ +stdio +eager/m);
  assert.match(list.stdout, /^web +loaded +\d+ +http +eager/m);
  assert.match(list.stdout, /^apionly +loaded +\d+ +stdio +eager +host only \(added by API or console\)$/m);
  const removed = await toolshell(dir, ["servers", "remove", "apionly"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /Removed server apionly \(it was not in .*\); the toolshell serve at .* ended it\./);
  assert.equal(readFileSync(file, "utf8"), before, "nothing to write");

  const lazy = await toolshell(dir, ["servers", "update", "kit", "--load", "on_demand", "--json"]);
  assert.equal(lazy.code, 0, lazy.stderr);
  assert.equal(JSON.parse(lazy.stdout).server.load, "on_demand");
  assert.equal(JSON.parse(readFileSync(file, "utf8")).mcpServers.kit.load, "on_demand");
  assert.match((await host.bash("tools --help")).stdout, /kit +\(not loaded\)/);

  const web2 = await toolshell(dir, ["servers", "remove", "web"]);
  assert.equal(web2.code, 0, web2.stderr);
  assert.deepEqual(Object.keys(JSON.parse(readFileSync(file, "utf8")).mcpServers), ["kit"]);
  const after = await host.call("GET", "/v1/servers");
  assert.deepEqual(after.json.servers.map((s: { name: string }) => s.name), ["kit"]);
  assert.match((await host.bash("tools web --help")).stderr, /"code":"unknown_command"/);
});

test("toolshell mcp over stdio follows servers add and remove (its config file changes): tools/list_changed, then the bash tool sees the server", async (t) => {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/client/stdio");
  const { dir } = project(t, JSON.stringify({ mcpServers: {}, approval: { mode: "off" } }, null, 2));
  const client = new Client({ name: "servers-cli-test", version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler("notifications/tools/list_changed", async () => {
    changes++;
  });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], cwd: dir, env: getDefaultEnvironment(), stderr: "pipe" }));
  t.after(() => client.close());
  const bash = async (command: string) => JSON.parse(((await client.callTool({ name: "bash", arguments: { command } })).content as Array<{ text: string }>)[0].text) as { stdout: string; stderr: string; exit_code: number };

  assert.doesNotMatch((await client.listTools()).tools.find((x) => x.name === "bash")!.description ?? "", /memory/);
  const added = await toolshell(dir, ["servers", "add", "memory", "--env", "MEMORY_FILE_PATH=m.jsonl", "--", NPM_SERVERS.memory]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /no toolshell serve of this config runs: hosts that watch the file/);
  await until(async () => changes, (n) => n >= 1);
  assert.equal(changes, 1, "one tools/list_changed");
  const seen = await bash("tools memory read_graph");
  assert.equal(seen.exit_code, 0, seen.stderr);

  assert.equal((await toolshell(dir, ["servers", "remove", "memory"])).code, 0);
  const gone = await until(() => bash("tools memory read_graph"), (r) => r.exit_code !== 0);
  assert.match(gone.stderr, /"code":"unknown_command"/);
  assert.ok(changes >= 2, "tools/list_changed for the removal too");
});
