/**
 * Two real `toolshell serve` replicas on one real PostgreSQL as one system (docs/deployment.md
 * "What is shared"): a server added through one replica's HTTP API is callable on the other and
 * survives a later config file edit; a server removed through the API leaves both; a trigger
 * created by the CLI is scheduled by the running replicas; `toolshell servers list` shows every
 * live replica, and a replica killed with SIGKILL drops out of it.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import pg from "pg";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { serveFile } from "../../src/cli/running.js";
import { api, CLI, deployment, kill, TOKEN, until } from "./helpers.js";

const run = promisify(execFile);

const listed = async (r: Parameters<typeof api>[0]) => ((await api(r, "GET", "/v1/servers")).json.servers as Array<{ name: string; state: string }>).map((s) => s.name).sort();

test("a server added through replica B is callable on A, survives a config file edit, and a removal reaches both", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const entry = { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(d.dir, "m.jsonl") } };
  const added = await api(b, "POST", "/v1/servers", { name: "memory", entry });
  assert.equal(added.status, 201, JSON.stringify(added.json));
  await until(async () => ((await listed(a)).includes("memory") ? true : undefined), "replica A to have the server added on B");
  assert.equal((await api(a, "POST", "/v1/sessions", { id: "m1" })).status, 201);
  const onA = await api(a, "POST", "/v1/sessions/m1/bash", { script: "tools memory read_graph >/dev/null && echo ok" });
  assert.equal(onA.json.stdout, "ok\n", JSON.stringify(onA.json));
  // Adding it again on A is a conflict: it is one server of the system.
  assert.equal((await api(a, "POST", "/v1/servers", { name: "memory", entry })).status, 409);

  // A file change (what `toolshell servers add` writes) keeps the server added through the API.
  const config = JSON.parse(readFileSync(d.config, "utf8"));
  writeFileSync(d.config, JSON.stringify({ ...config, approval: { mode: "normal" } }));
  await new Promise((r) => setTimeout(r, 1500));
  assert.ok((await listed(a)).includes("memory"));
  assert.ok((await listed(b)).includes("memory"));

  // A replica started later has it too (it lives in the store).
  const c = await d.start("C");
  assert.ok((await listed(c)).includes("memory"));

  assert.equal((await api(a, "DELETE", "/v1/servers/memory")).status, 204);
  await until(async () => (!(await listed(b)).includes("memory") && !(await listed(c)).includes("memory") ? true : undefined), "replicas B and C to drop the server removed on A");
  assert.equal((await api(b, "POST", "/v1/sessions", { id: "m2" })).status, 201);
  const gone = await api(b, "POST", "/v1/sessions/m2/bash", { script: "tools memory read_graph" });
  assert.match(gone.json.stderr, /unknown_command/);
});

test("toolshell servers list names every live replica; one killed with SIGKILL drops out", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const env = { ...process.env, TOOLSHELL_API_TOKEN: TOKEN };
  const list = async () => JSON.parse((await run(process.execPath, [CLI, "servers", "list", "--json", "--config", d.config], { cwd: d.dir, env })).stdout) as { replicas: Array<{ id: string; url: string; pid: number }> };
  const both = await list();
  assert.deepEqual(both.replicas.map((r) => r.url).sort(), [a.url, b.url].sort());
  // The text names each replica by its id, as the console, GET /v1/replicas and the events do.
  const named = (await run(process.execPath, [CLI, "servers", "list", "--config", d.config], { cwd: d.dir, env })).stdout;
  for (const r of both.replicas) {
    assert.match(r.id, /^rep_/);
    assert.match(named, new RegExp(`^  ${r.id}  ${r.url.replace(/[.]/g, "\\.")}  serve, pid ${r.pid} on `, "m"));
  }
  await kill(a);
  const after = await until(async () => {
    const l = await list();
    return l.replicas.length === 1 ? l : undefined;
  }, "the killed replica to drop out of the list", 60, 1000);
  assert.deepEqual(after.replicas.map((r) => r.url), [b.url]);
  // The CLI still reaches the live replica although the serve file written last may name the dead one.
  const text = (await run(process.execPath, [CLI, "servers", "list", "--config", d.config], { cwd: d.dir, env })).stdout;
  assert.match(text, new RegExp(`as the toolshell serve at ${b.url.replace(/[.]/g, "\\.")}`));
});

test("a serve file naming a replica that does not answer (killed, its pid not yet reaped): servers list and add go to another live replica", async (t) => {
  const d = await deployment(t);
  const [a, b] = await Promise.all([d.start("A"), d.start("B")]);
  const env = { ...process.env, TOOLSHELL_API_TOKEN: TOKEN };
  // The file the CLI reads first names a live pid (this test's) at an address nobody listens on.
  const latest = serveFile(d.config);
  const free = createServer();
  await new Promise<void>((r) => free.listen(0, "127.0.0.1", () => r()));
  const port = (free.address() as AddressInfo).port;
  await new Promise((r) => free.close(r));
  writeFileSync(latest, JSON.stringify({ ...JSON.parse(readFileSync(latest, "utf8")), pid: process.pid, url: `http://127.0.0.1:${port}` }), { mode: 0o600 });
  const text = (await run(process.execPath, [CLI, "servers", "list", "--config", d.config], { cwd: d.dir, env })).stdout;
  assert.match(text, new RegExp(`as the toolshell serve at (${a.url}|${b.url})`.replace(/[.]/g, "\\.")));
  const added = await run(process.execPath, [CLI, "servers", "add", "memory", "--config", d.config, "--", NPM_SERVERS.memory], { cwd: d.dir, env });
  assert.match(added.stdout, /Added server memory/);
  await until(async () => ((await listed(a)).includes("memory") && (await listed(b)).includes("memory") ? true : undefined), "both replicas to have the server", 60, 500);
});

test("a trigger created by the CLI is scheduled by the running replicas without a restart", async (t) => {
  const d = await deployment(t);
  const [a] = await Promise.all([d.start("A"), d.start("B")]);
  const env = { ...process.env, TOOLSHELL_API_TOKEN: TOKEN };
  const body = path.join(d.dir, "tick.sh");
  writeFileSync(body, "tools count label=tick\n");
  await run(process.execPath, [CLI, "scripts", "save", "tick", "--description", "counts a tick", "--file", body, "--config", d.config], { cwd: d.dir, env });
  const created = await run(process.execPath, [CLI, "triggers", "create", "every-minute", "--schedule", "* * * * *", "--script", "tick", "--config", d.config, "--json"], { cwd: d.dir, env });
  const trigger = JSON.parse(created.stdout);
  const id = trigger.id as string;
  assert.equal(typeof trigger.next_run_at, "string", created.stdout);
  assert.match(id, /^trg_/);
  const client = new pg.Client({ connectionString: d.dbUrl });
  // The database is dropped after the test (its connections ended by the server then).
  client.on("error", () => {});
  await client.connect();
  t.after(() => client.end().catch(() => {}));
  await until(async () => ((await client.query("SELECT key FROM toolshell_boss.schedule WHERE key = $1", [id])).rows.length ? true : undefined), "a replica to schedule the trigger created by the CLI");
  const shown = await api(a, "GET", `/v1/agents/default/triggers/${id}`);
  assert.equal(typeof shown.json.next_run_at, "string", JSON.stringify(shown.json));
});
