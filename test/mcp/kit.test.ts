/**
 * McpServerSource against the McpServer fixture over stdio: hints, isError, call timeout,
 * a process that dies mid-call, list_changed, on-demand spawning, start failures, the log file.
 */
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { ToolCallError } from "../../src/tool/types.js";
import { eventually } from "../fixtures/eventually.js";
import { KIT_SERVER, tsxCommand } from "../fixtures/mcp/index.js";
import { call, closeAll, ctx, rejection, sourceFor, tempDir, tool } from "./helpers.js";

after(closeAll);

const kit = (extra: Record<string, unknown> = {}, args: string[] = []) => ({ ...tsxCommand(KIT_SERVER, args), ...extra });

test("lists tools with hints only where annotations were declared", async () => {
  const source = sourceFor("kit", kit());
  await source.load();
  assert.equal(source.state(), "ready");
  const plain = tool(source, "plain");
  assert.equal(plain.source, "kit");
  assert.equal(plain.grouped, true);
  assert.deepEqual(plain.hints, {});
  assert.equal(plain.hintsDeclared, false);
  assert.equal(plain.description, "Echoes text; declares no annotations");
  const annotated = tool(source, "annotated");
  assert.deepEqual(annotated.hints, { readOnly: true, openWorld: false });
  assert.equal(annotated.hintsDeclared, true);

  assert.deepEqual(await call(source, "plain", { text: "hi" }), {
    kind: "text",
    text: "plain: hi",
    raw: { content: [{ type: "text", text: "plain: hi" }] },
  });
  const bad = await plain.validate({ text: 5 });
  assert.equal(bad.ok, false);
});

test("isError answers tool_error with the server's text", async () => {
  const source = sourceFor("kit", kit());
  await source.load();
  const error = await rejection(() => call(source, "fail"));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "tool_error");
  assert.equal(error.message, "it broke: disk full");
  assert.equal(error.retryable, false);
});

test("a call past callTimeoutMs answers unavailable, retryable; the server keeps working", async () => {
  const source = sourceFor("kit", kit({ callTimeoutMs: 300 }));
  await source.load();
  const error = await rejection(() => call(source, "slow", { ms: 20_000 }));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.equal(error.retryable, true);
  assert.match(error.message, /"kit".*"slow".*300 ms/);
  assert.equal((await call(source, "slow", { ms: 1 })).text, "done");
});

test("ctx.signal aborts a call", async () => {
  const source = sourceFor("kit", kit());
  await source.load();
  const controller = new AbortController();
  const pending = call(source, "slow", { ms: 20_000 }, ctx(controller.signal));
  setTimeout(() => controller.abort(), 50);
  const error = await rejection(() => pending);
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.match(error.message, /aborted/);
  assert.equal((await call(source, "plain", { text: "after" })).text, "plain: after");
});

test("one shell call's signal shared by many calls keeps no listeners", async () => {
  const source = sourceFor("kit", kit());
  await source.load();
  const controller = new AbortController();
  for (let i = 0; i < 15; i++) assert.equal((await call(source, "plain", { text: String(i) }, ctx(controller.signal))).text, `plain: ${i}`);
  assert.equal(getEventListeners(controller.signal, "abort").length, 0);
  controller.abort();
  assert.equal((await call(source, "plain", { text: "still up" })).text, "plain: still up");
});

test("a server that dies mid-call answers unavailable; the next call restarts it", async () => {
  const starts = path.join(tempDir(), "starts.txt");
  const source = sourceFor("kit", kit({ env: { FIXTURE_STARTS_FILE: starts } }));
  await source.load();
  const firstPid = source.pid();
  assert.ok(firstPid);
  const error = await rejection(() => call(source, "crash"));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.equal(error.retryable, true);
  assert.equal(source.pid(), undefined);
  assert.equal(source.state(), "ready");

  const out = await call(source, "pid");
  assert.notEqual(out.text, String(firstPid));
  assert.equal(out.text, String(source.pid()));
  assert.deepEqual(readFileSync(starts, "utf8").trim().split("\n"), [String(firstPid), out.text]);
});

test("follows notifications/tools/list_changed", async () => {
  const source = sourceFor("kit", kit());
  await source.load();
  assert.equal(source.tools().some((t) => t.name === "added_1"), false);
  const changed = new Promise<string[]>((resolve) => source.onToolsChanged((tools) => resolve(tools.map((t) => t.name))));
  assert.equal((await call(source, "add_tool")).text, "added_1");
  assert.ok((await changed).includes("added_1"));
  assert.equal((await call(source, "added_1")).text, "added_1");
});

test("an on_demand server is not spawned until loaded; concurrent loads share one start", async () => {
  const starts = path.join(tempDir(), "starts.txt");
  const source = sourceFor("lazy", kit({ load: "on_demand", env: { FIXTURE_STARTS_FILE: starts } }));
  assert.equal(source.config.load, "on_demand");
  assert.equal(source.state(), "not_loaded");
  assert.deepEqual(source.tools(), []);
  assert.equal(source.pid(), undefined);
  assert.equal(existsSync(starts), false);

  await Promise.all([source.load(), source.load(), source.load()]);
  await source.load();
  assert.equal(source.state(), "ready");
  const pids = readFileSync(starts, "utf8").trim().split("\n");
  assert.deepEqual(pids, [String(source.pid())]);
});

