/**
 * Reading a config: other clients' keys kept with a note, VS Code's variables and `mcp.json`
 * comments, JSON syntax errors with line and column, which file the CLI reads, one server entry
 * checked with the file's rules, `oauth`, the tri-state `trust`, and tokens from the environment.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  ConfigError,
  parseConfig,
  parseServerConfig,
  parseServerEntry,
  readConfigFile,
  resolveConfigFile,
  type HttpServerConfig,
  type StdioServerConfig,
} from "../../src/config/index.js";
import { tempDir } from "../fixtures/temp.js";

const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return "no error";
};

test("a Claude Desktop file's other keys are kept with one note; server keys of other clients too", (t) => {
  const dir = tempDir(t, "ts-config-");
  const config = parseConfig(
    { globalShortcut: "Ctrl+Space", preferences: { menuBarEnabled: false }, mcpServers: { mem: { command: "/bin/true", alwaysAllow: ["read"] } } },
    { baseDir: dir, file: path.join(dir, "claude_desktop_config.json"), env: {} },
  );
  assert.deepEqual(config.notes, ["not toolshell keys, kept as written (another client's settings): globalShortcut, preferences, mcpServers.mem.alwaysAllow"]);
  assert.equal(config.raw.globalShortcut, "Ctrl+Space");
  assert.deepEqual(config.servers[0].raw, { alwaysAllow: ["read"] });
  assert.deepEqual(parseConfig({ mcpServers: {} }, { baseDir: dir }).notes, []);
  // A key one or two letters from a toolshell key is a typo, not another client's key.
  assert.match(message(() => parseConfig({ globalShortcut: "x", Tools: "agent/tools" }, { baseDir: dir })), /^config: Tools: unknown key; did you mean "tools"\?/);
  assert.match(message(() => parseConfig({ rate_unlabeled_tools: false }, { baseDir: dir })), /^config: rate_unlabeled_tools: unknown key; did you mean "rateUnlabeledTools"\?/);
});

test("VS Code's ${workspaceFolder} and ${userHome} expand; ${input:…} is an error naming it", (t) => {
  const project = tempDir(t, "ts-config-");
  mkdirSync(path.join(project, ".vscode"));
  const vscode = path.join(project, ".vscode", "mcp.json");
  writeFileSync(
    vscode,
    `{
  // VS Code's mcp.json holds comments and trailing commas.
  "servers": {
    "fs": { "type": "stdio", "command": "/usr/bin/env", "args": ["\${workspaceFolder}/data", "\${userHome}"], "cwd": "\${workspaceFolder}", },
  },
}
`,
  );
  const fs = readConfigFile(vscode, {}).servers[0] as StdioServerConfig;
  assert.deepEqual(fs.args, [`${project}/data`, os.homedir()]);
  assert.equal(fs.cwd, project, "the folder holding .vscode/");
  // Any other file: the config's own folder.
  const other = path.join(project, "toolshell.config.json");
  writeFileSync(other, JSON.stringify({ mcpServers: { fs: { command: "/usr/bin/env", args: ["${workspaceFolder}", "${TOOLSHELL_CONFIG_DIR}"] } } }));
  assert.deepEqual((readConfigFile(other, {}).servers[0] as StdioServerConfig).args, [project, project]);
  // A file named mcp.json elsewhere is VS Code's user file: its own folder.
  const user = tempDir(t, "ts-config-");
  writeFileSync(path.join(user, "mcp.json"), JSON.stringify({ servers: { fs: { command: "/usr/bin/env", args: ["${workspaceFolder}"] } } }));
  assert.deepEqual((readConfigFile(path.join(user, "mcp.json"), {}).servers[0] as StdioServerConfig).args, [user]);
  const err = message(() => parseConfig({ servers: { gh: { type: "http", url: "https://api.example/mcp", headers: { Authorization: "Bearer ${input:github-token}" } } } }, { baseDir: project, env: {} }));
  assert.equal(err, 'config: servers.gh.headers.Authorization: "${input:github-token}" is a VS Code input prompt, which toolshell cannot ask: put the value in an environment variable and write ${NAME} instead');
});

test("a JSON syntax error names the line and the column; comments are JSON errors outside mcp.json", (t) => {
  const dir = tempDir(t, "ts-config-");
  const file = path.join(dir, "toolshell.config.json");
  const cases: Array<[string, string]> = [
    ['{\n  "mcpServers": {},\n  "callLimit": 5\n  "timeoutMs": 1000\n}\n', 'line 4, column 3: expected "," or a closing bracket'],
    ['{\n  "callLimit": 5,\n}\n', "line 3, column 1: expected a property name in double quotes (a trailing comma?)"],
    ['{ "callLimit": tru }', "line 1, column 16: unexpected character"],
    ["// a comment\n{}", "line 1, column 1: comments are not allowed in JSON"],
    ['{ "a": "b', "line 1, column 8: a string is not closed"],
    ["", "line 1, column 1: expected a value"],
  ];
  for (const [text, where] of cases) {
    writeFileSync(file, text);
    assert.equal(message(() => readConfigFile(file, {})), `${file}: not valid JSON at ${where}`, JSON.stringify(text));
  }
  assert.equal(message(() => readConfigFile(path.join(dir, "gone.json"), {})), `${path.join(dir, "gone.json")}: cannot read: ENOENT`);
});

test("the CLI's config: --config, else TOOLSHELL_CONFIG, else toolshell.config.json then .mcp.json", (t) => {
  const dir = tempDir(t, "ts-config-");
  assert.equal(resolveConfigFile({ env: {}, cwd: dir }), undefined);
  writeFileSync(path.join(dir, ".mcp.json"), "{}");
  assert.equal(resolveConfigFile({ env: {}, cwd: dir }), path.join(dir, ".mcp.json"));
  writeFileSync(path.join(dir, "toolshell.config.json"), "{}");
  assert.equal(resolveConfigFile({ env: {}, cwd: dir }), path.join(dir, "toolshell.config.json"));
  writeFileSync(path.join(dir, "env.json"), "{}");
  assert.equal(resolveConfigFile({ env: { TOOLSHELL_CONFIG: "env.json" }, cwd: dir }), path.join(dir, "env.json"));
  assert.equal(resolveConfigFile({ env: { TOOLSHELL_CONFIG: "" }, cwd: dir }), path.join(dir, "toolshell.config.json"), "an empty variable names nothing");
  assert.equal(resolveConfigFile({ flag: ".mcp.json", env: { TOOLSHELL_CONFIG: "env.json" }, cwd: dir }), path.join(dir, ".mcp.json"));
  assert.equal(message(() => resolveConfigFile({ env: { TOOLSHELL_CONFIG: "nope.json" }, cwd: dir })), "config file not found: nope.json (named by TOOLSHELL_CONFIG)");
  assert.equal(message(() => resolveConfigFile({ flag: "nope.json", env: {}, cwd: dir })), "config file not found: nope.json");
});

test("parseServerEntry checks one entry with the rules of the file", (t) => {
  const dir = tempDir(t, "ts-config-");
  const opts = { baseDir: dir, env: { TOKEN: "s3cret-token" } };
  const http = parseServerEntry("api", { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${TOKEN}" }, autoApprove: [] }, opts) as HttpServerConfig;
  assert.deepEqual(http, {
    name: "api",
    key: "mcpServers.api",
    type: "http",
    url: "https://example.com/mcp",
    headers: { Authorization: "Bearer s3cret-token" },
    load: "eager",
    connectTimeoutMs: 30_000,
    callTimeoutMs: 60_000,
    disabled: false,
    raw: { autoApprove: [] },
    // What `${TOKEN}` expanded to: redacted as a secret wherever it shows.
    expanded: ["s3cret-token"],
  });
  const stdio = parseServerEntry("mine", { command: "./server.sh", cwd: "srv", load: "on-demand" }, opts) as StdioServerConfig;
  assert.equal(stdio.command, path.join(dir, "srv", "server.sh"), "a relative command is found from its cwd, as spawn would");
  assert.equal(stdio.cwd, path.join(dir, "srv"));
  assert.equal((parseServerEntry("mine", { command: "bin/s" }, opts) as StdioServerConfig).command, path.join(dir, "bin", "s"), "cwd defaults to the config's folder");
  assert.equal(stdio.load, "on_demand");
  const cases: Array<[string, unknown, string]> = [
    ["x", { command: "x", arg: [] }, 'mcpServers.x.arg: unknown key; did you mean "args"?'],
    ["x", { url: "https://a.example", headers: { A: "${MISSING}" } }, "mcpServers.x.headers.A: environment variable MISSING is not set"],
    ["x", { url: "ftp://a.example" }, "mcpServers.x.url: must be http:// or https://"],
    ["x", { command: "x", url: "https://a.example" }, 'mcpServers.x: has both "command" and "url"; keep one'],
    ["x", { type: "sse", command: "x" }, "mcpServers.x.url: a sse server needs a url"],
    ["x", "npx server", 'mcpServers.x: expected an object with "command" or "url"'],
    ["bad name", { command: "x" }, 'mcpServers.bad name: a server name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit'],
    ["Local", { command: "x" }, 'mcpServers.Local: server name "Local" is reserved (search, plan, help, scripts, local): rename it'],
  ];
  for (const [name, entry, expected] of cases) {
    const err = message(() => parseServerEntry(name, entry, opts));
    assert.ok(err.startsWith(expected), `${JSON.stringify(entry)}: ${err}`);
  }
  assert.ok(message(() => parseServerEntry("x", { command: "x", arg: [] }, { ...opts, key: "added.x" })).startsWith("added.x.arg: "));
  assert.throws(() => parseServerEntry("x", {}, opts), ConfigError);
});

test("a server named __proto__, constructor or prototype is refused with a clear error, never dropped", (t) => {
  const dir = tempDir(t, "ts-config-");
  for (const name of ["__proto__", "constructor", "prototype"]) {
    for (const group of ["mcpServers", "servers"]) {
      const json = JSON.parse(`{"${group}":{"${name}":{"command":"x"},"ok":{"command":"x"}}}`) as unknown;
      assert.match(message(() => parseConfig(json, { baseDir: dir })), new RegExp(`${group}\\.${name}: server name "${name}" is not allowed`));
    }
    assert.match(message(() => parseServerEntry(name, { command: "x" }, { baseDir: dir })), /is not allowed/);
  }
  assert.deepEqual(parseConfig(JSON.parse('{"mcpServers":{"ok":{"command":"x"}}}') as unknown, { baseDir: dir }).servers.map((s) => s.name), ["ok"]);
});

test("a __proto__, constructor or prototype key anywhere else in the config is refused naming its place; control: the same config without it loads", (t) => {
  const dir = tempDir(t, "ts-config-");
  const cases: Array<[string, string]> = [
    ['{"approval":{"tools":{"__proto__":"never"}}}', "approval.tools.__proto__"],
    ['{"approval":{"servers":{"constructor":"never"}}}', "approval.servers.constructor"],
    ['{"mcpServers":{"x":{"command":"x","env":{"__proto__":{"A":"b"}}}}}', "mcpServers.x.env.__proto__"],
    ['{"mcpServers":{"x":{"url":"https://example.com/mcp","headers":{"prototype":"1"}}}}', "mcpServers.x.headers.prototype"],
    ['{"triggers":[{"name":"t","webhook":true,"script":"s","input":{"__proto__":{"n":1}}}]}', "triggers[0].input.__proto__"],
  ];
  for (const [text, where] of cases) {
    const err = message(() => parseConfig(JSON.parse(text) as unknown, { baseDir: dir }));
    assert.ok(err.includes(`${where}: the key "${where.split(".").pop()}" is not allowed`), `${text}: ${err}`);
  }
  assert.deepEqual(parseConfig(JSON.parse('{"approval":{"tools":{"x":"never"}}}') as unknown, { baseDir: dir }).approval.tools, { x: "never" });
});

test("a server URL with a user name or password is refused at load, without quoting it; control: the same URL without them loads", (t) => {
  const dir = tempDir(t, "ts-config-");
  const err = message(() => parseConfig({ mcpServers: { remote: { url: "https://svc:Sup3rSecretPassw0rd@mcp.example.com/mcp" } } }, { baseDir: dir }));
  assert.match(err, /mcpServers\.remote\.url: holds a user name or password, which fetch refuses to send: give them as a header instead/);
  assert.ok(!err.includes("Sup3rSecretPassw0rd"), err);
  assert.equal(parseConfig({ mcpServers: { remote: { url: "https://mcp.example.com/mcp" } } }, { baseDir: dir }).servers.length, 1);
});

test("oauth: an object of optional settings or false, on URL servers only", (t) => {
  const dir = tempDir(t, "ts-config-");
  const opts = { baseDir: dir, env: { SECRET: "client-secret-1" } };
  const signIn = parseServerEntry("gh", { url: "https://example.com/mcp", oauth: { clientId: "toolshell", clientSecret: "${SECRET}", scope: "repo read:org", callbackPort: 33418 } }, opts) as HttpServerConfig;
  assert.deepEqual(signIn.oauth, { clientId: "toolshell", clientSecret: "client-secret-1", scope: "repo read:org", callbackPort: 33418 });
  assert.equal((parseServerEntry("gh", { url: "https://example.com/mcp", oauth: false }, opts) as HttpServerConfig).oauth, false);
  assert.deepEqual((parseServerEntry("gh", { url: "https://example.com/mcp", oauth: {} }, opts) as HttpServerConfig).oauth, {});
  assert.equal("oauth" in parseServerEntry("gh", { url: "https://example.com/mcp" }, opts), false, "absent when not written");
  const cases: Array<[unknown, string]> = [
    [{ command: "x", oauth: {} }, 'mcpServers.gh.oauth: only for servers with a "url" (OAuth signs in to remote servers)'],
    [{ url: "https://example.com/mcp", oauth: true }, "mcpServers.gh.oauth: expected an object or false"],
    [{ url: "https://example.com/mcp", oauth: { callbackPort: 0 } }, "mcpServers.gh.oauth.callbackPort: expected a port number from 1 to 65535"],
    [{ url: "https://example.com/mcp", oauth: { callbackPort: 65536 } }, "mcpServers.gh.oauth.callbackPort: expected a port number from 1 to 65535"],
    [{ url: "https://example.com/mcp", oauth: { clientID: "x" } }, 'mcpServers.gh.oauth.clientID: unknown key; did you mean "clientId"?'],
    [{ url: "https://example.com/mcp", oauth: { scope: 3 } }, "mcpServers.gh.oauth.scope: expected a string"],
  ];
  for (const [entry, expected] of cases) {
    const err = message(() => parseServerEntry("gh", entry, opts));
    assert.ok(err.startsWith(expected), `${JSON.stringify(entry)}: ${err}`);
  }
});

test("trust stays as written: absent, true or false", (t) => {
  const dir = tempDir(t, "ts-config-");
  const servers = parseConfig({ mcpServers: { a: { command: "/bin/true" }, b: { command: "/bin/true", trust: true }, c: { command: "/bin/true", trust: false } } }, { baseDir: dir }).servers;
  assert.deepEqual(
    servers.map((s) => [s.name, "trust" in s, s.trust]),
    [
      ["a", false, undefined],
      ["b", true, true],
      ["c", true, false],
    ],
  );
  assert.equal(parseConfig({}, { baseDir: dir }).approval.trustAnnotations, undefined, "approval keys are kept as written too");
});

test("server: defaults, config tokens checked at load, tokens from the environment named when too short", (t) => {
  const dir = tempDir(t, "ts-config-");
  const config = parseConfig({ server: { tokens: ["${API_TOKEN}", "${UNSET:-}"] } }, { baseDir: dir, env: { API_TOKEN: "0123456789abcdef" } });
  assert.deepEqual(config.server, { host: "127.0.0.1", port: 8787, tokens: ["0123456789abcdef"], tokenNames: ["token-1"], tokenRoles: [undefined], maxBodyBytes: 1_048_576, trustProxy: false });
  const api = parseServerConfig(config, { TOOLSHELL_API_TOKENS: " aaaaaaaaaaaaaaaa , ", TOOLSHELL_API_TOKEN: "0123456789abcdef" });
  assert.deepEqual(api.tokens, ["0123456789abcdef", "aaaaaaaaaaaaaaaa"]);
  assert.equal(message(() => parseServerConfig(config, { TOOLSHELL_API_TOKEN: "short" })), "environment: TOOLSHELL_API_TOKEN: a token is shorter than 16 characters");
  assert.equal(message(() => parseServerConfig(config, { TOOLSHELL_API_TOKENS: "aaaaaaaaaaaaaaaa,short" })), "environment: TOOLSHELL_API_TOKENS: a token is shorter than 16 characters");
  assert.equal(message(() => parseConfig({ server: { tokens: ["short"] } }, { baseDir: dir, file: path.join(dir, "c.json") })), `${path.join(dir, "c.json")}: server.tokens[0]: a token is shorter than 16 characters`);
});

test("server.tokens: strings or { name, token } (names unique, tokens checked); env tokens named by place; tls paths from the config's folder", (t) => {
  const dir = tempDir(t, "ts-config-");
  const file = path.join(dir, "c.json");
  const config = parseConfig({ server: { tokens: [{ name: "alice", token: "alice-token-0123456789" }, "plain-token-0123456789"], tls: { cert: "tls/c.pem", key: "/k.pem" }, trustProxy: true } }, { baseDir: dir });
  assert.deepEqual(config.server.tokens, ["alice-token-0123456789", "plain-token-0123456789"]);
  assert.deepEqual(config.server.tokenNames, ["alice", "token-2"]);
  assert.deepEqual(config.server.tls, { cert: path.join(dir, "tls", "c.pem"), key: "/k.pem" });
  assert.equal(config.server.trustProxy, true);
  const api = parseServerConfig(config, { TOOLSHELL_API_TOKEN: "env-token-0123456789ab", TOOLSHELL_API_TOKENS: "alice-token-0123456789" });
  assert.deepEqual(api.tokens, ["alice-token-0123456789", "plain-token-0123456789", "env-token-0123456789ab"]);
  assert.deepEqual(api.tokenNames, ["alice", "token-2", "token-3"]);
  // Roles: a token without one among several is an agent; the only token is the operator.
  assert.deepEqual(api.tokenRoles, ["agent", "agent", "agent"]);
  const roles = parseConfig({ server: { tokens: [{ name: "ops", token: "ops-token-0123456789ab", role: "operator" }, { name: "bot", token: "bot-token-0123456789ab", role: "agent" }, "plain-token-0123456789"] } }, { baseDir: dir });
  assert.deepEqual(parseServerConfig(roles, {}).tokenRoles, ["operator", "agent", "agent"]);
  assert.deepEqual(parseServerConfig(parseConfig({ server: { tokens: ["only-token-0123456789"] } }, { baseDir: dir }), {}).tokenRoles, ["operator"]);
  assert.deepEqual(parseServerConfig(parseConfig({ server: { tokens: ["only-token-0123456789"] } }, { baseDir: dir }), { TOOLSHELL_API_TOKEN: "env-token-0123456789ab" }).tokenRoles, ["agent", "agent"]);
  const bad = (server: unknown) => message(() => parseConfig({ server }, { baseDir: dir, file }));
  assert.equal(bad({ tokens: [{ name: "a", token: "short" }] }), `${file}: server.tokens[0].token: a token is shorter than 16 characters`);
  assert.match(bad({ tokens: [{ name: "a b", token: "alice-token-0123456789" }] }), /server\.tokens\[0\]\.name: expected 1-64 letters, digits/);
  assert.match(bad({ tokens: [{ name: "a", token: "alice-token-0123456789", role: "admin" }] }), /server\.tokens\[0\]\.role: expected operator or agent/);
  assert.equal(bad({ tokens: [{ name: "a", token: "alice-token-0123456789", role: "operator" }, { name: "a", token: "other-token-0123456789", role: "agent" }] }), `${file}: server.tokens[1].name: the name a is given to two tokens with different roles (tokens share a name only while one replaces the other, with the same role)`);
  assert.match(bad({ tls: { cert: "c.pem" } }), /server\.tls/);
  // A name that is already a principal of sessions no token made is refused, whatever its role.
  for (const name of ["default", "local", "stdio", "token-2"]) {
    assert.match(bad({ tokens: [{ name, token: "some-token-0123456789ab", role: "agent" }] }), new RegExp(`server\\.tokens\\[0\\]\\.name: the name ${name} is reserved`), name);
  }
  assert.equal(parseServerConfig(parseConfig({ server: { tokens: [{ name: "defaults", token: "some-token-0123456789ab" }] } }, { baseDir: dir }), {}).tokenNames[0], "defaults", "control: a name that only starts so");
  assert.equal(parseServerConfig(parseConfig({ server: { tokens: [{ name: "token-1", token: "some-token-0123456789ab" }] } }, { baseDir: dir }), {}).tokenNames[0], "token-1", "control: the first token may take its own default name");
  // A token being replaced: the new one shares the old one's name and role, so who acts stays the same person.
  const rotating = parseServerConfig(parseConfig({ server: { tokens: [{ name: "ops", token: "old-ops-token-0123456789", role: "operator" }, { name: "ops", token: "new-ops-token-0123456789", role: "operator" }] } }, { baseDir: dir }), {});
  assert.deepEqual(rotating.tokenNames, ["ops", "ops"]);
  assert.deepEqual(rotating.tokenRoles, ["operator", "operator"]);
});

test("paths resolve against the config's folder; store may be :memory:", (t) => {
  const dir = tempDir(t, "ts-config-");
  mkdirSync(path.join(dir, "agent", "tools"), { recursive: true });
  const config = parseConfig({ store: "state/s.db", logDir: "logs" }, { baseDir: dir });
  assert.equal(config.toolsDir, path.join(dir, "agent", "tools"));
  assert.equal(config.skillsDir, undefined);
  assert.equal(config.store, path.join(dir, "state", "s.db"));
  assert.equal(config.logDir, path.join(dir, "logs"));
  assert.equal(parseConfig({ store: ":memory:" }, { baseDir: dir }).store, ":memory:");
  assert.equal(parseConfig({}, { baseDir: dir }).logDir, path.join(dir, ".toolshell", "logs"));
});

test("a token whose variable is not set is the one error: the other entries, fine once expanded, are not blamed for their ${VAR} text", (t) => {
  const dir = tempDir(t);
  const env = { OPS_TOKEN: "ops-token-0123456789abcdef" };
  for (const tokens of [["${OPS_TOKEN}", { name: "bot", token: "${BOT_TOKEN}", role: "agent" }], ["${OPS_TOKEN}", "${BOT_TOKEN}"]]) {
    const err = message(() => parseConfig({ server: { tokens } }, { baseDir: dir, env }));
    const lines = err.split("\n").filter(Boolean);
    assert.equal(lines.length, 1, err);
    assert.match(lines[0], /^config: server\.tokens\[1\](\.token)?: environment variable BOT_TOKEN is not set/);
  }
  // A real mistake beside the unset variable is still reported, and so is a short token given as written.
  const both = message(() => parseConfig({ server: { tokens: ["${OPS_TOKEN}", "${BOT_TOKEN}", { name: "bad name", token: "x".repeat(20) }] } }, { baseDir: dir, env }));
  assert.match(both, /server\.tokens\[1\]: environment variable BOT_TOKEN is not set/);
  assert.match(both, /server\.tokens\[2\]\.name: expected 1-64 letters/);
  assert.doesNotMatch(both, /server\.tokens\[0\]/);
  assert.match(message(() => parseConfig({ server: { tokens: ["short", "${BOT_TOKEN}"] } }, { baseDir: dir, env })), /server\.tokens\[0\]: a token is shorter than 16 characters/);
  // Control: with the variable set, the config loads.
  assert.deepEqual(parseConfig({ server: { tokens: ["${OPS_TOKEN}", "${BOT_TOKEN}"] } }, { baseDir: dir, env: { ...env, BOT_TOKEN: "bot-token-0123456789abcdef" } }).server.tokens, ["ops-token-0123456789abcdef", "bot-token-0123456789abcdef"]);
});
