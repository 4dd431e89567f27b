import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { createToolShell, type ToolShell } from "../../src/index.js";
import type { McpServerSource } from "../../src/mcp/index.js";
import { KIT_SERVER, NPM_SERVERS, NUMBERED_TOOLS, RAW_SERVER, RAW_SPECIAL_TOOLS, startStatusServer, tsxCommand, type RunningServer } from "../fixtures/mcp/index.js";

let ts: ToolShell;
let unauthorized: RunningServer;
let dir: string;

before(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "toolshell-mcp-"));
  unauthorized = await startStatusServer(401);
  ts = await createToolShell({
    baseDir: dir,
    config: {
      mcpServers: {
        filesystem: { command: NPM_SERVERS.filesystem, args: [dir] },
        memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "memory.jsonl") } },
        everything: { command: NPM_SERVERS.everything, args: ["stdio"], load: "on_demand" },
        kit: { ...tsxCommand(KIT_SERVER), callTimeoutMs: 500 },
        locked: { url: unauthorized.url, load: "on_demand" },
        raw: { ...tsxCommand(RAW_SERVER), load: "on_demand" },
      },
      logDir: path.join(dir, "logs"),
      // These tests are about the tools command over real servers; approvals have their own suite.
      approval: { mode: "off" },
    },
  });
});

after(async () => {
  await ts.close();
  await unauthorized.close();
});

const source = (name: string) => ts.sources.find((s) => s.name === name) as McpServerSource;
const errorOf = (stderr: string) => JSON.parse(stderr.trim().split("\n").pop()!).error;

test("tools --help lists servers with counts and on-demand ones as (not loaded), spawning nothing", async () => {
  const r = await ts.session().bash("tools --help");
  assert.match(r.stdout, /^  filesystem +\d+ tools$/m);
  assert.match(r.stdout, /^  memory +11 tools$/m);
  assert.match(r.stdout, /^  everything +\(not loaded\)$/m);
  assert.equal(source("everything").pid(), undefined, "the on-demand server is not spawned by help");
});

