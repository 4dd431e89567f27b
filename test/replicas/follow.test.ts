/**
 * Every host on a shared store follows the same changes (Host.follow; docs/deployment.md "What
 * is shared"): a server added through a real `toolshell serve` replica's HTTP API reaches a real
 * `toolshell mcp --http` gateway replica on the same PostgreSQL (its MCP client is told through
 * `tools/list_changed` and can call the server) and the CLI's warm host started before the
 * change; the gateway is listed as a live replica.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport, type CallToolResult } from "@modelcontextprotocol/client";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { api, CLI, deployment, TOKEN, until } from "./helpers.js";

type Bash = { stdout: string; stderr: string; exit_code: number };
const bash = (r: unknown): Bash => JSON.parse(((r as CallToolResult).content[0] as { text: string }).text) as Bash;

test("a server added through a serve replica reaches the MCP gateway replica and the warm host on the same store", async (t) => {
  const d = await deployment(t);
  const [a, g] = await Promise.all([d.start("A"), d.start("G", { kind: "mcp" })]);

  // The gateway's client, connected before the change, with its event stream open.
  const client = new Client({ name: "follow-client", version: "1.0.0" });
  let changed = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => void changed++);
  await client.connect(new StreamableHTTPClientTransport(new URL(g.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }));
  t.after(() => client.close().catch(() => {}));
  const before = (await client.listTools()).tools.find((x) => x.name === "bash")!;
  assert.doesNotMatch(before.description ?? "", /memory/);

  // The CLI's warm host, started (and its host opened) before the change.
  const env = { ...process.env, TOOLSHELL_DAEMON_DIR: path.join(d.dir, "sockets"), TOOLSHELL_API_TOKEN: TOKEN, TOOLSHELL_TEST_LOG: d.log, TOOLSHELL_TEST_REPLICA: "W" };
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args, "--config", d.config], { cwd: d.dir, encoding: "utf8", timeout: 60_000, env });
  t.after(() => void cli(["daemon", "stop"]));
  assert.equal(cli(["exec", "tools count label=first"]).status, 0);
  const warm = await until(async () => {
    const s = cli(["daemon", "status"]);
    return s.status === 0 ? s.stdout : undefined;
  }, "the warm host to run");
  const warmPid = /pid (\d+)/.exec(warm)![1];
  assert.equal(cli(["exec", "tools count label=second"]).status, 0, "the warm host answers (its host is open)");

  const entry = { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(d.dir, "m.jsonl") } };
  assert.equal((await api(a, "POST", "/v1/servers", { name: "memory", entry })).status, 201);

  // The gateway: the client is told, and the server is callable there.
  await until(async () => (changed > 0 ? true : undefined), "the gateway's client to be told its tools changed");
  const after = (await client.listTools()).tools.find((x) => x.name === "bash")!;
  assert.match(after.description ?? "", /memory/);
  const onG = bash(await client.callTool({ name: "bash", arguments: { command: "tools memory read_graph >/dev/null && echo ok" } }));
  assert.equal(onG.stdout, "ok\n", onG.stderr);

  // The warm host (the same process as before the change) has it too.
  const onW = await until(async () => {
    const r = cli(["exec", "tools memory read_graph >/dev/null && echo ok"]);
    return r.status === 0 ? r : undefined;
  }, "the warm host to have the server added through the API", 100, 200);
  assert.equal(onW.stdout, "ok\n");
  assert.equal(/pid (\d+)/.exec(cli(["daemon", "status"]).stdout)?.[1], warmPid, "the same warm host answered");

  // The gateway is a live replica of the store, beside the serve replica.
  const listed = JSON.parse(spawnSync(process.execPath, [CLI, "servers", "list", "--json", "--config", d.config], { cwd: d.dir, encoding: "utf8", env }).stdout) as { replicas: Array<{ url: string; kind: string }> };
  assert.deepEqual(listed.replicas.map((r) => `${r.kind} ${r.url}`).sort(), [`mcp ${g.url}`, `serve ${a.url}`].sort());
});
