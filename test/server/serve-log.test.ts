/**
 * The operator's log of a real `toolshell serve` (node dist/cli/main.js, after `npm run build`):
 * one JSON line per request, approval asked and answered, change, trigger run, and the replica's
 * start and stop, on stdout, filtered by `--log-level`; secrets redacted.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { apiCaller } from "../fixtures/api-call.js";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { eventually } from "../fixtures/eventually.js";
import { openStore } from "../../src/store/index.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOOLS = path.join(REPO_ROOT, "test/fixtures/replicas/agent/tools");
const TOKEN = "log-token-0123456789abcdef";

async function serve(t: TestContext, dir: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", "--config", path.join(dir, "toolshell.config.json"), ...args], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, TOOLSHELL_TEST_LOG: path.join(dir, "ran.log"), TOOLSHELL_TEST_REPLICA: "a" },
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d));
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const m = /serving (http:\/\/127\.0\.0\.1:\d+)/.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve exited (${code}):\n${err}`)));
  });
  const call = apiCaller(url, TOKEN);
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
    return out.split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, any>);
  };
  return { url, call, stop, stderr: () => err };
}

function folder(t: TestContext): string {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-log-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "ran.log"), "");
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ store: "state.db", tools: TOOLS, manageScripts: true, server: { tokens: [{ name: "ops", token: TOKEN }] } }));
  return dir;
}

test("serve logs requests, approvals, changes, trigger runs and its start and stop as JSON lines on stdout", async (t) => {
  const dir = folder(t);
  const s = await serve(t, dir, []);
  assert.equal((await s.call("POST", "/v1/sessions", { id: "log-1" })).status, 201);
  const stop = await s.call("POST", "/v1/sessions/log-1/bash", { script: "tools pay to=zoe" });
  const requestId = stop.json.tools.stopped.request_id;
  assert.equal((await s.call("POST", "/v1/sessions/log-1/tool-approvals", { decisions: [{ request_id: requestId, decision: "reject" }] })).status, 200);
  assert.equal((await s.call("POST", "/v1/agents/default/scripts", { name: "hello", description: "says hi", body: "echo hi" })).status, 201);
  const trig = await s.call("POST", "/v1/agents/default/triggers", { name: "hello-hook", script: "hello", webhook: true });
  assert.equal(trig.status, 201, JSON.stringify(trig.json));
  const ran = await s.call("POST", `/v1/agents/default/triggers/${trig.json.id}/run`, {});
  assert.equal(ran.json.status, "ok", JSON.stringify(ran.json));
  // A request with the token in its query: the token never reaches the log.
  await fetch(`${s.url}/v1/sessions?token=${TOKEN}`);
  const lines = await s.stop();

  for (const l of lines) {
    assert.equal(typeof l.time, "string");
    assert.ok(["debug", "info", "warn", "error"].includes(l.level), JSON.stringify(l));
    assert.equal(typeof l.event, "string");
  }
  const of = (event: string) => lines.filter((l) => l.event === event);
  assert.equal(of("serve.started").length, 1);
  assert.equal(of("serve.started")[0].url, s.url);
  // From the start line on, every line names the replica that wrote it (its heartbeat id).
  const replica = of("serve.started")[0].replica;
  assert.match(String(replica), /^rep_[0-9a-f]{16}$/);
  const fromStart = lines.slice(lines.indexOf(of("serve.started")[0]));
  assert.deepEqual(fromStart.filter((l) => l.replica !== replica), [], "every line names the replica");
  assert.equal(of("serve.stopping").length, 1);
  const requests = of("request");
  assert.ok(requests.some((l) => l.method === "POST" && l.path === "/v1/sessions/log-1/bash" && l.status === 200 && l.by === "ops" && typeof l.ms === "number"), JSON.stringify(requests));
  assert.ok(requests.some((l) => l.path === "/v1/sessions" && l.status === 401), "a refused request is logged too");
  assert.deepEqual(of("approval.requested").map((l) => [l.session_id, l.request_id]), [["log-1", requestId]]);
  assert.deepEqual(of("approval.answered").map((l) => [l.request_id, l.decision, l.by, l.surface]), [[requestId, "reject", "ops", "api"]]);
  assert.ok(of("change.made").some((l) => l.what === "script hello saved (agent default)" && l.by === "ops"));
  assert.ok(of("trigger.run").some((l) => l.trigger_name === "hello-hook" && l.status === "ok"), JSON.stringify(of("trigger.run")));
  assert.doesNotMatch(JSON.stringify(lines), new RegExp(TOKEN), "no token in the log");
});

test("--log-level: warn leaves out info lines; off logs nothing; a bad level is refused", async (t) => {
  const dir = folder(t);
  const quiet = await serve(t, dir, ["--log-level", "warn"]);
  assert.equal((await quiet.call("POST", "/v1/sessions", { id: "log-2" })).status, 201);
  assert.deepEqual(await quiet.stop(), []);
  const bad = spawnSync(process.execPath, [CLI, "serve", "--port", "0", "--log-level", "chatty", "--config", path.join(dir, "toolshell.config.json")], { cwd: dir, encoding: "utf8", timeout: 60_000 });
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--log-level takes one of debug, info, warn, error, off, got "chatty"/);
  // debug: the shell calls too.
  const loud = await serve(t, dir, ["--log-level", "debug"]);
  assert.equal((await loud.call("POST", "/v1/sessions/log-2/bash", { script: "echo hi" })).status, 200);
  const lines = await loud.stop();
  assert.ok(lines.some((l) => l.event === "shell_call.ended" && l.level === "debug"));
});

test("a console form relayed to /v1 is logged with the browser's address, the signed-in token's name and the console surface", async (t) => {
  const dir = folder(t);
  const s = await serve(t, dir, []);
  const form = await fetch(`${s.url}/console/triggers/trg_none/enabled`, {
    method: "POST",
    headers: { cookie: `__Host-toolshell-token=${TOKEN}`, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: "enabled=false",
  });
  assert.equal(form.status >= 400, true, await form.text());
  const lines = await s.stop();
  const relayed = lines.find((l) => l.event === "request" && l.path === "/v1/agents/-/triggers/trg_none");
  assert.ok(relayed, JSON.stringify(lines));
  assert.equal(relayed.client, "127.0.0.1");
  assert.equal(relayed.by, "ops");
  assert.equal(relayed.surface, "console");
  const page = lines.find((l) => l.event === "request" && l.path === "/console/triggers/trg_none/enabled");
  assert.equal(page?.by, "ops");
  assert.equal(page?.surface, "console");
});

test("serve logs what it says of its config file and the store: a reload, a change it cannot take in, a server changed through the store", async (t) => {
  const dir = folder(t);
  const s = await serve(t, dir, []);
  const file = path.join(dir, "toolshell.config.json");
  const config = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  writeFileSync(file, JSON.stringify({ ...config, approval: { mode: "protective" }, callLimit: 7 }));
  await eventually("the reload", () => /reloaded: .* changed/.test(s.stderr()) && /callLimit changed but cannot be reloaded/.test(s.stderr()));
  // Another process (another replica's API, the console) adds a server in the store.
  const other = await openStore(path.join(dir, "state.db"));
  await other.putShared("server", "extra", { entry: { command: process.execPath, args: ["-e", "0"], load: "on_demand" } });
  await other.close();
  await eventually("the server change seen through the store", () => /servers changed from the store .*: extra added/.test(s.stderr()));
  const lines = await s.stop();
  const of = (event: string) => lines.filter((l) => l.event === event);
  assert.match(String(of("config.reloaded")[0]?.message), /reloaded: .* changed/, JSON.stringify(lines.map((l) => l.event)));
  assert.equal(of("config.reloaded")[0]?.level, "info");
  assert.match(String(of("config.needs_restart")[0]?.message), /callLimit changed but cannot be reloaded by a running host/);
  assert.equal(of("config.needs_restart")[0]?.level, "warn");
  assert.match(String(of("servers.changed")[0]?.message), /extra added/);
});
