import assert from "node:assert/strict";
import { realpathSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { createToolShell } from "../../src/index.js";
import type { McpServerSource } from "../../src/mcp/index.js";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { watchConfigFile } from "../../src/runtime/config-watch.js";
import { eventually } from "../fixtures/eventually.js";
import { tempDir } from "../fixtures/temp.js";

test("addServer / updateServer / removeServer: the next shell call sees the change; bad input changes nothing", async (t) => {
  const dir = tempDir(t, "toolshell-servers-");
  const ts = await createToolShell({ baseDir: dir, config: { mcpServers: {}, approval: { mode: "off" } }, tools: { hello: { name: "hello", description: "hi", inputSchema: { type: "object" }, execute: () => "hi" } } as never });
  t.after(() => ts.close());
  const s = ts.session();
  assert.doesNotMatch((await s.bash("tools --help")).stdout, /memory/);

  await ts.addServer("memory", { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } });
  const listed = await s.bash("tools --help");
  assert.match(listed.stdout, /^  memory +11 tools$/m, listed.stderr);
  const read = await s.bash("tools memory read_graph");
  assert.equal(read.exit_code, 0, read.stderr);
  const pid = (ts.sources.find((x) => x.name === "memory") as McpServerSource).pid();
  assert.equal(typeof pid, "number");

  // Bad input: a clear error and nothing changed.
  await assert.rejects(ts.addServer("memory", { command: "x" }), /already exists/);
  await assert.rejects(ts.addServer("help", { command: "x" }), /reserved/);
  await assert.rejects(ts.addServer("hello", { command: "x" }), /same name as a local tool/);
  await assert.rejects(ts.addServer("bad name!", { command: "x" }), /server name/);
  await assert.rejects(ts.addServer("other", { command: 42 }), /command/);
  await assert.rejects(ts.updateServer("nope", { command: "x" }), /no server named nope/);
  await assert.rejects(ts.removeServer("nope"), /no server named nope/);
  assert.deepEqual(ts.config.servers.map((x) => x.name), ["memory"]);
  assert.equal((await s.bash("tools memory read_graph")).exit_code, 0);

  // Removing ends the process; the next call answers unknown_command.
  const source = ts.sources.find((x) => x.name === "memory") as McpServerSource;
  await ts.removeServer("memory");
  assert.equal(source.pid(), undefined, "its process ended");
  const gone = await s.bash("tools memory read_graph");
  assert.equal(gone.exit_code, 1);
  assert.match(gone.stderr, /"code":"unknown_command"/);
  assert.deepEqual(ts.config.servers, []);
});

test("a shell call already running keeps the catalog it started with", async (t) => {
  const dir = tempDir(t, "toolshell-servers-");
  // The running call holds in a local tool until the server is added, then lists the catalog.
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const hold = { name: "hold", description: "Waits until the test lets it go.", inputSchema: { type: "object" }, execute: async () => (entered(), await released, "held") };
  const ts = await createToolShell({ baseDir: dir, config: { mcpServers: {}, approval: { mode: "off" } }, tools: { hold } as never });
  t.after(() => ts.close());
  const s = ts.session();
  const running = s.bash("tools hold; tools --help");
  await inside;
  await ts.addServer("memory", { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } });
  release();
  const ran = await running;
  assert.match(ran.stdout, /^held$/m, ran.stderr);
  assert.doesNotMatch(ran.stdout, /memory/);
  assert.match((await s.bash("tools --help")).stdout, /memory/);
});

test("allow_always for a removed server's tool does not cover a different server added later under the same name", async (t) => {
  const dir = tempDir(t, "toolshell-servers-");
  const ts = await createToolShell({ baseDir: dir, config: { mcpServers: {} } });
  t.after(() => ts.close());
  const env = { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") };
  const first = { command: NPM_SERVERS.memory, env };
  await ts.addServer("memory", first);
  const s = ts.session();
  const script = `tools memory delete_entities '{"entityNames":["x"]}'`;
  const asked = await s.bash(script);
  const id = asked.tools?.stopped?.request_id;
  assert.ok(id, `the call asks first: ${asked.stderr}`);
  await s.answer(id, "allow_always");
  assert.equal((await s.bash(script)).exit_code, 0, "allowed now");

  // Control: the same command again under the same name keeps the answer.
  await ts.updateServer("memory", first);
  const same = await s.bash(script);
  assert.equal(same.exit_code, 0, same.stderr);
  assert.equal(same.tools?.stopped, undefined);

  // A different command under the same name asks again.
  await ts.removeServer("memory");
  await ts.addServer("memory", { command: process.execPath, args: [realpathSync(NPM_SERVERS.memory)], env });
  const other = await s.bash(script);
  assert.ok(other.tools?.stopped?.request_id, "a different server under the same name asks again");
  assert.notEqual(other.tools?.stopped?.request_id, id);
});

test("a watched config file: a change reaches the next shell call; a broken edit is reported and the last good config kept", async (t) => {
  const dir = tempDir(t, "toolshell-servers-");
  const file = path.join(dir, "toolshell.config.json");
  const memory = { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } };
  writeFileSync(file, JSON.stringify({ mcpServers: {}, approval: { mode: "off" } }));
  const ts = await createToolShell({ config: file });
  const reported: string[] = [];
  const w = watchConfigFile(ts, file, { debounceMs: 50, onError: (m) => reported.push(m) });
  t.after(async () => {
    w.close();
    await ts.close();
  });
  const s = ts.session();
  const waitFor = async (what: string, ok: () => boolean) => {
    await eventually(what, ok);
    await w.settled();
  };
  writeFileSync(file, JSON.stringify({ mcpServers: { memory }, approval: { mode: "off" } }));
  await waitFor("the memory server loaded from the file", () => ts.config.servers.length === 1 && (ts.sources.find((x) => x.name === "memory") as McpServerSource | undefined)?.state() === "ready");
  assert.equal((await s.bash("tools memory read_graph")).exit_code, 0);

  writeFileSync(file, "{ broken");
  await waitFor("the broken file reported", () => reported.length > 0);
  assert.equal(w.errors().length, 1);
  assert.equal((await s.bash("tools memory read_graph")).exit_code, 0, "the last good config is kept");

  writeFileSync(file, JSON.stringify({ mcpServers: {}, approval: { mode: "off" } }));
  await waitFor("the server removed by the file", () => ts.config.servers.length === 0);
  assert.deepEqual(w.errors(), []);
  assert.match((await s.bash("tools memory read_graph")).stderr, /"code":"unknown_command"/);
});

