/**
 * The CLI's warm host (README "The CLI" → "The warm host"), through the built CLI: started on
 * first use, reused (the same server process answers), restarted when the config changes,
 * stopped by `toolshell daemon stop`, gone after its idle time, bypassed by `--no-daemon`, and an
 * approval given through it, and a `postgres://` store (a real server, test/fixtures/postgres.ts)
 * handed to the host without its password ever on the host's command line. Each test has its
 * own private socket folder.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { pathToFileURL } from "node:url";
import { KIT_SERVER, NPM_SERVERS, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";
import { freshDatabase } from "../fixtures/postgres.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

function setup(t: TestContext, config?: object, flags: string[] = []) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const work = mkdtempSync(path.join(tmpdir(), "toolshell-daemon-"));
  const sockets = path.join(work, "sockets");
  const starts = path.join(work, "starts.txt");
  writeFileSync(starts, "");
  const kit = { ...tsxCommand(KIT_SERVER), env: { FIXTURE_STARTS_FILE: starts }, trust: true };
  const cfg = path.join(work, "toolshell.config.json");
  writeFileSync(cfg, JSON.stringify(config ?? { mcpServers: { kit } }));
  const cli = (args: string[], input = "") => {
    const r = spawnSync(process.execPath, [CLI, ...flags, ...args], {
      cwd: work,
      input,
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, TOOLSHELL_DAEMON_DIR: sockets },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  t.after(() => {
    cli(["daemon", "stop"]);
    rmSync(work, { recursive: true, force: true });
  });
  const serverStarts = () => readFileSync(starts, "utf8").trim().split("\n").filter(Boolean).length;
  return { work, sockets, cfg, kit, cli, serverStarts };
}

const pidOf = (status: string) => Number(/pid (\d+)/.exec(status)?.[1]);

test("the first run starts the warm host, later runs reuse it and its servers", async (t) => {
  const { work, sockets, cli, serverStarts } = setup(t);
  assert.equal(cli(["daemon", "status"]).status, 1, "no host before the first run");
  // The first run works in-process (its own server) and leaves a host starting for the next.
  const first = cli(["exec", "tools kit pid"]);
  assert.equal(first.status, 0, first.stderr);
  // The host starts in the background; on a busy machine it may still be starting.
  let status = cli(["daemon", "status"]);
  for (let i = 0; i < 300 && status.status !== 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = cli(["daemon", "status"]);
  }
  assert.equal(status.status, 0, status.stdout + status.stderr);
  assert.match(status.stdout, /running: pid \d+/);
  const second = cli(["exec", "tools kit pid; tools kit plain text=hi"]);
  assert.equal(second.status, 0, second.stderr);
  const third = cli(["exec", "tools kit pid"]);
  assert.equal(third.stdout, second.stdout.split("\n")[0] + "\n", "the same server process answered both later runs");
  assert.notEqual(third.stdout, first.stdout, "the first run's server was its own");
  assert.equal(serverStarts(), 2, "one start for the first run, one for the host");
  assert.equal(pidOf(cli(["daemon", "status"]).stdout), pidOf(status.stdout), "the same host");
  // The socket folder is private, the socket 0600.
  assert.equal(statSync(sockets).mode & 0o777, 0o700);
  const sock = readdirSync(sockets).find((f) => f.endsWith(".sock"))!;
  assert.equal(statSync(path.join(sockets, sock)).mode & 0o777, 0o600);
  // A script's exit code and both streams come through.
  const failing = cli(["exec", "echo out; echo err >&2; exit 7"]);
  assert.deepEqual([failing.status, failing.stdout, failing.stderr], [7, "out\n", "err\n"]);
  // A warm run loads none of the runtime (README "Performance": a warm exec costs little more than
  // Node's start): the modules it loads, recorded by a loader hook.
  const loaded = path.join(work, "loaded.txt");
  writeFileSync(path.join(work, "hooks.mjs"), `import { appendFileSync } from "node:fs";\nexport async function load(url, c, next) { appendFileSync(${JSON.stringify(loaded)}, url + "\\n"); return next(url, c); }\n`);
  writeFileSync(path.join(work, "register.mjs"), `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(path.join(work, "hooks.mjs")).href)});\n`);
  const hooked = spawnSync(process.execPath, ["--import", pathToFileURL(path.join(work, "register.mjs")).href, CLI, "exec", "tools kit pid"], { cwd: work, encoding: "utf8", timeout: 60_000, env: { ...process.env, TOOLSHELL_DAEMON_DIR: sockets } });
  assert.equal(hooked.stdout, third.stdout, "the warm host answered");
  const ours = readFileSync(loaded, "utf8").split("\n").filter((u) => u.includes("/dist/")).map((u) => u.slice(u.indexOf("/dist/") + 6));
  assert.ok(ours.includes("cli/daemon-client.js"), ours.join(" "));
  assert.deepEqual(ours.filter((m) => /^(call|shell|engine|runtime|server|mcp|store|catalog|surface)\/|^policy\/index/.test(m)), [], "a warm run loads no part of the runtime");
  // The plain `exec SCRIPT` goes to runCli without the parser (main.ts): no commander, no other command's definition.
  assert.deepEqual(readFileSync(loaded, "utf8").split("\n").filter((u) => u.includes("/node_modules/")), [], "a warm plain exec loads no package");
  assert.ok(!ours.includes("cli/program.js") && !ours.includes("cli/scripts.js"), ours.join(" "));
});

/** True once process `pid` has exited (it closes its servers first), looking for up to 20 s. */
async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