test("a server that fails to start is failed with the reason; the next load after a back-off tries again", async () => {
  const starts = path.join(tempDir(), "starts.txt");
  const source = sourceFor("broken", kit({ env: { FIXTURE_STARTS_FILE: starts } }, ["fail-start"]));
  const error = await rejection(() => source.load());
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.match(error.message, /"broken"/);
  assert.match(error.message, /FIXTURE_TOKEN is missing/);
  assert.equal(source.state(), "failed");
  assert.equal(source.failure(), error);

  // Right away: the same failure, no new process (a script looping over a broken server).
  assert.equal(await rejection(() => source.load()), error);
  assert.equal(readFileSync(starts, "utf8").trim().split("\n").length, 1);
  // After the back-off (1 s after the first failure) a load starts it again.
  await eventually("a load after the back-off starting the server again", async () => {
    await rejection(() => source.load());
    return readFileSync(starts, "utf8").trim().split("\n").length === 2;
  });
});

test("close() ends a start in progress at once", async () => {
  // The server writes a mark once its process runs, then never answers initialize.
  const mark = path.join(tempDir(), "running");
  const source = sourceFor("slowstart", { command: process.execPath, args: ["-e", "require('fs').writeFileSync(process.env.MARK, ''); setTimeout(() => {}, 60000)"], env: { MARK: mark }, connectTimeoutMs: 60_000 });
  const loading = rejection(() => source.load());
  await eventually("the server's process running", () => existsSync(mark));
  await source.close();
  const error = await loading;
  assert.ok(error instanceof ToolCallError);
  assert.match(error.message, /closed/);
});

test("a command that does not exist fails without retry, naming the server", async () => {
  const source = sourceFor("ghost", { command: "/nonexistent/toolshell-no-such-server" });
  const error = await rejection(() => source.load());
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.equal(error.retryable, false);
  assert.match(error.message, /"ghost" could not start/);
  assert.equal(source.state(), "failed");
});

test("a start past connectTimeoutMs answers unavailable, retryable", async () => {
  // `node -e` with a timer never answers initialize.
  const source = sourceFor("mute", { command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)"], connectTimeoutMs: 300 });
  const error = await rejection(() => source.load());
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.equal(error.retryable, true);
  assert.match(error.message, /within 300 ms/);
  assert.equal(source.state(), "failed");
});

test("a server that cannot start as configured says why and is not retryable; a crash that may pass stays retryable", async () => {
  // Node's own report of a missing module ends with `{ code: 'MODULE_NOT_FOUND' … }` and its
  // version, after the line that says what is missing; the stack frames say nothing.
  const missing = sourceFor("missing", { command: process.execPath, args: [path.join(tempDir(), "not-there.js")] });
  const error = await rejection(() => missing.load());
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.match(error.message, /Cannot find module '[^']*not-there\.js'/);
  assert.doesNotMatch(error.message, /\n\s+at /, "no stack frames");
  assert.equal(error.retryable, false, "starting it again fails the same way");
  // The same for a server whose code does not parse.
  const broken = sourceFor("broken", { command: process.execPath, args: ["-e", "this is not javascript"] });
  const parse = await rejection(() => broken.load());
  assert.ok(parse instanceof ToolCallError);
  assert.match(parse.message, /SyntaxError/);
  assert.equal(parse.retryable, false);
  // Control: a server that dies of something else at start may start next time.
  const crash = sourceFor("crash", { command: process.execPath, args: ["-e", "console.error('out of luck this time'); process.exit(3)"] });
  const crashed = await rejection(() => crash.load());
  assert.ok(crashed instanceof ToolCallError);
  assert.match(crashed.message, /^MCP server "crash" exited while starting \(server stderr: out of luck this time\)$/, "what it said, no protocol-version detail");
  assert.equal(crashed.retryable, true);
  // A shell's "not found" (dash: `sh: 1: NAME: not found`) is a command that is not there.
  const absent = sourceFor("absent", { command: "sh", args: ["-c", "toolshell-no-such-command-xyz"] });
  const notFound = await rejection(() => absent.load());
  assert.ok(notFound instanceof ToolCallError);
  assert.match(notFound.message, /"absent" could not start \(server stderr: \S*sh: \d+: toolshell-no-such-command-xyz: not found\)/);
  assert.equal(notFound.retryable, false);
});

test("server stderr goes to its log file", async () => {
  const logDir = tempDir();
  const source = sourceFor("kit", kit(), logDir);
  await source.load();
  await call(source, "say_stderr", { line: "a line only the log sees" });
  await call(source, "plain", { text: "flush" });
  await source.close();
  assert.equal(source.logFile, path.join(logDir, "kit.log"));
  const log = readFileSync(source.logFile, "utf8");
  assert.match(log, /a line only the log sees/);
  assert.match(log, /toolshell: connected over stdio/);
});

test("close ends the process and later calls answer unavailable", async () => {
  const source = sourceFor("kit", kit());
  await source.load();
  const pid = source.pid();
  assert.ok(pid);
  await source.close();
  assert.equal(source.pid(), undefined);
  assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
  const error = await rejection(() => call(source, "plain", { text: "x" }));
  assert.ok(error instanceof ToolCallError);
  assert.equal(error.code, "unavailable");
  assert.equal(error.retryable, false);
});