test("trust of a server added or changed at run time: trust false (or approval.trustAnnotations false) is judged as if it had been in the file", async (t) => {
  const dir = tempDir(t, "toolshell-servers-");
  const file = path.join(dir, "toolshell.config.json");
  const memory = (name: string, trust?: boolean) => ({ command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, `${name}.jsonl`) }, ...(trust === undefined ? {} : { trust }) });
  // Protective: a call asks unless it is read-only, and a read-only claim counts only when trusted.
  writeFileSync(file, JSON.stringify({ mcpServers: {}, approval: { mode: "protective" } }));
  const ts = await createToolShell({ config: file });
  const w = watchConfigFile(ts, file, { debounceMs: 50, onError: () => {} });
  t.after(async () => {
    w.close();
    await ts.close();
  });
  const s = ts.session();
  const asks = async (server: string) => (await s.bash(`tools ${server} read_graph`)).tools?.stopped?.reason === "needs_approval";

  await ts.addServer("trusted", memory("trusted"));
  assert.equal(await asks("trusted"), false, "control: read_graph claims readOnly and the claim is taken");
  await ts.addServer("strict", memory("strict", false));
  assert.equal(await asks("strict"), true, "trust false added at run time: the readOnly claim is not taken");
  const plan = await s.bash(`echo 'tools strict read_graph' | tools plan`);
  assert.equal(JSON.parse(plan.stdout).calls[0].risk, "needs_approval");

  await ts.updateServer("trusted", memory("trusted", false));
  assert.equal(await asks("trusted"), true, "changed to trust false: asks now");
  await ts.updateServer("strict", memory("strict", true));
  assert.equal(await asks("strict"), false, "changed to trust true: taken again");

  // The config file path: a reload carrying `trust: false` is seen the same way.
  writeFileSync(file, JSON.stringify({ mcpServers: { reloaded: memory("reloaded", false) }, approval: { mode: "protective" } }));
  await eventually("the reloaded server in the config", () => ts.config.servers.some((x) => x.name === "reloaded"));
  await w.settled();
  assert.deepEqual(ts.config.servers.map((x) => x.name), ["reloaded"]);
  assert.equal(await asks("reloaded"), true, "a reloaded trust false");

  // approval.trustAnnotations false: a server added at run time without `trust` gets the stricter reading.
  const dir2 = tempDir(t, "toolshell-servers-");
  const strictAll = await createToolShell({ baseDir: dir2, config: { mcpServers: {}, approval: { mode: "protective", trustAnnotations: false } } });
  t.after(() => strictAll.close());
  await strictAll.addServer("plain", memory("plain"));
  await strictAll.addServer("vouched", memory("vouched", true));
  const s2 = strictAll.session();
  assert.equal((await s2.bash("tools plain read_graph")).tools?.stopped?.reason, "needs_approval");
  assert.equal((await s2.bash("tools vouched read_graph")).exit_code, 0, "trust true wins over trustAnnotations false");
});

test("close while a server is being added: the server that change starts is closed too, and a change after close is refused", async (t) => {
  const dir = tempDir(t, "toolshell-servers-");
  const ts = await createToolShell({ baseDir: dir, config: { mcpServers: {} } });
  const adding = ts.addServer("memory", { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") } });
  // One turn of the event loop: the change has begun starting the server (it cannot be up yet).
  await new Promise((r) => setImmediate(r));
  await ts.close();
  await adding;
  const source = ts.sources.find((x) => x.name === "memory") as McpServerSource;
  assert.equal(source.pid(), undefined, "its process ended with the host");
  await assert.rejects(ts.addServer("other", { command: NPM_SERVERS.memory }), /the host is closing/);
});