test("the first command naming an on-demand server loads it inside the same shell call", async () => {
  const s = ts.session();
  assert.equal(source("everything").pid(), undefined);
  const r = await s.bash(`tools everything echo message=hello && tools --help | grep everything`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.match(r.stdout, /^Echo: hello\n  everything +\d+ tools\n$/);
  assert.equal(typeof source("everything").pid(), "number", "now spawned");
});

test("tools search loads an on-demand server it names and ranks name hits first", async () => {
  const r = await ts.session().bash(`tools search everything sum`);
  const lines = r.stdout.trim().split("\n");
  assert.match(lines[0], /^tools everything get-sum a=<number> b=<number>  # /);
  // A word naming the server narrows to it: its tools that match the other words, not all of them.
  const echo = (await ts.session().bash(`tools search everything echo`)).stdout.trim().split("\n");
  assert.match(echo[0], /^tools everything echo /, echo.join("\n"));
  assert.ok(echo.every((l) => /echo/i.test(l)), `only tools matching "echo" are listed:\n${echo.join("\n")}`);
  const all = (await ts.session().bash(`tools search everything`)).stdout.trim().split("\n");
  assert.ok(all.length > 5, `a server's name alone lists its tools:\n${all.join("\n")}`);
  const byDesc = await ts.session().bash(`tools search knowledge graph`);
  assert.match(byDesc.stdout, /tools memory /);
});

test("chaining three servers with jq in one script", async () => {
  const s = ts.session();
  const r = await s.bash(`
root=$(tools filesystem list-allowed-directories | jq -r .content | tail -n 1)
tools filesystem write-file path="$root/a.txt" content="alpha beta gamma" >/dev/null
words=$(tools filesystem read-text-file path="$root/a.txt" | jq -r .content | wc -w)
jq -n --argjson w "$words" '{entities:[{name:"a.txt", entityType:"file", observations:["words: \\($w)"]}]}' | tools memory create-entities >/dev/null
tools everything get-sum a="$words" b=1
tools memory open-nodes names='["a.txt"]' | jq -r '.entities[0].observations[0]'
`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout, "The sum of 3 and 1 is 4.\nwords: 3\n");
  assert.match(readFileSync(path.join(dir, "memory.jsonl"), "utf8"), /"name":"a.txt"/);
});

test("images are written under tool-images/ and stderr names each file", async () => {
  const s = ts.session();
  const r = await s.bash(`tools everything get-tiny-image > out.txt; ls tool-images`);
  const m = /tools: image saved to (tool-images\/get-tiny-image-[0-9a-f]{8}\.png) \(image\/png, (\d+) bytes\)/.exec(r.stderr);
  assert.ok(m, r.stderr);
  assert.match(r.stdout, /get-tiny-image-[0-9a-f]{8}\.png/);
  const bytes = await s.engine.fs.readFileBuffer(`/workspace/${m[1]}`);
  assert.equal(bytes.length, Number(m[2]));
  assert.deepEqual([...bytes.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");
});

test("error codes from real servers: tool_error, unavailable (retryable), connection_required, unknown_command, invalid_input", async () => {
  const s = ts.session();
  const fail = errorOf((await s.bash(`tools kit fail`)).stderr);
  assert.deepEqual(fail, { code: "tool_error", message: fail.message, retryable: false });
  assert.match(fail.message, /it broke: disk full/);
  const slow = errorOf((await s.bash(`tools kit slow ms=5000`)).stderr);
  assert.equal(slow.code, "unavailable");
  assert.equal(slow.retryable, true);
  const locked = errorOf((await s.bash(`tools locked --help`)).stderr);
  assert.equal(locked.code, "connection_required");
  assert.match(locked.message, /locked/);
  const unknownTool = errorOf((await s.bash(`tools memory read-grap`)).stderr);
  assert.equal(unknownTool.code, "unknown_command");
  assert.match(unknownTool.message, /closest: tools memory read-graph/);
  const unknownServer = errorOf((await s.bash(`tools memroy read-graph`)).stderr);
  assert.match(unknownServer.message, /closest: tools memory/);
  const bare = errorOf((await s.bash(`tools read-graph`)).stderr);
  assert.match(bare.message, /tools memory read-graph/, "a server's tool named without its server points at the grouped command");
  const invalid = errorOf((await s.bash(`tools everything get-sum a=1`)).stderr);
  assert.equal(invalid.code, "invalid_input");
  assert.match(invalid.message, /b/);
});

test("server stderr goes to its log file, never into the script's output", async () => {
  const r = await ts.session().bash(`tools kit say-stderr line=secret-log-line`);
  assert.equal(r.stderr.includes("secret-log-line"), false);
  // The server's stderr reaches the log asynchronously: wait for it (bounded).
  let log = "";
  for (let i = 0; i < 100 && !/secret-log-line/.test(log); i++) {
    await new Promise((res) => setTimeout(res, 50));
    log = readFileSync(path.join(dir, "logs", "kit.log"), "utf8");
  }
  assert.match(log, /secret-log-line/);
});

test("help stays readable for a server with 300 tools paged by nextCursor", async () => {
  const r = await ts.session().bash(`tools raw --help`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^raw: ${NUMBERED_TOOLS + RAW_SPECIAL_TOOLS.length} tools\\.`));
  const described = r.stdout.split("\n").filter((l) => /^  [^\s…]/.test(l));
  assert.equal(described.length, 60, "sixty tools with a description, the rest by name");
  assert.match(r.stdout, new RegExp(`… ${NUMBERED_TOOLS + RAW_SPECIAL_TOOLS.length - 60} more \\(tools search <words> finds by description\\):`));
  assert.match(r.stdout, /tool-300/, "every tool is still named");
  assert.ok(r.stdout.length < 12_000, `bounded: ${r.stdout.length} characters`);
  const one = await ts.session().bash(`tools raw tool-299`);
  assert.match(one.stdout, /tool_299/);
});
