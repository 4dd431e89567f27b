/**
 * Importing other clients' servers (paths per platform, the files' formats, leaving toolshell's
 * own gateway out) and the CLI around it: `toolshell mcp --import … --write`, `toolshell list
 * --tokens`, and `toolshell mcp --http 0` serving a real client.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { clientConfigFiles, importClientServers, isToolshellGateway, mergeImported } from "../../src/gateway/index.js";
import { NPM_SERVERS, tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(root, "src/cli/main.ts");

test("config paths per platform and client", () => {
  const home = "/h";
  const cwd = "/p";
  const files = (client: string, platform: NodeJS.Platform, env: Record<string, string> = {}) => clientConfigFiles(client, { platform, home, cwd, env }).map((f) => f.file);
  assert.deepEqual(files("claude-desktop", "darwin"), ["/h/Library/Application Support/Claude/claude_desktop_config.json"]);
  assert.deepEqual(files("claude-desktop", "linux"), ["/h/.config/Claude/claude_desktop_config.json"]);
  assert.deepEqual(files("claude-desktop", "win32", { APPDATA: "/appdata" }), [path.join("/appdata", "Claude", "claude_desktop_config.json")]);
  assert.deepEqual(files("cursor", "linux"), ["/h/.cursor/mcp.json", "/p/.cursor/mcp.json"]);
  assert.deepEqual(files("claude-code", "darwin"), ["/h/.claude.json", "/p/.mcp.json"]);
  assert.deepEqual(files("vscode", "darwin"), ["/h/Library/Application Support/Code/User/mcp.json", "/p/.vscode/mcp.json"]);
  assert.deepEqual(files("vscode", "linux", { XDG_CONFIG_HOME: "/x" }), ["/x/Code/User/mcp.json", "/p/.vscode/mcp.json"]);
  assert.throws(() => clientConfigFiles("emacs"), /unknown client "emacs"; known: claude-desktop, cursor, claude-code, vscode/);
});

function fakeHome(): { home: string; cwd: string } {
  const base = mkdtempSync(path.join(tmpdir(), "ts-import-"));
  const home = path.join(base, "home");
  const cwd = path.join(base, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { home, cwd };
}

test("each client's files are read: user scope then project scope; Claude Code's per-project servers; toolshell itself left out", () => {
  const { home, cwd } = fakeHome();
  mkdirSync(path.join(home, ".cursor"), { recursive: true });
  mkdirSync(path.join(cwd, ".cursor"), { recursive: true });
  writeFileSync(path.join(home, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { memory: { command: "mem", args: ["a"] }, toolshell: { command: "npx", args: ["toolshell", "mcp"] } } }));
  writeFileSync(path.join(cwd, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { memory: { command: "mem", args: ["project"] }, web: { url: "http://127.0.0.1:9/mcp" } } }));
  const cursor = importClientServers("cursor", { home, cwd, platform: "linux" });
  assert.deepEqual(Object.keys(cursor.servers).sort(), ["memory", "web"]);
  assert.deepEqual(cursor.servers.memory.args, ["project"], "the project's entry wins");
  assert.ok(cursor.notes.some((n) => /toolshell: left out/.test(n)));

  writeFileSync(path.join(home, ".claude.json"), JSON.stringify({ mcpServers: { a: { command: "a" } }, projects: { [cwd]: { mcpServers: { b: { command: "b" } } }, "/elsewhere": { mcpServers: { c: { command: "c" } } } } }));
  writeFileSync(path.join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { d: { command: "d" } } }));
  assert.deepEqual(Object.keys(importClientServers("claude-code", { home, cwd, platform: "linux" }).servers).sort(), ["a", "b", "d"]);

  mkdirSync(path.join(cwd, ".vscode"), { recursive: true });
  writeFileSync(path.join(cwd, ".vscode/mcp.json"), JSON.stringify({ servers: { gh: { type: "http", url: "http://127.0.0.1:9/mcp" } }, inputs: [] }));
  assert.deepEqual(Object.keys(importClientServers("vscode", { home, cwd, platform: "linux" }).servers), ["gh"]);

  const none = importClientServers("claude-desktop", { home, cwd, platform: "linux" });
  assert.deepEqual(none.servers, {});
  assert.match(none.notes[0], /no config of claude-desktop found \(looked in .*claude_desktop_config\.json\)/);

  assert.equal(isToolshellGateway({ command: "/usr/local/bin/toolshell", args: ["mcp", "--http", "0"] }), true);
  assert.equal(isToolshellGateway({ command: "node", args: ["/x/toolshell/dist/cli/main.js", "mcp"] }), true);
  assert.equal(isToolshellGateway({ command: "toolshell", args: ["run", "x.sh"] }), false);
  assert.equal(isToolshellGateway({ command: "mcp-server-memory" }), false);
});

test("merging keeps the config's own entries and adds the others", () => {
  const merged = mergeImported({ mcpServers: { memory: { command: "mine" } }, keepVisible: ["x"] }, { memory: { command: "theirs" }, web: { url: "u" } });
  assert.deepEqual(merged.config, { mcpServers: { memory: { command: "mine" }, web: { url: "u" } }, keepVisible: ["x"] });
  assert.deepEqual(merged.added, ["web"]);
  assert.deepEqual(merged.skipped, ["memory"]);
});

function cli(args: string[], cwd: string, env: Record<string, string> = {}) {
  const cmd = tsxCommand(MAIN, args);
  const r = spawnSync(cmd.command, cmd.args, { cwd, encoding: "utf8", timeout: 90_000, env: { ...process.env, ...env } });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

test("toolshell mcp --import cursor --write FILE writes a config with the imported servers; an unknown client is a usage error", () => {
  const { home, cwd } = fakeHome();
  mkdirSync(path.join(home, ".cursor"), { recursive: true });
  writeFileSync(path.join(home, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(cwd, "m.jsonl") }, load: "on_demand" } } }));
  writeFileSync(path.join(cwd, "toolshell.config.json"), JSON.stringify({ mcpServers: {}, keepVisible: [] }));
  const r = cli(["mcp", "--import", "cursor", "--write", "merged.json"], cwd, { HOME: home, USERPROFILE: home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /imported from cursor .*: memory/);
  const written = JSON.parse(readFileSync(path.join(cwd, "merged.json"), "utf8"));
  assert.equal(written.mcpServers.memory.command, NPM_SERVERS.memory);
  assert.deepEqual(written.keepVisible, []);
  const listed = cli(["list", "--config", "merged.json"], cwd);
  assert.match(listed.stdout, /^  memory +\(not loaded\)$/m);
  const bad = cli(["mcp", "--import", "emacs"], cwd);
  assert.equal(bad.code, 1, "a usage error (README: exit 1 with usage)");
  assert.match(bad.stderr, /unknown client "emacs"[^]*Usage: toolshell mcp/);
});

test("toolshell list --tokens prints the bash tool's size in o200k tokens", () => {
  // Its own store: other test files may use the example config at the same time.
  const store = path.join(mkdtempSync(path.join(tmpdir(), "ts-tokens-")), "state.db");
  const r = cli(["list", "--tokens", "--config", path.join(root, "examples/toolshell.config.json"), "--store", store], path.join(root, "examples"));
  assert.equal(r.code, 0, r.stderr);
  const m = /^  bash tool +(\d+) +\(description (\d+) characters\)$/m.exec(r.stdout);
  assert.ok(m, r.stdout);
  const tokens = Number(m[1]);
  assert.ok(tokens > 100 && tokens < 1000, `bash tool: ${tokens} tokens`);
  assert.ok(tokens < Number(m[2]) / 2, "tokens are counted, not characters");
  assert.match(r.stdout, /^  all 27 loaded tools listed directly instead: \d+ +\(toolshell: [\d.]+% fewer\); not loaded, not counted: everything$/m);
});

test("toolshell list --tokens with two local tools says the direct list is smaller, never a negative saving", (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-tokens-few-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(path.join(dir, "agent/tools"), { recursive: true });
  for (const name of ["lookup_user", "ping"]) {
    const lib = pathToFileURL(path.join(root, "dist/index.js")).href;
    writeFileSync(path.join(dir, `agent/tools/${name}.mjs`), `import { defineTool } from "${lib}";\nexport default defineTool({ description: "${name}", inputSchema: { type: "object" }, execute: () => "ok" });\n`);
  }
  writeFileSync(path.join(dir, "toolshell.config.json"), "{}");
  const r = cli(["list", "--tokens", "--config", path.join(dir, "toolshell.config.json"), "--store", path.join(dir, "state.db")], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^  all 2 loaded tools listed directly instead: \d+ +\(toolshell: [\d.]+% more: with this few tools, listing them directly is smaller\)$/m);
  assert.doesNotMatch(r.stdout, /-[\d.]+% fewer/);
});

test("toolshell mcp --http 0 serves a real MCP client on 127.0.0.1 until stopped, with the token it keeps", async () => {
  const { cwd } = fakeHome();
  writeFileSync(path.join(cwd, "toolshell.config.json"), JSON.stringify({ mcpServers: {}, logDir: "logs" }));
  const cmd = tsxCommand(MAIN, ["mcp", "--http", "0"]);
  const child = spawn(cmd.command, cmd.args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let err = "";
      child.stderr.on("data", (d: Buffer) => {
        err += d.toString();
        const m = /serving Streamable HTTP at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    // No token configured: the gateway made one, kept owner-only beside the config (docs/agents.md).
    const token = readFileSync(path.join(cwd, ".toolshell", "mcp-http.token"), "utf8").trim();
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    const r = (await client.callTool({ name: "bash", arguments: { command: "echo hi; tools --help >/dev/null && echo listed" } })) as { structuredContent?: { stdout: string } };
    assert.equal(r.structuredContent?.stdout, "hi\nlisted\n");
    await client.close();
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
});

test("VS Code and Cursor variables expand against the workspace the import reads; a server using ${input:…} is left out with a note, the others imported", () => {
  const { home, cwd } = fakeHome();
  mkdirSync(path.join(cwd, ".vscode"), { recursive: true });
  writeFileSync(
    path.join(cwd, ".vscode/mcp.json"),
    `{ // VS Code's own format, with comments
      "inputs": [{ "id": "token", "type": "promptString", "password": true }],
      "servers": {
        "fs": { "command": "mcp-server-filesystem", "args": ["\${workspaceFolder}", "\${userHome}\${/}notes", "\${workspaceFolderBasename}"], "env": { "KEEP": "\${env:HOME}" } },
        "gh": { "type": "http", "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
        "open": { "command": "x", "args": ["\${file}"] },
      },
    }`,
  );
  const r = importClientServers("vscode", { home, cwd, platform: "linux" });
  assert.deepEqual(Object.keys(r.servers), ["fs"]);
  assert.deepEqual(r.servers.fs.args, [cwd, `${home}/notes`, "project"]);
  assert.deepEqual(r.servers.fs.env, { KEEP: "${env:HOME}" }, "environment variables are left for toolshell to expand when it reads the config");
  assert.ok(r.notes.some((n) => /gh: left out: headers\.Authorization uses "\$\{input:token\}", an input prompt VS Code asks/.test(n)), r.notes.join("\n"));
  assert.ok(r.notes.some((n) => /open: left out: args\[0\] uses "\$\{file\}", a value only the editor knows/.test(n)), r.notes.join("\n"));

  mkdirSync(path.join(home, ".cursor"), { recursive: true });
  writeFileSync(path.join(home, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { fs: { command: "x", args: ["${workspaceFolder}"] } } }));
  assert.deepEqual(importClientServers("cursor", { home, cwd, platform: "win32" }).servers.fs.args, [cwd]);
  // Cursor's own prompt is named as Cursor's.
  writeFileSync(path.join(home, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { gh: { command: "x", env: { T: "${input:token}" } } } }));
  const notes = importClientServers("cursor", { home, cwd, platform: "linux" }).notes;
  assert.ok(notes.some((n) => /an input prompt Cursor asks the person for/.test(n)), notes.join("\n"));
});

test("toolshell mcp --import vscode --write OTHER/FILE keeps the project's folder as the filesystem server's root and imports the servers next to a ${input:…} one", () => {
  const { home, cwd } = fakeHome();
  mkdirSync(path.join(cwd, ".vscode"), { recursive: true });
  writeFileSync(
    path.join(cwd, ".vscode/mcp.json"),
    JSON.stringify({
      inputs: [{ id: "token", type: "promptString" }],
      servers: {
        filesystem: { command: "mcp-server-filesystem", args: ["${workspaceFolder}"], load: "on_demand" },
        gh: { command: "gh-mcp", env: { TOKEN: "${input:token}" }, load: "on_demand" },
      },
    }),
  );
  const other = path.join(path.dirname(cwd), "other");
  mkdirSync(other);
  const r = cli(["mcp", "--import", "vscode", "--write", path.join(other, "toolshell.config.json")], cwd, { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, ".config") });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /imported from vscode .*: filesystem/);
  assert.match(r.stderr, /gh: left out: env\.TOKEN uses "\$\{input:token\}"/);
  const written = JSON.parse(readFileSync(path.join(other, "toolshell.config.json"), "utf8"));
  assert.deepEqual(written.mcpServers.filesystem.args, [cwd]);
  assert.equal(written.mcpServers.gh, undefined);
});

test("toolshell mcp --import refuses a workspace that holds (or lies in the folder of) a client config it imports from, which a script could write and the next start would run; control: a workspace beside them starts", () => {
  const { home, cwd } = fakeHome();
  const cfg = path.join(path.dirname(cwd), "cfg");
  mkdirSync(cfg);
  writeFileSync(path.join(cfg, "toolshell.config.json"), JSON.stringify({ mcpServers: {} }));
  mkdirSync(path.join(cwd, ".vscode", "sub"), { recursive: true });
  mkdirSync(path.join(home, ".config"));
  mkdirSync(path.join(cwd, "ws"));
  const env = { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: path.join(home, ".config") };
  const start = (workspace: string, client: string, at = cwd) => cli(["--config", path.join(cfg, "toolshell.config.json"), "--workspace", workspace, "mcp", "--import", client], at, env);
  const cases: [string, string, RegExp][] = [
    [cwd, "claude-code", /holds an MCP client config toolshell mcp --import reads \(.*project\/\.mcp\.json\)/],
    [cwd, "cursor", /holds an MCP client config toolshell mcp --import reads \(.*project\/\.cursor\/mcp\.json\)/],
    [path.join(cwd, ".vscode", "sub"), "vscode", /lies inside the folder of an MCP client config toolshell mcp --import reads \(.*project\/\.vscode\)/],
    [home, "claude-code", /holds an MCP client config toolshell mcp --import reads \(.*home\/\.claude\.json\)/],
    [path.join(home, ".config"), "vscode", /holds an MCP client config toolshell mcp --import reads \(.*home\/\.config\/Code\/User\/mcp\.json\)/],
  ];
  for (const [workspace, client, message] of cases) {
    const r = start(workspace, client);
    assert.equal(r.code, 2, `${workspace} ${client}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  // Control: a workspace beside the client configs starts (and ends when its client, stdin, goes away).
  const ok = start(path.join(cwd, "ws"), "claude-code");
  assert.doesNotMatch(ok.stderr, /the workspace .* (holds|lies inside)/, ok.stderr);
  assert.equal(ok.code, 0, ok.stderr);
});

test("toolshell mcp --import cursor --write OTHER/FILE rewrites the project config's relative paths: its tools folder and a server started with a relative script still work from the new file", () => {
  const { home, cwd } = fakeHome();
  mkdirSync(path.join(cwd, "agent/tools"), { recursive: true });
  // A stdio MCP server whose script is named relative to the project: it starts in the config's folder.
  writeFileSync(
    path.join(cwd, "srv.mjs"),
    `import { createInterface } from "node:readline";
const send = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
createInterface({ input: process.stdin }).on("line", (l) => {
  const m = JSON.parse(l);
  if (m.id === undefined) return;
  if (m.method === "initialize") send(m.id, { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "srv", version: "1" } });
  else if (m.method === "tools/list") send(m.id, { tools: [{ name: "hi", inputSchema: { type: "object" }, annotations: { readOnlyHint: true } }] });
  else if (m.method === "tools/call") send(m.id, { content: [{ type: "text", text: "hi from srv" }] });
  else send(m.id, {});
});
`,
  );
  writeFileSync(path.join(cwd, "toolshell.config.json"), JSON.stringify({ tools: "agent/tools", mcpServers: { mine: { command: process.execPath, args: ["srv.mjs"] } } }));
  mkdirSync(path.join(home, ".cursor"), { recursive: true });
  writeFileSync(path.join(home, ".cursor/mcp.json"), JSON.stringify({ mcpServers: { memory: { command: NPM_SERVERS.memory, load: "on_demand" } } }));
  const other = path.join(path.dirname(cwd), "other");
  mkdirSync(other);
  const file = path.join(other, "toolshell.config.json");
  const r = cli(["mcp", "--import", "cursor", "--write", file], cwd, { HOME: home, USERPROFILE: home });
  assert.equal(r.code, 0, r.stderr);
  const written = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(written.tools, path.join("..", "project", "agent", "tools"));
  assert.equal(written.mcpServers.mine.cwd, path.join("..", "project"));
  // Run from a third folder with the written file: the tools folder loads and the server starts where its script is.
  const ran = cli(["--config", file, "--no-daemon", "--store", ":memory:", "exec", "tools mine hi"], home);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, "hi from srv\n");
});
