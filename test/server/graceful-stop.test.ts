/**
 * A replica told to stop (SIGTERM, SIGINT) lets the shell calls in flight end, answers them and
 * records them before it closes; it takes no new requests meanwhile; a second signal stops it at
 * once (docs/deployment.md "Stopping a replica"). Real `toolshell serve` and `toolshell mcp
 * --http` processes (node dist/cli/main.js, after `npm run build`) on a real SQLite file.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { apiCaller } from "../fixtures/api-call.js";
import { eventually } from "../fixtures/eventually.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOOLS = path.join(REPO_ROOT, "test/fixtures/stopping/tools");
const TOKEN = "stop-token-0123456789abcdef";

function folder(t: TestContext): string {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = tempDir(t, "toolshell-stop-");
  writeFileSync(path.join(dir, "ran.log"), "");
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ store: "state.db", tools: TOOLS, server: { tokens: [{ name: "ops", token: TOKEN }] } }));
  return dir;
}

/** Starts `toolshell <args>` in `dir` and waits for the address it prints on stderr. */
async function start(t: TestContext, dir: string, args: string[], address: RegExp) {
  const child = spawn(process.execPath, [CLI, ...args, "--config", path.join(dir, "toolshell.config.json")], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TOOLSHELL_TEST_LOG: path.join(dir, "ran.log") },
  });
  let err = "";
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const m = address.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited (${code}):\n${err}`)));
  });
  return { child, url, exited, stderr: () => err, stdout: () => out };
}

const ran = (dir: string) => readFileSync(path.join(dir, "ran.log"), "utf8");

test("serve: SIGTERM during a call lets it end, answers and records it; the same step on the next start is replayed, not run again", async (t) => {
  const dir = folder(t);
  const a = await start(t, dir, ["serve", "--port", "0"], /serving (http:\/\/127\.0\.0\.1:\d+)/);
  const call = apiCaller(a.url, TOKEN);
  assert.equal((await call("POST", "/v1/sessions", { id: "s1" })).status, 201);
  const request = { script: "tools slow ms=2500; echo after", step_id: "stop/1" };
  const answer = call("POST", "/v1/sessions/s1/bash", request);
  await eventually("the tool started", () => ran(dir) === "start\n");
  a.child.kill("SIGTERM");
  await eventually("serve says it waits", () => /toolshell: stopping: 1 shell call\(s\) in flight end first/.test(a.stderr()));
  const refused = await call("GET", "/healthz").catch((err: Error) => ({ status: 0, json: String(err.cause ?? err) }));
  assert.notEqual(refused.status, 200, `a stopping replica takes no new request: ${JSON.stringify(refused)}`);
  const r = await answer;
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.equal(r.json.stdout, "slow done\nafter\n", JSON.stringify(r.json));
  assert.equal(await a.exited, 0, a.stderr());
  assert.equal(ran(dir), "start\ndone\n", "the call ran to its end, once");

  const b = await start(t, dir, ["serve", "--port", "0"], /serving (http:\/\/127\.0\.0\.1:\d+)/);
  const again = await apiCaller(b.url, TOKEN)("POST", "/v1/sessions/s1/bash", request);
  assert.equal(again.json.stdout, "slow done\nafter\n", JSON.stringify(again.json));
  assert.equal(ran(dir), "start\ndone\n", "the step was recorded: asked again, it answers from its record");
  b.child.kill("SIGTERM");
  assert.equal(await b.exited, 0, "with nothing in flight it stops at once");
});

test("serve: a second signal stops at once, saying the calls still running end as interrupted", async (t) => {
  const dir = folder(t);
  const a = await start(t, dir, ["serve", "--port", "0"], /serving (http:\/\/127\.0\.0\.1:\d+)/);
  const call = apiCaller(a.url, TOKEN);
  assert.equal((await call("POST", "/v1/sessions", { id: "s2" })).status, 201);
  const answer = call("POST", "/v1/sessions/s2/bash", { script: "tools slow ms=600000" }).catch(() => undefined);
  await eventually("the tool started", () => ran(dir) === "start\n");
  a.child.kill("SIGTERM");
  await eventually("serve says it waits", () => /in flight end first/.test(a.stderr()));
  a.child.kill("SIGTERM");
  assert.equal(await a.exited, 0, a.stderr());
  assert.match(a.stderr(), /stopping with 1 shell call\(s\) still running \(a second signal\): they end as interrupted and run again when asked again/);
  await answer;
});

test("serve: a second signal stops at once while a script sleeps with no tool in flight, and the log's last line says it stopped", async (t) => {
  const dir = folder(t);
  const a = await start(t, dir, ["serve", "--port", "0"], /serving (http:\/\/127\.0\.0\.1:\d+)/);
  const call = apiCaller(a.url, TOKEN);
  assert.equal((await call("POST", "/v1/sessions", { id: "s3" })).status, 201);
  const answer = call("POST", "/v1/sessions/s3/bash", { script: "echo started > started.txt; sleep 600" }).catch(() => undefined);
  await eventually("the script started", async () => (await call("GET", "/v1/sessions/s3/events")).json.events?.some((e: { type: string }) => e.type === "shell_call.started"));
  a.child.kill("SIGTERM");
  await eventually("serve says it waits", () => /in flight end first/.test(a.stderr()));
  a.child.kill("SIGINT");
  // It stayed until the sleep ended (600 s): a hang, turned into a failure naming it.
  await eventually("serve exited while the script still slept", () => a.child.exitCode !== null || a.child.signalCode !== null);
  assert.equal(await a.exited, 0, a.stderr());
  const last = a.stdout().trim().split("\n").pop() ?? "";
  assert.equal(JSON.parse(last).event, "serve.stopped", last);
  assert.equal(JSON.parse(last).ended, "signal");
  await answer;
});

test("the HTTP gateway: SIGTERM during a tools/call lets it end and answers it", async (t) => {
  const dir = folder(t);
  const g = await start(t, dir, ["mcp", "--http", "0"], /Streamable HTTP at (http:\/\/\S+\/mcp)/);
  const post = (body: unknown, session?: string) =>
    fetch(g.url, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: "application/json, text/event-stream", ...(session ? { "mcp-session-id": session } : {}) },
      body: JSON.stringify(body),
    });
  const init = await post({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
  const session = init.headers.get("mcp-session-id") ?? undefined;
  await init.text();
  await (await post({ jsonrpc: "2.0", method: "notifications/initialized" }, session)).text();
  // Its liveness probe is open, as serve's.
  const health = await fetch(new URL("/healthz", g.url));
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { ok: true });
  const answer = post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bash", arguments: { command: "tools slow ms=2500; echo after" } } }, session).then((r) => r.text());
  await eventually("the tool started", () => ran(dir) === "start\n");
  g.child.kill("SIGTERM");
  await eventually("the gateway says it waits", () => /toolshell mcp: stopping: 1 shell call\(s\) in flight end first/.test(g.stderr()));
  assert.match(await answer, /slow done\\nafter/);
  assert.equal(await g.exited, 0, g.stderr());
  assert.equal(ran(dir), "start\ndone\n");
});