test("a changed config restarts the host; daemon stop stops it", async (t) => {
  const { cfg, kit, cli } = setup(t);
  for (let i = 0; i < 2; i++) {
    const run = cli(["exec", "tools kit pid"]);
    assert.equal(run.status, 0, run.stderr);
  }
  const before = pidOf(cli(["daemon", "status"]).stdout);
  writeFileSync(cfg, JSON.stringify({ mcpServers: { kit, again: kit } }));
  const r = cli(["exec", "tools again pid"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(cli(["exec", "tools again pid"]).status, 0);
  const after = pidOf(cli(["daemon", "status"]).stdout);
  assert.notEqual(after, before, "a new host for the new config");
  assert.ok(await gone(before), "the old host is gone");
  assert.equal(cli(["daemon", "stop"]).stdout, "stopped\n");
  assert.equal(cli(["daemon", "status"]).status, 1);
  assert.ok(await gone(after), "the host process is gone");
});

test("an idle host exits after its idle time; --no-daemon starts none", async (t) => {
  const { cli } = setup(t);
  const plain = cli(["--no-daemon", "exec", "tools kit plain text=direct"]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.equal(cli(["daemon", "status"]).status, 1, "--no-daemon ran in-process");
  const started = cli(["--daemon-idle", "1", "exec", "echo hi"]);
  assert.equal(started.status, 0, started.stderr);
  const pid = pidOf(cli(["daemon", "status"]).stdout);
  assert.ok(pid > 0);
  for (let i = 0; i < 100 && cli(["daemon", "status"]).status === 0; i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(cli(["daemon", "status"]).status, 1, "gone after 1 s idle");
});

test("an approval through the warm host: stop report, approve, run again; the events match --no-daemon", async (t) => {
  const work0 = mkdtempSync(path.join(tmpdir(), "toolshell-daemon-mem-"));
  t.after(() => rmSync(work0, { recursive: true, force: true }));
  const memory = { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(work0, "m.jsonl") }, trust: true };
  const { work, cli } = setup(t, { mcpServers: { memory } });
  writeFileSync(path.join(work, "s.sh"), `tools memory delete-entities entityNames='["q"]' && echo deleted\n`);
  const run = cli(["run", "s.sh"]);
  assert.equal(run.status, 3, run.stderr);
  const report = JSON.parse(run.stderr.trim().split("\n").pop()!);
  assert.equal(report.tools.stopped.reason, "needs_approval");
  assert.match(cli(["approvals"]).stdout, new RegExp(report.tools.stopped.request_id), "the pending request is listed");
  const approve = cli(["approve", report.tools.stopped.request_id, "allow"]);
  assert.equal(approve.status, 0, approve.stderr);
  const again = cli(["run", "s.sh"]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /deleted\n$/);
  // The same run in-process sees the same session (its approvals and events are in the store).
  const events = spawnSync(process.execPath, [CLI, "events", "cli", "--json"], { cwd: work, encoding: "utf8" });
  assert.equal(events.status, 0, events.stderr);
  const kinds = events.stdout.trim().split("\n").map((l) => JSON.parse(l).type as string);
  assert.ok(kinds.includes("approval.requested") && kinds.includes("approval.answered"), kinds.join(","));
  const third = cli(["--no-daemon", "run", "s.sh"]);
  assert.equal(third.status, 3, "allow was once: the in-process run stops again, as the host's would");
});

test("shell call ids are unique in a session across the warm host and --no-daemon runs; events nest each call under its own shell call", async (t) => {
  const { cli } = setup(t);
  const runs: string[] = [];
  const exec = (flags: string[], text: string) => {
    const r = cli([...flags, "exec", `tools kit plain text=${text}`]);
    assert.equal(r.status, 0, r.stderr);
    runs.push(text);
  };
  exec([], "one"); // in-process; starts the warm host
  for (let i = 0; i < 300 && cli(["daemon", "status"]).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
  exec([], "two"); // the warm host
  exec(["--no-daemon"], "three"); // another process on the same store
  exec([], "four"); // the warm host again: its own count is behind the store's
  exec(["--no-daemon", "--timeout", "20000"], "five");
  exec([], "six");
  const listed = cli(["--no-daemon", "events", "cli", "--json"]);
  assert.equal(listed.status, 0, listed.stderr);
  const all = listed.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const started = all.filter((e) => e.type === "shell_call.started");
  const ids = started.map((e) => String(e.tool_call_id));
  assert.equal(ids.length, runs.length);
  assert.equal(new Set(ids).size, ids.length, `one id per shell call: ${ids.join(", ")}`);
  // Each run's one nested call sits under its own shell call.
  const nested = all.filter((x) => x.type === "tool.nested_call").map((e) => String(e.parent_tool_call_id));
  assert.deepEqual(nested.sort(), [...ids].sort(), "one nested call under each shell call");
  // The human listing names every shell call once.
  const human = cli(["--no-daemon", "events", "cli"]);
  for (const id of ids) assert.equal(human.stdout.split("\n").filter((l) => l.includes(`▶ ${id} bash`)).length, 1, human.stdout);
});

test("a postgres:// --store reaches the host through its environment: no password on its command line or in its log, and runs work there", async (t) => {
  // The database is dropped after the host is stopped (setup's cleanup runs first).
  const drops: Array<() => unknown> = [];
  const url = new URL(await freshDatabase({ after: (fn) => drops.push(fn) }));
  url.password = "pw-not-in-ps"; // the throwaway cluster trusts local sign-ins: any password works
  const { sockets, cli } = setup(t, { mcpServers: {} }, ["--store", url.toString()]);
  t.after(async () => {
    for (const drop of drops) await drop();
  });
  const first = cli(["exec", "echo one > f.txt; cat f.txt"]);
  assert.equal(first.status, 0, first.stderr);
  const status = cli(["daemon", "status"]);
  assert.equal(status.status, 0, status.stderr);
  const pid = pidOf(status.stdout);
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  assert.ok(argv.includes("serve"), argv.join(" "));
  assert.ok(!argv.join(" ").includes("pw-not-in-ps") && !argv.includes("--store"), argv.join(" "));
  // The host opened the same database: the session's file from the first (in-process) run is there.
  const second = cli(["exec", "cat f.txt; echo two"]);
  assert.equal(second.status, 0, second.stderr);
  assert.equal(second.stdout, "one\ntwo\n");
  assert.match(cli(["daemon", "status"]).stdout, new RegExp(`pid ${pid}, .* 1 runs served`), "the second run ran on the host");
  for (const log of readdirSync(sockets).filter((f) => f.endsWith(".log"))) {
    assert.ok(!readFileSync(path.join(sockets, log), "utf8").includes("pw-not-in-ps"), log);
  }
  assert.equal(cli(["daemon", "stop"]).stdout, "stopped\n");
});

test("the warm host's own log passes the config's redactor: a host that cannot open does not write a server's secret", async (t) => {
  const secret = "daemon-log-secret-4711";
  const { work, sockets } = setup(t, { mcpServers: { kit: { command: "node", args: ["kit.js"], env: { KIT_TOKEN: "${KIT_TOKEN}" } } } });
  const log = path.join(sockets, "host.log");
  // A workspace that is not there (its path quotes the secret) keeps the host from opening; the
  // error is what the log writes. Control: the same line names the rest of the path.
  const r = spawnSync(process.execPath, [CLI, "--workspace", path.join(work, `gone-${secret}`), "daemon", "serve", "--idle", "5"], {
    cwd: work,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, TOOLSHELL_DAEMON_DIR: sockets, TOOLSHELL_DAEMON_LOG: log, KIT_TOKEN: secret },
  });
  assert.equal(r.status, 0, r.stderr);
  const text = readFileSync(log, "utf8");
  assert.match(text, /cannot open the host: workspace is not a folder: .*gone-\[REDACTED\]/, text);
  assert.ok(!text.includes(secret), text);
});

test("daemon status and stop find the config's host whatever --workspace it was started with (npm start's); --workspace narrows to that one", async (t) => {
  const { work, cli } = setup(t);
  const ws = mkdtempSync(path.join(tmpdir(), "toolshell-daemon-ws-"));
  t.after(() => rmSync(ws, { recursive: true, force: true }));
  for (let i = 0; i < 2; i++) assert.equal(cli(["--workspace", ws, "exec", "tools kit pid"]).status, 0);
  let status = cli(["daemon", "status", "--config", path.join(work, "toolshell.config.json")]);
  for (let i = 0; i < 300 && status.status !== 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = cli(["daemon", "status"]);
  }
  assert.equal(status.status, 0, status.stdout);
  assert.match(status.stdout, new RegExp(`^running: pid \\d+, config .*toolshell\\.config\\.json, workspace ${ws.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}, since `));
  const other = mkdtempSync(path.join(tmpdir(), "toolshell-daemon-ws2-"));
  t.after(() => rmSync(other, { recursive: true, force: true }));
  assert.equal(cli(["--workspace", other, "daemon", "status"]).status, 1, "another workspace's host is not running");
  const pid = pidOf(status.stdout);
  assert.equal(cli(["daemon", "stop"]).stdout, "stopped\n");
  assert.ok(await gone(pid), "the workspace's host is gone");
  assert.equal(cli(["daemon", "status"]).status, 1);
});

test("servers list asks the warm host when one runs: its servers' states and tool counts, not the file's", async (t) => {
  const { cli } = setup(t);
  const first = cli(["exec", "tools kit pid"]);
  assert.equal(first.status, 0, first.stderr);
  let status = cli(["daemon", "status"]);
  for (let i = 0; i < 300 && status.status !== 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = cli(["daemon", "status"]);
  }
  assert.equal(status.status, 0, status.stdout + status.stderr);
  // A run through the host: its servers are loaded there.
  assert.equal(cli(["exec", "tools kit pid"]).status, 0);
  const list = cli(["servers", "list"]);
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`as its warm host \\(pid ${pidOf(status.stdout)}\\) has them`), list.stdout);
  assert.match(list.stdout, /^kit +loaded +\d+ +stdio +eager/m);
  const json = JSON.parse(cli(["servers", "list", "--json"]).stdout) as { warm_host?: { pid: number }; servers: Array<{ name: string; state: string; tools?: number; in_host: boolean }> };
  assert.equal(json.warm_host?.pid, pidOf(status.stdout));
  assert.deepEqual(json.servers.map((s) => [s.name, s.state, s.in_host]), [["kit", "loaded", true]]);
  assert.ok((json.servers[0].tools ?? 0) > 0);
  // --no-daemon: the file's states, the host not asked — and said so (it runs).
  const skipped = cli(["--no-daemon", "servers", "list"]).stdout;
  assert.match(skipped, /^kit +configured +- /m);
  assert.match(skipped, /--no-daemon does not ask a warm host/);
  assert.doesNotMatch(skipped, /no toolshell serve or warm host of it runs/);
});
