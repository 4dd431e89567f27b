import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(root, "dist/cli/main.js");

function toolshell(args: string[], options: { cwd?: string; input?: string; env?: Record<string, string> } = {}) {
  const env = { ...process.env, ...options.env };
  if (!options.env?.TOOLSHELL_CONFIG) delete env.TOOLSHELL_CONFIG;
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: options.cwd ?? root, input: options.input ?? "", encoding: "utf8", timeout: 60_000, env });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

test("the CLI is built (npm test builds first)", () => {
  assert.ok(existsSync(CLI), "run `npm run build` before the tests");
});

test("exec: stdout and stderr pass through and the exit code is the script's", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const r = toolshell(["exec", "echo out; echo err >&2; exit 7"], { cwd: dir });
  assert.equal(r.stdout, "out\n");
  // An empty folder has no config: the CLI says so once, then the script's own stderr follows.
  assert.equal(r.stderr, `toolshell: no toolshell.config.json or .mcp.json in ${dir}: no MCP servers (--config FILE or TOOLSHELL_CONFIG names one)\nerr\n`);
  assert.equal(r.code, 7);
});

test("run FILE and run - (script on stdin) with the example config; list prints the tools --help listing", () => {
  const config = path.join(root, "examples/toolshell.config.json");
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const file = path.join(dir, "s.sh");
  writeFileSync(file, "tools word-stats text='a b c dd dd' top=1 | jq -c .\n");
  // Its own store: other test files may use the example config at the same time.
  const store = ["--store", path.join(dir, "state.db")];
  const r = toolshell(["run", "--config", config, ...store, file], { cwd: dir });
  assert.equal(r.stdout, '{"words":5,"frequent":[]}\n', r.stderr);
  const fromStdin = toolshell(["run", "--config", config, ...store, "-"], { cwd: dir, input: "tools triage title=outage text='latency spike' | jq -r .priority" });
  assert.equal(fromStdin.stdout, "high\n", fromStdin.stderr);
  const list = toolshell(["list", "--config", config, ...store], { cwd: dir });
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^  everything +\(not loaded\)$/m);
  assert.match(list.stdout, /^  triage +Rate the priority/m);
});

test("without --config the CLI finds toolshell.config.json, then .mcp.json, in the working directory", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  writeFileSync(path.join(dir, ".mcp.json"), JSON.stringify({ mcpServers: { memory: { command: path.join(root, "node_modules/.bin/mcp-server-memory"), env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") }, load: "on_demand" } } }));
  assert.match(toolshell(["list"], { cwd: dir }).stdout, /memory +\(not loaded\)/);
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: {} }));
  assert.doesNotMatch(toolshell(["list"], { cwd: dir }).stdout, /memory/);
});

test("--workspace mounts a real folder as the working directory; nothing outside it is reachable", () => {
  const ws = mkdtempSync(path.join(tmpdir(), "ts-ws-"));
  writeFileSync(path.join(ws, "in.txt"), "from disk\n");
  const r = toolshell(["exec", "--workspace", ws, "cat in.txt; echo written > out.txt; pwd; cat /etc/hostname 2>/dev/null || echo no-host-files; cat ../../etc/passwd 2>/dev/null | head -1 || true"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^from disk\n\/workspace\nno-host-files\n/);
  assert.doesNotMatch(r.stdout, /root:/);
  assert.equal(readFileSync(path.join(ws, "out.txt"), "utf8"), "written\n");
});

test("bad usage: a missing config, script file or workspace is a clear error with exit code 2", () => {
  const a = toolshell(["exec", "--config", "/nope.json", "true"]);
  assert.equal(a.code, 2);
  assert.match(a.stderr, /config file not found: \/nope.json/);
  const b = toolshell(["run", "/no/such/script.sh"]);
  assert.equal(b.code, 2);
  assert.match(b.stderr, /cannot read script \/no\/such\/script.sh: ENOENT/);
  const c = toolshell(["exec", "--workspace", "/no/such/dir", "true"]);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /workspace is not a folder/);
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: {}, callLimt: 3 }));
  const d = toolshell(["list"], { cwd: dir });
  assert.equal(d.code, 2);
  assert.match(d.stderr, /toolshell.config.json: callLimt: unknown key/);
});

