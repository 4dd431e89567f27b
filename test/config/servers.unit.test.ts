/** parseServersConfig: both formats, ${VAR}, defaults, path resolution, errors naming the key. */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  parseServersConfig,
  type HttpServerConfig,
  type StdioServerConfig,
} from "../../src/config/index.js";
import { createMcpSources } from "../../src/mcp/index.js";
import { hostRedactor, tempDir } from "../mcp/helpers.js";

const baseDir = "/srv/project";
const parse = (json: unknown, env: Record<string, string> = {}) => parseServersConfig(json, { baseDir, env });

test("mcpServers (Claude Desktop / Cursor / .mcp.json): stdio and HTTP entries with defaults", () => {
  const servers = parse({
    mcpServers: {
      files: { command: "./bin/files-server", args: ["--root", "data", 7], env: { LEVEL: "debug", N: 3 } },
      github: { url: "https://api.example.com/mcp", headers: { Authorization: "Bearer x" } },
    },
    otherSetting: true,
  });
  assert.equal(servers.length, 2);
  const files = servers[0] as StdioServerConfig;
  assert.deepEqual(files, {
    name: "files",
    key: "mcpServers.files",
    type: "stdio",
    command: "/srv/project/bin/files-server",
    args: ["--root", "data", "7"],
    env: { LEVEL: "debug", N: "3" },
    cwd: "/srv/project",
    load: "eager",
    connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
    callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
    disabled: false,
    raw: {},
  });
  const github = servers[1] as HttpServerConfig;
  assert.equal(github.type, "http");
  assert.equal(github.url, "https://api.example.com/mcp");
  assert.deepEqual(github.headers, { Authorization: "Bearer x" });
  assert.equal(DEFAULT_CONNECT_TIMEOUT_MS, 30_000);
  assert.equal(DEFAULT_CALL_TIMEOUT_MS, 60_000);
});

test("VS Code servers: type stdio / http / sse, cwd relative to the config folder", () => {
  const servers = parse({
    servers: {
      mine: { type: "stdio", command: "/usr/bin/env", args: ["node", "server.js"], cwd: "tools" },
      remote: { type: "http", url: "http://127.0.0.1:9000/mcp" },
      legacy: { type: "sse", url: "http://127.0.0.1:9001/sse" },
      streamy: { type: "streamable-http", url: "http://127.0.0.1:9002/mcp" },
    },
    inputs: [],
  });
  assert.deepEqual(
    servers.map((s) => [s.name, s.type, s.key]),
    [
      ["mine", "stdio", "servers.mine"],
      ["remote", "http", "servers.remote"],
      ["legacy", "sse", "servers.legacy"],
      ["streamy", "http", "servers.streamy"],
    ],
  );
  assert.equal((servers[0] as StdioServerConfig).cwd, "/srv/project/tools");
});

test("per-server settings, unknown keys kept in raw, disabled servers get no source", () => {
  const servers = parse({
    mcpServers: {
      docs: { url: "http://127.0.0.1/mcp", load: "on_demand", connectTimeoutMs: 500, callTimeoutMs: 900, trust: true, alwaysAllow: ["search"], autoApprove: [] },
      kebab: { url: "http://127.0.0.1/mcp", load: "on-demand" },
      off: { command: "/bin/true", disabled: true },
    },
  });
  const [docs, kebab, off] = servers;
  assert.equal(docs.load, "on_demand");
  assert.equal(docs.connectTimeoutMs, 500);
  assert.equal(docs.callTimeoutMs, 900);
  assert.equal(docs.trust, true);
  assert.deepEqual(docs.raw, { alwaysAllow: ["search"], autoApprove: [] });
  assert.equal(kebab.load, "on_demand");
  assert.equal(off.disabled, true);
  assert.deepEqual(
    createMcpSources(servers, { logDir: tempDir(), redactor: hostRedactor(...servers) }).map((s) => s.name),
    ["docs", "kebab"],
  );
});

test("${VAR}, ${VAR:-default} and ${env:VAR} expand in every string", () => {
  const [server] = parse(
    {
      mcpServers: {
        api: {
          url: "https://${HOST}/mcp",
          headers: { Authorization: "Bearer ${TOKEN}", "X-Region": "${REGION:-eu}", "X-Empty": "${EMPTY:-fallback}" },
          note: "${env:HOST}",
        },
      },
    },
    { HOST: "api.example.com", TOKEN: "s3cret", EMPTY: "" },
  );
  const api = server as HttpServerConfig;
  assert.equal(api.url, "https://api.example.com/mcp");
  assert.deepEqual(api.headers, { Authorization: "Bearer s3cret", "X-Region": "eu", "X-Empty": "fallback" });
  assert.deepEqual(api.raw, { note: "api.example.com" });
});

