/**
 * Sandbox escape: a script must never get the host to run code it wrote. The workspace (the real
 * folder scripts can write) must not hold, or sit inside, anything the host runs or reads as code
 * or configuration (docs/security.md, "The workspace guard"). Each refused form has a control that
 * proves the same server works when it lives outside the workspace.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { test, type TestContext } from "node:test";
import { createToolShell, type ToolShellOptions } from "../../src/index.js";
import { loadConfig } from "../../src/config/index.js";
import { checkWorkspace } from "../../src/runtime/index.js";
import { openHost } from "../../src/server/index.js";
import { NPM_SERVERS, sdkModule } from "../fixtures/mcp/index.js";

/** A temp folder removed after the test. */
function tempDir(t: TestContext, prefix = "ts-escape-"): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes a one-tool stdio MCP server (`whoami` answers `server <marker>`) to `file`. */
function writeServer(file: string, marker: string): string {
  mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(
    file,
    [
      `import { McpServer } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server"))};`,
      `import { StdioServerTransport } from ${JSON.stringify(sdkModule("@modelcontextprotocol/server/stdio"))};`,
      `const server = new McpServer({ name: "probe", version: "1.0.0" });`,
      `server.registerTool("whoami", { description: "Says which file runs", annotations: { readOnlyHint: true } }, () => ({ content: [{ type: "text", text: ${JSON.stringify(`server ${marker}`)} }] }));`,
      `await server.connect(new StdioServerTransport());`,
    ].join("\n"),
  );
  return file;
}

/** createToolShell with a config object, closed after the test. */
async function open(t: TestContext, options: ToolShellOptions) {
  const ts = await createToolShell({ connect: false, ...options });
  t.after(() => ts.close());
  return ts;
}

async function refused(options: ToolShellOptions, message: RegExp): Promise<void> {
  await assert.rejects(createToolShell({ connect: false, ...options }), message);
}