test("the demo runs end to end on the three real servers and our own tools", () => {
  // `npm start` is `npm run build && <the demo>`. Rebuilding dist/ here would rewrite files that
  // other test files run at the same time (a changed build gives the CLI's warm host a new
  // fingerprint mid-test), so this runs the demo part of the script on the dist/ `npm test`
  // built; .ci/run runs `npm start` itself, build included.
  const start = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start!;
  const [build, demo] = start.split(" && ");
  assert.equal(build, "npm run build", "npm start builds first, then runs the demo");
  assert.ok(demo, start);
  const r = spawnSync("sh", ["-c", demo], { cwd: root, encoding: "utf8", timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Read 2 notes, 41 words; remembered 2 in memory\./);
  assert.match(r.stdout, /High priority:\n  - Incident 311 \(incident, latency, spike\)\n  - Release 2.4 \(blocked, risk, times out\)/);
});

test("--version; config mistakes: a missing tools folder, a near-miss server key", () => {
  assert.equal(toolshell(["--version"]).stdout.trim(), JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version);
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ tools: "nope" }));
  const a = toolshell(["list"], { cwd: dir });
  assert.equal(a.code, 2);
  assert.match(a.stderr, /toolshell.config.json: tools: no such folder/);
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { x: { command: "node", arg: ["s.js"] } } }));
  const b = toolshell(["list"], { cwd: dir });
  assert.equal(b.code, 2);
  assert.match(b.stderr, /mcpServers\.x\.arg: unknown key; did you mean "args"\?/);
});

test("a workspace that holds the config's folder is refused: scripts cannot touch what the host trusts", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: {} }));
  const r = toolshell(["exec", "--workspace", dir, "echo '{\"mcpServers\":{\"x\":{\"command\":\"sh\"}}}' > toolshell.config.json"], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /the workspace .* holds the config's folder/);
  assert.equal(readFileSync(path.join(dir, "toolshell.config.json"), "utf8"), JSON.stringify({ mcpServers: {} }), "nothing written");
  // Without a config file, the folder the CLI looks in is guarded the same way.
  const bare = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const b = toolshell(["exec", "--workspace", bare, "true"], { cwd: bare });
  assert.equal(b.code, 2);
  // A workspace that would hold the default tools folder once a script creates it is refused too.
  mkdirSync(path.join(dir, "agent"));
  const agent = toolshell(["exec", "--workspace", path.join(dir, "agent"), "mkdir -p tools"], { cwd: dir });
  assert.equal(agent.code, 2);
  assert.match(agent.stderr, /holds the default tools folder/);
  // A workspace beside the config is fine.
  const ws = path.join(dir, "ws");
  mkdirSync(ws);
  assert.equal(toolshell(["exec", "--workspace", ws, "echo ok"], { cwd: dir }).stdout, "ok\n");
});

test("TOOLSHELL_CONFIG names the config when --config is not given; --config wins; a missing one is named", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const cwd = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const file = path.join(dir, "mine.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { memory: { command: path.join(root, "node_modules/.bin/mcp-server-memory"), load: "on_demand" } } }));
  const viaEnv = toolshell(["list"], { cwd, env: { TOOLSHELL_CONFIG: file } });
  assert.equal(viaEnv.code, 0, viaEnv.stderr);
  assert.match(viaEnv.stdout, /memory +\(not loaded\)/);
  writeFileSync(path.join(dir, "other.json"), JSON.stringify({ mcpServers: {} }));
  const flag = toolshell(["list", "--config", path.join(dir, "other.json")], { cwd, env: { TOOLSHELL_CONFIG: file } });
  assert.equal(flag.code, 0, flag.stderr);
  assert.doesNotMatch(flag.stdout, /memory/);
  const missing = toolshell(["list"], { cwd, env: { TOOLSHELL_CONFIG: path.join(dir, "gone.json") } });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /config file not found: .*gone\.json \(named by TOOLSHELL_CONFIG\)/);
});

