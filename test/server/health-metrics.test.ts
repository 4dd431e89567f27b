/**
 * What an operator's probes and Prometheus read (docs/deployment.md "Health, readiness and
 * metrics"): `/readyz` says whether the replica takes work (the store answers), `/metrics` counts
 * what the replica did, for an operator's token only, and a replica that loses its PostgreSQL
 * connection says so in its log and leaves readiness until the connection is back. Real `toolshell
 * serve` processes (node dist/cli/main.js, after `npm run build`) on a real SQLite file and a real
 * PostgreSQL server.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test, type TestContext } from "node:test";
import pg from "pg";
import { apiCaller } from "../fixtures/api-call.js";
import { eventually } from "../fixtures/eventually.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { freshDatabase, serverUrl } from "../fixtures/postgres.js";
import { tempDir } from "../fixtures/temp.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOOLS = path.join(REPO_ROOT, "test/fixtures/stopping/tools");
const OPS = "metrics-ops-token-0123456789";
const AGENT = "metrics-agent-token-0123456789";

/** Starts `toolshell serve` over `store` in a new folder; answers its URL and its log lines so far. */
async function serve(t: TestContext, store: string) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = tempDir(t, "toolshell-metrics-");
  const tokens = [
    { name: "ops", token: OPS, role: "operator" },
    { name: "bot", token: AGENT, role: "agent" },
  ];
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ store, tools: TOOLS, approval: { tools: { slow: "always" } }, server: { tokens } }));
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--config", path.join(dir, "toolshell.config.json")], { cwd: dir, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, TOOLSHELL_TEST_LOG: path.join(dir, "ran.log") } });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited (${code}):\n${err}`)));
  });
  const log = () =>
    out
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { url, log, stderr: () => err };
}

/** The value of one series in Prometheus's text format, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test("/metrics counts this replica's shell calls, tool calls, approvals and requests, for an operator's token only; /readyz is open", async (t) => {
  const s = await serve(t, "state.db");
  const ops = apiCaller(s.url, OPS);
  assert.deepEqual((await ops("GET", "/readyz", undefined, {})).json, { ok: true });
  assert.equal((await ops("GET", "/metrics", undefined, {})).status, 401);
  assert.equal((await apiCaller(s.url, AGENT)("GET", "/metrics")).status, 403);

  assert.equal((await ops("POST", "/v1/sessions", { id: "m1" })).status, 201);
  assert.equal((await ops("POST", "/v1/sessions/m1/bash", { script: "echo hi" })).json.exit_code, 0);
  assert.equal((await ops("POST", "/v1/sessions/m1/bash", { script: "exit 3" })).json.exit_code, 3);
  const stopped = await ops("POST", "/v1/sessions/m1/bash", { script: "tools slow ms=1" });
  assert.equal(stopped.json.tools?.stopped?.reason, "needs_approval", JSON.stringify(stopped.json));
  const answered = await ops("POST", "/v1/sessions/m1/tool-approvals", { decisions: [{ tool_call_id: stopped.json.tools.stopped.request_id, decision: "allow" }] });
  assert.equal(answered.status, 200, JSON.stringify(answered.json));
  assert.equal((await ops("POST", "/v1/sessions/m1/bash", { script: "tools slow ms=1" })).json.stdout, "slow done\n");

  const m = await ops("GET", "/metrics");
  assert.equal(m.status, 200);
  assert.match(m.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const text = m.json as string;
  assert.equal(sample(text, 'toolshell_shell_calls_total{outcome="ok"}'), 2);
  assert.equal(sample(text, 'toolshell_shell_calls_total{outcome="failed"}'), 1);
  assert.equal(sample(text, 'toolshell_shell_calls_total{outcome="stopped"}'), 1);
  assert.equal(sample(text, 'toolshell_tool_calls_total{status="completed"}'), 1);
  assert.equal(sample(text, "toolshell_approvals_requested_total"), 1);
  assert.equal(sample(text, 'toolshell_approvals_answered_total{decision="allow"}'), 1);
  assert.equal(sample(text, 'toolshell_http_requests_total{method="POST",code="201"}'), 1);
  assert.equal(sample(text, 'toolshell_http_requests_total{method="GET",code="401"}'), 1);
  assert.equal(sample(text, "toolshell_shell_calls_running"), 0);
  assert.equal(sample(text, "toolshell_store_up"), 1);
  assert.equal(sample(text, "toolshell_stopping"), 0);
  assert.ok((sample(text, "process_resident_memory_bytes") ?? 0) > 0, "Node's process metrics are there");
  // No series names a session, a tool or a path.
  assert.doesNotMatch(text, /m1|slow|\/v1\//);
});

test("a replica that loses its PostgreSQL connection logs store.lost, is not ready, and logs store.restored when the database takes connections again", async (t) => {
  const url = await freshDatabase(t);
  const name = new URL(url).pathname.slice(1);
  const admin = new pg.Client({ connectionString: await serverUrl() });
  await admin.connect();
  t.after(async () => {
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`).catch(() => {});
    await admin.end();
  });
  const s = await serve(t, url);
  const ops = apiCaller(s.url, OPS);
  assert.deepEqual((await ops("GET", "/readyz", undefined, {})).json, { ok: true });

  // The database refuses new connections and every open one is cut: what a restarted or unreachable server looks like.
  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
  await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name]);
  const lost = await eventually("store.lost in the log", () => s.log().find((l) => l.event === "store.lost"));
  assert.equal(lost.level, "error");
  assert.match(String(lost.message), /lost the connection to the PostgreSQL store at postgres:\/\/.*reconnecting/);
  const notReady = await eventually("/readyz 503", async () => {
    const r = await ops("GET", "/readyz", undefined, {});
    return r.status === 503 ? r : undefined;
  });
  assert.equal(notReady.json.ok, false);
  assert.match(notReady.json.store, /did not answer/);
  assert.equal(sample((await ops("GET", "/metrics")).json as string, "toolshell_store_up"), 0);
  assert.equal(s.log().filter((l) => l.event === "store.lost").length, 1, "said once per loss, not at every retry");

  await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
  const restored = await eventually("store.restored in the log", () => s.log().find((l) => l.event === "store.restored"));
  assert.equal(restored.level, "info");
  await eventually("/readyz 200 again", async () => ((await ops("GET", "/readyz", undefined, {})).status === 200 ? true : undefined));
  assert.equal((await ops("POST", "/v1/sessions", { id: "after" })).status, 201);
});