test("env defaults to process.env", () => {
  process.env.TOOLSHELL_TEST_VAR = "from-process";
  try {
    const [server] = parseServersConfig({ mcpServers: { s: { command: "/bin/x", args: ["${TOOLSHELL_TEST_VAR}"] } } }, { baseDir });
    assert.deepEqual((server as StdioServerConfig).args, ["from-process"]);
  } finally {
    delete process.env.TOOLSHELL_TEST_VAR;
  }
});

test("a bare command is looked up on PATH; an unknown one is kept as written", () => {
  const bin = path.join(tempDir(), "bin");
  mkdirSync(bin);
  writeFileSync(path.join(bin, "my-mcp"), "#!/bin/sh\n");
  chmodSync(path.join(bin, "my-mcp"), 0o755);
  const servers = parse({ mcpServers: { a: { command: "my-mcp" }, b: { command: "not-there-anywhere" } } }, { PATH: `/nonexistent:${bin}` });
  assert.equal((servers[0] as StdioServerConfig).command, path.join(bin, "my-mcp"));
  assert.equal((servers[1] as StdioServerConfig).command, "not-there-anywhere");
});

test("errors name the offending key", () => {
  const cases: Array<[unknown, RegExp]> = [
    [[], /^config: \(top level\): expected a JSON object/],
    [{ mcpServers: [] }, /^mcpServers: expected an object/],
    [{ mcpServers: { gh: "npx server" } }, /^mcpServers\.gh: expected an object/],
    [{ mcpServers: { gh: {} } }, /^mcpServers\.gh: expected "command" \(stdio\) or "url" \(HTTP\)/],
    [{ mcpServers: { gh: { command: "x", url: "http://a" } } }, /^mcpServers\.gh: has both "command" and "url"/],
    [{ mcpServers: { gh: { url: "http://a", headers: { Authorization: "Bearer ${GITHUB_TOKEN}" } } } }, /^mcpServers\.gh\.headers\.Authorization: environment variable GITHUB_TOKEN is not set$/],
    [{ mcpServers: { gh: { command: "x", args: ["${1BAD}"] } } }, /^mcpServers\.gh\.args\[0\]: "\$\{1BAD\}" is not a variable reference/],
    [{ mcpServers: { gh: { command: "x", args: "--flag" } } }, /^mcpServers\.gh\.args: expected an array of strings/],
    [{ mcpServers: { gh: { command: "x", env: { A: { b: 1 } } } } }, /^mcpServers\.gh\.env\.A: expected a string/],
    [{ mcpServers: { gh: { url: "not a url" } } }, /^mcpServers\.gh\.url: "not a url" is not a URL/],
    [{ mcpServers: { gh: { url: "ftp://a/b" } } }, /^mcpServers\.gh\.url: must be http/],
    [{ mcpServers: { gh: { type: "websocket", url: "http://a" } } }, /^mcpServers\.gh\.type: "websocket" is not one of/],
    [{ mcpServers: { gh: { command: "x", load: "lazy" } } }, /^mcpServers\.gh\.load: "lazy" is not "eager" or "on_demand"/],
    [{ mcpServers: { gh: { command: "x", callTimeoutMs: -5 } } }, /^mcpServers\.gh\.callTimeoutMs: expected a positive whole number/],
    [{ mcpServers: { gh: { command: "x", trust: "yes" } } }, /^mcpServers\.gh\.trust: expected true or false/],
    [{ mcpServers: { "my server": { command: "x" } } }, /^mcpServers\.my server: a server name must be/],
    [{ mcpServers: { gh: { command: "x" } }, servers: { gh: { command: "y" } } }, /^servers\.gh: server "gh" is also defined at mcpServers\.gh/],
  ];
  for (const [json, message] of cases) assert.throws(() => parse(json), { message }, JSON.stringify(json));
});

test("a file without servers gives none", () => {
  assert.deepEqual(parse({ keep_visible: ["web_fetch"] }), []);
});