test("`toolshell mcp` started by a client that owns --config (as the MCP Inspector's CLI is) takes its config from TOOLSHELL_CONFIG", async (t) => {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport, getDefaultEnvironment } = await import("@modelcontextprotocol/client/stdio");
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const cwd = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const file = path.join(dir, "toolshell.config.json");
  writeFileSync(file, JSON.stringify({ mcpServers: { memory: { command: path.join(root, "node_modules/.bin/mcp-server-memory"), env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") }, load: "on_demand" } } }));
  const client = new Client({ name: "inspector-like", version: "1.0.0" });
  // Like `inspector --cli -e TOOLSHELL_CONFIG=FILE toolshell mcp`: the default environment plus the one variable.
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], cwd, env: { ...getDefaultEnvironment(), TOOLSHELL_CONFIG: file }, stderr: "pipe" }));
  t.after(() => client.close());
  const res = await client.callTool({ name: "bash", arguments: { command: "tools --help | grep memory" } });
  const value = JSON.parse((res.content as Array<{ text: string }>)[0].text) as { stdout: string; exit_code: number };
  assert.equal(value.exit_code, 0);
  assert.match(value.stdout, /memory +\(not loaded\)/);
});

test("a Claude Desktop file loads: its other top-level keys are kept with a note on stderr; a near miss of a toolshell key is still an error", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  const file = path.join(dir, "claude_desktop_config.json");
  writeFileSync(file, JSON.stringify({ globalShortcut: "Ctrl+Space", preferences: { menuBarEnabled: false }, mcpServers: { memory: { command: path.join(root, "node_modules/.bin/mcp-server-memory"), load: "on_demand" } } }, null, 2));
  const r = toolshell(["list", "--config", file], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /memory +\(not loaded\)/);
  assert.equal(r.stderr, `toolshell: ${file}: note: not toolshell keys, kept as written (another client's settings): globalShortcut, preferences\n`);
  writeFileSync(file, JSON.stringify({ globalShortcut: "Ctrl+Space", mcpServer: {} }));
  const typo = toolshell(["list", "--config", file], { cwd: dir });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /claude_desktop_config\.json: mcpServer: unknown key; did you mean "mcpServers"\?/);
});

test("a JSON syntax error in the config names the line and the column", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), '{\n  "mcpServers": {},\n  "callLimit": 5\n  "timeoutMs": 1000\n}\n');
  const r = toolshell(["list"], { cwd: dir });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `toolshell: ${path.join(dir, "toolshell.config.json")}: not valid JSON at line 4, column 3: expected "," or a closing bracket\n`);
});

test("a reader that closes the pipe early (| head -1) ends a command quietly, with no stack trace; control: read whole, the output is there", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-epipe-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "toolshell.config.json"), "{}\n");
  const lines = "for i in $(seq 1 20000); do echo line $i; done";
  for (const args of [["daemon", "status"], ["--no-daemon", "exec", lines], ["list"]]) {
    const piped = spawnSync("bash", ["-c", `node ${JSON.stringify(CLI)} ${args.map((a) => `'${a}'`).join(" ")} | head -c 1 >/dev/null; echo "status \${PIPESTATUS[0]}" >&2`], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    assert.doesNotMatch(piped.stderr, /EPIPE|\n\s+at /, `${args.join(" ")}: ${piped.stderr}`);
    assert.match(piped.stderr, /status [01]\n$/, `${args.join(" ")}: ${piped.stderr}`);
  }
  const whole = spawnSync(process.execPath, [CLI, "--no-daemon", "exec", lines], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  assert.equal(whole.stdout.split("\n").length, 20001, "control: read whole, every line is there");
});