test("an on-demand server whose file is inside the workspace is refused at start; the same server outside works (control)", async (t) => {
  const root = tempDir(t);
  const ws = path.join(root, "ws");
  const inside = writeServer(path.join(ws, "mcp", "server.mjs"), "inside");
  // The attack: a script overwrites the file, then names the server; the host would start it.
  await refused(
    { baseDir: root, workspaceDir: ws, config: { mcpServers: { notes: { command: "node", args: [inside], load: "on_demand" } } } },
    /the workspace .*ws holds a file server "notes" runs \(.*mcp\/server\.mjs\)/,
  );
  // Control: the server lives beside the workspace; a script writing the workspace cannot reach it.
  const outside = writeServer(path.join(root, "servers", "server.mjs"), "outside");
  const ts = await open(t, { baseDir: root, workspaceDir: ws, config: { mcpServers: { notes: { command: "node", args: [outside], load: "on_demand" } }, approval: { mode: "off" } } });
  const r = await ts.session().bash(`echo 'process.exit(9)' > mcp/server.mjs && tools notes whoami`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.equal(r.stdout.trim(), "server outside");
  assert.equal(readFileSync(path.join(ws, "mcp", "server.mjs"), "utf8"), "process.exit(9)\n", "the script wrote the workspace, nothing else");
});

test("relatives: a cwd inside the workspace, an argument relative to a cwd, a PATH folder, NODE_OPTIONS and file:// preloads inside it are refused", async (t) => {
  const root = tempDir(t);
  const ws = path.join(root, "ws");
  writeServer(path.join(ws, "mcp", "server.mjs"), "inside");
  const base = { baseDir: root, workspaceDir: ws };
  // The working folder inside the workspace (the script path is relative to it).
  await refused({ ...base, config: { mcpServers: { a: { command: "node", args: ["server.mjs"], cwd: path.join(ws, "mcp") } } } }, /server "a"/);
  await refused({ ...base, config: { mcpServers: { a: { command: "node", args: ["mcp/server.mjs"], cwd: ws } } } }, /holds the working folder of server "a"/);
  // An argument relative to a working folder outside that resolves inside.
  await refused({ ...base, config: { mcpServers: { b: { command: "node", args: ["ws/mcp/server.mjs"], cwd: root } } } }, /holds a file server "b" runs \(.*ws\/mcp\/server\.mjs\)/);
  // A relative command resolved against the config's folder.
  await refused({ ...base, config: { mcpServers: { c: { command: "./ws/mcp/run.sh" } } } }, /holds the command server "c" runs/);
  // A bare command looked up on a PATH that has a folder of the workspace.
  await refused({ ...base, config: { mcpServers: { d: { command: "probe-mcp", env: { PATH: `${path.join(ws, "bin")}:/usr/bin:/bin` } } } } }, /holds a folder on the PATH server "d" starts with/);
  // Code preloaded through the environment or an interpreter option.
  const outside = writeServer(path.join(root, "srv", "server.mjs"), "outside");
  await refused({ ...base, config: { mcpServers: { e: { command: "node", args: [outside], env: { NODE_OPTIONS: `--require ${path.join(ws, "hook.cjs")}` } } } } }, /a file NODE_OPTIONS loads for server "e"/);
  await refused({ ...base, config: { mcpServers: { f: { command: "node", args: ["--import", pathToFileURL(path.join(ws, "hook.mjs")).href, outside] } } } }, /holds a file server "f" runs/);
  await refused({ ...base, config: { mcpServers: { g: { command: "python3", args: ["-m", "probe"], cwd: path.join(root, "py"), env: { PYTHONPATH: ws } } } } }, /a folder PYTHONPATH names for server "g"/);
  // Control: the same entries pointing outside the workspace are accepted.
  await open(t, { ...base, config: { mcpServers: { b: { command: "node", args: ["srv/server.mjs"], cwd: root }, e: { command: "node", args: [outside], env: { NODE_OPTIONS: "--max-old-space-size=256" } } } } });
});

test("a workspace inside a server's folder, or inside node_modules it resolves from, is refused", async (t) => {
  const root = tempDir(t);
  const server = writeServer(path.join(root, "srv", "server.mjs"), "srv");
  const ws = path.join(root, "srv", "data");
  mkdirSync(ws);
  await refused({ baseDir: root, workspaceDir: ws, config: { mcpServers: { h: { command: "node", args: [server] } } } }, /lies inside the folder of a file server "h" runs \(.*srv\)/);
  const nm = path.join(root, "node_modules", "probe");
  mkdirSync(nm, { recursive: true });
  await refused({ baseDir: root, workspaceDir: nm, config: { mcpServers: { i: { command: "npx", args: ["-y", "probe-mcp"], cwd: root } } } }, /lies inside a node_modules folder server "i" resolves packages from/);
  // Control: a data folder beside the server is fine.
  const data = path.join(root, "data");
  mkdirSync(data);
  await open(t, { baseDir: root, workspaceDir: data, config: { mcpServers: { h: { command: "node", args: [server] } } } });
});

test("npx with its working folder inside the workspace is refused; beside the workspace it is accepted (control)", async (t) => {
  const root = tempDir(t);
  const ws = path.join(root, "ws");
  mkdirSync(ws);
  await refused({ baseDir: root, workspaceDir: ws, config: { mcpServers: { j: { command: "npx", args: ["-y", "probe-mcp"], cwd: ws, load: "on_demand" } } } }, /holds the working folder of server "j"/);
  await open(t, { baseDir: root, workspaceDir: ws, config: { mcpServers: { j: { command: "npx", args: ["-y", "probe-mcp"], load: "on_demand" } } } });
});

test("a launcher that loads code from its working folder (python -m) refuses a workspace inside it", async (t) => {
  const root = tempDir(t);
  const ws = path.join(root, "ws");
  mkdirSync(ws);
  // `python -m server` puts the working folder first on the import path: ws/ would shadow any module.
  await refused({ baseDir: root, workspaceDir: ws, config: { mcpServers: { k: { command: "python3", args: ["-m", "server"], cwd: root } } } }, /lies inside the working folder of server "k"/);
  await open(t, { baseDir: root, workspaceDir: ws, config: { mcpServers: { k: { command: "python3", args: ["-m", "server"], cwd: path.join(root, "srv") } } } });
});

test("a filesystem server rooted at the workspace is the server's data, not code: accepted and works (control)", async (t) => {
  const root = tempDir(t);
  const ws = path.join(root, "ws");
  mkdirSync(ws);
  writeFileSync(path.join(ws, "note.txt"), "hello");
  const ts = await open(t, { baseDir: root, workspaceDir: ws, config: { mcpServers: { fs: { command: NPM_SERVERS.filesystem, args: [ws], load: "on_demand" } }, approval: { mode: "off" } } });
  const r = await ts.session().bash(`tools fs read_text_file --path ${JSON.stringify(path.join(ws, "note.txt"))}`);
  assert.equal(r.exit_code, 0, r.stderr);
  assert.match(r.stdout, /hello/);
});

test("checkWorkspace runs again on a changed config (a reload) and through openHost", async (t) => {
  const root = tempDir(t);
  const ws = path.join(root, "ws");
  mkdirSync(ws);
  const before = loadConfig({ baseDir: root, config: { mcpServers: {} } });
  checkWorkspace(ws, before, {});
  const after = loadConfig({ baseDir: root, config: { mcpServers: { l: { command: "node", args: [path.join(ws, "s.mjs")], load: "on_demand" } } } });
  assert.throws(() => checkWorkspace(ws, after, {}), /server "l"/);
  await assert.rejects(openHost({ baseDir: root, workspaceDir: ws, store: ":memory:", config: { mcpServers: { l: { command: "node", args: [path.join(ws, "s.mjs")] } } } }), /server "l"/);
  // A disabled server is never started: it does not stand in the way.
  const host = await openHost({ baseDir: root, workspaceDir: ws, store: ":memory:", connect: false, config: { mcpServers: { l: { command: "node", args: [path.join(ws, "s.mjs")], disabled: true } } } });
  t.after(() => host.close());
});

test("a sign-in URL from an authorization server's metadata never reaches a command parser: http(s) only, no cmd on Windows (control: an https URL opens)", async () => {
  const { browserCommand } = await import("../../src/cli/auth.js");
  // The SDK builds the URL from the server's authorization_endpoint and adds `&`-joined parameters.
  const evil = "https://as.example/authorize?x=1&calc.exe&response_type=code&client_id=toolshell";
  const win = browserCommand(evil, "win32", {});
  assert.ok(win, "an https URL is opened");
  assert.notEqual(win![0].toLowerCase(), "cmd", `cmd /c start would run "calc.exe": ${JSON.stringify(win)}`);
  assert.ok(!win!.some((a) => /^\/c$/i.test(a)));
  assert.equal(win!.at(-1), evil);
  for (const bad of ["file:///System/Applications/Calculator.app?response_type=code", "smb://as.example/share/x.exe", "ms-msdt:/id PCWDiagnostic", "not a url"]) {
    for (const platform of ["darwin", "linux", "win32"] as const) assert.equal(browserCommand(bad, platform, { DISPLAY: ":0" }), undefined, `${platform} opened ${bad}`);
  }
  // Controls.
  assert.deepEqual(browserCommand(evil, "darwin", {}), ["open", evil]);
  assert.deepEqual(browserCommand(evil, "linux", { DISPLAY: ":0" }), ["xdg-open", evil]);
  assert.equal(browserCommand(evil, "linux", {}), undefined);
});
