/**
 * A running host acts on the settings the person has now, on each host kind through the built
 * CLI: `toolshell serve` reloads approval rules and tool files written while it runs (and says
 * so on stderr); the warm CLI host is replaced when a local tool file changes or is deleted.
 * (The library watcher: test/runtime/config-reload.unit.test.ts.)
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { REPO_ROOT } from "../fixtures/mcp/index.js";
import { toolFile } from "../fixtures/tool-file.js";
import { eventually } from "../fixtures/eventually.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");
const TOKEN = "reload-test-token-0123456789";
const SAFE = "hints: { readOnly: false, destructive: false, openWorld: false },";
const DESTRUCTIVE = "hints: { readOnly: false, destructive: true, openWorld: false },";

function workdir(t: TestContext) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-host-reload-"));
  mkdirSync(path.join(dir, "agent/tools"), { recursive: true });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("toolshell serve: approval rules and tool files written while it runs judge the next call; stderr says what was reloaded", async (t) => {
  const dir = workdir(t);
  const cfg = path.join(dir, "toolshell.config.json");
  const write = (approval: unknown) => writeFileSync(cfg, JSON.stringify({ server: { tokens: [TOKEN] }, approval }));
  write({ mode: "normal" });
  writeFileSync(path.join(dir, "agent/tools/mark.mjs"), toolFile(SAFE));
  const child: ChildProcess = spawn(process.execPath, [CLI, "serve", "--port", "0", "--no-triggers"], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  t.after(async () => {
    if (child.exitCode !== null) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await gone;
  });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", () => {
      const m = /serving (http:\/\/\S+) /.exec(err);
      if (m) resolve(m[1]);
    });
    child.once("exit", () => reject(new Error(`serve exited: ${err}`)));
  });
  const call = async (p: string, body: unknown) => (await fetch(url + p, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<any>;
  await call("/v1/sessions", { id: "r1" });
  const bash = (script: string) => call("/v1/sessions/r1/bash", { script });
  assert.equal((await bash("tools mark")).stdout, "marked\n", "control: it runs without asking");

  write({ mode: "normal", tools: { mark: "always" } });
  await eventually("the reload line", () => /reloaded: approval\.tools changed/.test(err));
  assert.equal((await bash("tools mark")).tools?.stopped?.reason, "needs_approval");

  write({ mode: "normal", servers: {}, tools: { mark: "block" } });
  await eventually("the second reload line", () => (err.match(/reloaded: approval\.tools changed/g) ?? []).length >= 2);
  const blocked = await bash("tools mark");
  assert.notEqual(blocked.exit_code, 0);
  assert.doesNotMatch(blocked.stdout, /marked/);

  write({ mode: "normal" });
  await eventually("the rule taken away", async () => (await bash("tools mark")).stdout === "marked\n");
  writeFileSync(path.join(dir, "agent/tools/mark.mjs"), toolFile(DESTRUCTIVE));
  await eventually("the tool reload line", () => /reloaded: tool mark changed/.test(err));
  assert.equal((await bash("tools mark")).tools?.stopped?.reason, "needs_approval");

  writeFileSync(cfg, "{ broken");
  await eventually("the refused reload line", () => /not reloaded, the last good one is kept/.test(err));
});

test("warm CLI host: a tool file that gains a destructive hint, or is deleted, is not run by the old host", async (t) => {
  const dir = workdir(t);
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ approval: { mode: "normal" } }));
  writeFileSync(path.join(dir, "agent/tools/mark.mjs"), toolFile(SAFE));
  const sockets = path.join(dir, "sockets");
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, TOOLSHELL_DAEMON_DIR: sockets } });
  t.after(() => void cli(["daemon", "stop"]));
  for (let i = 0; i < 2; i++) assert.equal(cli(["exec", "tools mark"]).stdout, "marked\n", "control: the warm host runs it");
  assert.equal(cli(["daemon", "status"]).status, 0, "a warm host runs");
  writeFileSync(path.join(dir, "agent/tools/mark.mjs"), toolFile(DESTRUCTIVE));
  const asked = cli(["exec", "tools mark"]);
  assert.doesNotMatch(asked.stdout, /marked/, asked.stderr);
  assert.match(asked.stdout + asked.stderr, /approval/i);
  unlinkSync(path.join(dir, "agent/tools/mark.mjs"));
  const gone = cli(["exec", "tools mark"]);
  assert.match(gone.stdout + gone.stderr, /unknown_command|unknown command|no tool/i);
});
