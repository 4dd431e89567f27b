/**
 * The HTTP API's `/v1/servers` routes on a real server on 127.0.0.1 over a real stdio MCP server:
 * list with state, add, change, remove, and the errors of bad input.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { loadConfig } from "../../src/config/index.js";
import { openHost, startApi } from "../../src/server/index.js";
import { apiCaller } from "../fixtures/api-call.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";

const TOKEN = "test-token-0123456789abcdef";

test("GET/POST/PUT/DELETE /v1/servers manage the servers of a running host", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-servers-api-"));
  const host = await openHost({ store: path.join(dir, "state.db"), config: { manageScripts: false, approval: { mode: "off" }, server: { tokens: [TOKEN] } } });
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const call = (method: string, p: string, body?: unknown, token = TOKEN) => apiCaller(api.url, token)(method, p, body);

  assert.equal((await call("GET", "/v1/servers", undefined, "wrong")).status, 401);
  const doc = (await call("GET", "/openapi.json")).json;
  assert.deepEqual(Object.keys(doc.paths["/v1/servers"]).sort(), ["get", "post"]);
  assert.deepEqual(Object.keys(doc.paths["/v1/servers/{name}"]).sort(), ["delete", "put"]);
  assert.deepEqual((await call("GET", "/v1/servers")).json, { servers: [] });

  const entry = { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } };
  const added = await call("POST", "/v1/servers", { name: "memory", entry });
  assert.equal(added.status, 201, JSON.stringify(added.json));
  assert.deepEqual(added.json, { name: "memory", type: "stdio", load: "eager", state: "loaded", tools: 11 });

  const session = host.session("s1");
  await session.ready;
  assert.equal((await session.bash("tools memory read_graph")).exit_code, 0);

  assert.equal((await call("POST", "/v1/servers", { name: "memory", entry })).status, 409);
  const bad = await call("POST", "/v1/servers", { name: "x", entry: { command: 42 } });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error.code, "invalid_request");
  assert.equal((await call("PUT", "/v1/servers/nope", { entry })).status, 404);
  // A name is bounded by the config schema's one rule.
  const long = await call("POST", "/v1/servers", { name: "s".repeat(300), entry });
  assert.equal(long.status, 400);
  assert.match(long.json.error.message, /a server name must be 1-64 letters.*\(this one has 300\)/);
  assert.equal((await call("POST", "/v1/servers", { name: "s".repeat(64), entry: { command: "/bin/true" } })).status, 201);
  assert.equal((await call("DELETE", `/v1/servers/${"s".repeat(64)}`)).status, 204);

  // A server that fails to start is listed as failed with its message.
  const failing = await call("PUT", "/v1/servers/memory", { entry: { command: path.join(dir, "no-such-program") } });
  assert.equal(failing.status, 200);
  assert.equal(failing.json.state, "failed");
  assert.match(failing.json.message, /no-such-program|ENOENT|not found/i);

  assert.equal((await call("DELETE", "/v1/servers/memory")).status, 204);
  assert.deepEqual((await call("GET", "/v1/servers")).json, { servers: [] });
  assert.equal((await call("DELETE", "/v1/servers/memory")).status, 404);
  assert.match((await session.bash("tools memory read_graph")).stderr, /"code":"unknown_command"/);
});

test("a server of the file removed through the API, then taken out of the file and written into it again, is in force again (the file is the record); control: while the file keeps it, the removal holds", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-servers-file-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "toolshell.config.json");
  const withMem = { server: { tokens: [TOKEN] }, mcpServers: { mem: { command: NPM_SERVERS.memory, load: "on_demand" } } };
  const without = { server: { tokens: [TOKEN] }, mcpServers: {} };
  writeFileSync(file, JSON.stringify(withMem));
  const host = await openHost({ store: path.join(dir, "state.db"), config: file });
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(async () => {
    await api.close();
    await host.close();
  });
  const call = (method: string, p: string, body?: unknown) => apiCaller(api.url, TOKEN)(method, p, body);
  const names = () => host.shell.config.servers.map((s) => s.name);
  // What `toolshell servers remove mem` does with a serve running: the API ends it, the file loses it.
  assert.equal((await call("DELETE", "/v1/servers/mem")).status, 204);
  assert.deepEqual(names(), []);
  await host.reloadConfig(loadConfig({ config: file }));
  assert.deepEqual(names(), [], "control: while the file keeps it, the removal holds");
  writeFileSync(file, JSON.stringify(without));
  await host.reloadConfig(loadConfig({ config: file }));
  // Written into the file again by hand: it is there, on this host and on the next one to open.
  writeFileSync(file, JSON.stringify(withMem));
  await host.reloadConfig(loadConfig({ config: file }));
  assert.deepEqual(names(), ["mem"]);
  const next = await openHost({ store: path.join(dir, "state.db"), config: file });
  t.after(() => next.close());
  assert.deepEqual(next.shell.config.servers.map((s) => s.name), ["mem"]);
});
