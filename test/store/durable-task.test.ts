/**
 * A durable step whose call the MCP server answered with a task (Tasks extension) re-attaches to
 * that task when it runs again, on each kind of store (stores.ts): a child process starts the
 * step against a real 2026 server over Streamable HTTP (test/fixtures/mcp/modern-server.ts
 * --http, tool `job` held until the test finishes it), is killed with SIGKILL while the task
 * runs, and a new process resumes the step. The server's own count of starts shows the work
 * started once; the resumed step's result is the task's. When the server no longer knows the task
 * (a new server process), the resumed call answers `tool_error` naming it and starts nothing.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { ShellResult } from "../../src/runtime/index.js";
import { stopChild } from "../fixtures/child.js";
import { eventually } from "../fixtures/eventually.js";
import { tsxCommand } from "../fixtures/mcp/index.js";
import { tempDir } from "../fixtures/temp.js";
import { STORES } from "./stores.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const MODERN_SERVER = path.join(here, "../fixtures/mcp/modern-server.ts");
const CHILD = path.join(here, "../fixtures/durable/task-child.ts");

/** The 2026 server over HTTP, with what it wrote on stderr (`job started <id>`, `job polled <id>`). */
async function startServer(t: { after(fn: () => unknown): void }): Promise<{ url: string; child: ChildProcess; lines: () => string[] }> {
  const cmd = tsxCommand(MODERN_SERVER, ["--http"]);
  const child = spawn(cmd.command, cmd.args, { stdio: ["pipe", "pipe", "pipe"] });
  t.after(() => stopChild(child));
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const url = await eventually("the server's URL", () => /listening (\S+)/.exec(out)?.[1]);
  return { url, child, lines: () => err.split("\n") };
}

function runChild(store: string, url: string, ...more: string[]) {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), CHILD, store, url, ...more], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, exited, out: () => stdout, err: () => stderr };
}

const count = (lines: string[], line: string) => lines.filter((l) => l === line).length;

for (const kind of STORES) {
  test(`${kind.name}: a step killed while its call's upstream task runs follows that task when resumed, without starting the work again`, async (t) => {
    const location = kind.name === "sqlite" ? path.join(tempDir(t), "state.db") : await kind.location(t);
    const server = await startServer(t);
    const first = runChild(location, server.url);
    t.after(() => stopChild(first.child));
    await eventually("the job started", () => count(server.lines(), "job started durable-task") === 1 || undefined);
    // The store keeps the task before the process is killed (it is written when the task comes).
    const store = await kind.open(location);
    t.after(() => store.close());
    await eventually("the task in the store", async () => (await store.recordedCalls("tasks", "call_bash_1")).find((c) => c.task === "durable-task"));
    first.child.kill("SIGKILL");
    assert.equal((await first.exited).signal, "SIGKILL");

    const polled = count(server.lines(), "job polled durable-task");
    const second = runChild(location, server.url);
    t.after(() => stopChild(second.child));
    // The resumed step follows the task: the server sees it polled again, then the test lets it finish.
    await eventually("the resumed step polling the task", () => count(server.lines(), "job polled durable-task") > polled || undefined);
    server.child.stdin!.write("finish durable-task\n");
    const ended = await second.exited;
    assert.equal(ended.code, 0, second.err());
    const result = JSON.parse(second.out()) as ShellResult;
    assert.equal(result.exit_code, 0, JSON.stringify(result));
    assert.equal(result.stdout, "before\njob done\nafter\n");
    assert.equal(count(server.lines(), "job started durable-task"), 1, server.lines().join("\n"));
    // The completed call's record replaced the task's: the step is done, and asked again it is not run.
    assert.deepEqual((await store.recordedCalls("tasks", "call_bash_1")).map((c) => c.task), [undefined]);
  });
}

test("sqlite: a resumed step whose upstream task the server no longer knows answers tool_error naming it, and does not start the work again", async (t) => {
  const location = path.join(tempDir(t), "state.db");
  const before = await startServer(t);
  const first = runChild(location, before.url);
  t.after(() => stopChild(first.child));
  await eventually("the job started", () => count(before.lines(), "job started durable-task") === 1 || undefined);
  const store = await STORES[0].open(location);
  t.after(() => store.close());
  await eventually("the task in the store", async () => (await store.recordedCalls("tasks", "call_bash_1")).find((c) => c.task === "durable-task"));
  first.child.kill("SIGKILL");
  await first.exited;
  await stopChild(before.child);

  // A new server process: it knows no task.
  const after = await startServer(t);
  const second = runChild(location, after.url);
  t.after(() => stopChild(second.child));
  assert.equal((await second.exited).code, 0, second.err());
  const result = JSON.parse(second.out()) as ShellResult;
  // The call fails; the script goes on (no `set -e`).
  assert.equal(result.stdout, "before\nafter\n", JSON.stringify(result));
  assert.match(result.stderr, /"code":"tool_error"/);
  assert.match(result.stderr, /task durable-task, started by an earlier attempt of this call, cannot be followed .*run the step under a new step id/);
  assert.equal(count(after.lines(), "job started durable-task"), 0, after.lines().join("\n"));
});

test("sqlite: a resumed step following an approved call's task asks nothing again: the work was approved when it started", async (t) => {
  const location = path.join(tempDir(t), "state.db");
  const server = await startServer(t);
  const first = runChild(location, server.url, "gated");
  t.after(() => stopChild(first.child));
  await eventually("the job started", () => count(server.lines(), "job started durable-task") === 1 || undefined);
  const store = await STORES[0].open(location);
  t.after(() => store.close());
  await eventually("the task in the store", async () => (await store.recordedCalls("tasks", "call_bash_1")).find((c) => c.task === "durable-task"));
  first.child.kill("SIGKILL");
  await first.exited;
  const requested = async () => (await store.listEvents("tasks", { limit: 1000 })).filter((e) => e.type === "approval.requested").length;
  assert.equal(await requested(), 1, "asked once, before the work started");

  const polled = count(server.lines(), "job polled durable-task");
  const second = runChild(location, server.url, "gated");
  t.after(() => stopChild(second.child));
  await eventually("the resumed step polling the task", () => count(server.lines(), "job polled durable-task") > polled || undefined);
  server.child.stdin!.write("finish durable-task\n");
  assert.equal((await second.exited).code, 0, second.err());
  const result = JSON.parse(second.out()) as ShellResult;
  assert.equal(result.stdout, "before\njob done\nafter\n", JSON.stringify(result));
  assert.equal(await requested(), 1, "no new request for following the task");
  assert.deepEqual(await store.pendingApprovals(), []);
  assert.equal(count(server.lines(), "job started durable-task"), 1);
});
