/**
 * The person at the CLI, through the built CLI with the feature fixture: upstream progress as
 * lines on stderr (`toolshell run`, in-process and through the warm host), an upstream question
 * asked on a terminal (a real pty: util-linux `script -qec`, typed answers on its stdin), in
 * process and through the warm host, and declined with `tool_error` without a terminal.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { FEATURE_SERVER, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

function setup(t: TestContext) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const work = mkdtempSync(path.join(tmpdir(), "toolshell-cli-person-"));
  const cfg = path.join(work, "toolshell.config.json");
  writeFileSync(cfg, JSON.stringify({ mcpServers: { feature: tsxCommand(FEATURE_SERVER) }, logDir: path.join(work, "logs") }));
  const env = { ...process.env, TOOLSHELL_DAEMON_DIR: path.join(work, "sockets") };
  const cli = (args: string[], input = "") => spawnSync(process.execPath, [CLI, ...args, "--config", cfg], { cwd: work, input, encoding: "utf8", timeout: 60_000, env });
  /** Runs the CLI on a pseudo-terminal; `typed` is what the person types. stdout and stderr both arrive on the terminal. */
  const onTerminal = (args: string[], typed: string) => {
    const command = [process.execPath, CLI, ...args, "--config", cfg].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(" ");
    return spawnSync("script", ["-qec", command, "/dev/null"], { cwd: work, input: typed, encoding: "utf8", timeout: 60_000, env });
  };
  t.after(() => {
    cli(["daemon", "stop"]);
    rmSync(work, { recursive: true, force: true });
  });
  return { work, cli, onTerminal };
}


test("toolshell run prints upstream progress on stderr, in-process and through the warm host; without a terminal a question is declined", (t) => {
  const { work, cli } = setup(t);
  const file = path.join(work, "steps.sh");
  writeFileSync(file, "tools feature steps n=2\n");
  const inProcess = cli(["run", file, "--no-daemon"]);
  assert.equal(inProcess.status, 0, inProcess.stderr);
  assert.equal(inProcess.stdout, "2 steps\n");
  // A slow start adds a "waiting for server … to start" line of its own (a busy machine): only progress lines are compared.
  const progress = (stderr: string) => stderr.split("\n").filter((l) => !l.startsWith("toolshell: waiting for server ")).join("\n");
  assert.equal(progress(inProcess.stderr), "tools: tools feature steps: step 1 (1/2)\ntools: tools feature steps: step 2 (2/2)\n");

  // The first run without --no-daemon starts the warm host; the next runs there.
  assert.equal(cli(["run", file]).status, 0);
  const warm = cli(["run", file]);
  assert.equal(warm.status, 0, warm.stderr);
  assert.equal(progress(warm.stderr), progress(inProcess.stderr), "the warm host sends the same lines");
  assert.match(cli(["daemon", "status"]).stdout, /[1-9]\d* runs? served/);

  const declined = cli(["exec", "tools feature ask"]);
  assert.equal(declined.status, 1);
  const error = JSON.parse(declined.stderr.trim().split("\n").pop()!).error;
  assert.equal(error.code, "tool_error");
  assert.match(error.message, /declined: nobody can answer questions here/);
});

test("on a terminal the question is asked there (escaped), in-process and through the warm host", (t) => {
  const { cli, onTerminal } = setup(t);
  const script = `tools feature ask message=$'Pick\\u202e one'`;
  const here = onTerminal(["exec", "--no-daemon", script], "y\nAda\n3\n");
  assert.equal(here.status, 0, here.stdout);
  const out = here.stdout.replace(/\r/g, "");
  assert.match(out, /MCP server feature asks \(during tools feature ask\):\n> "Pick\\u202e one"\n {2}⚠ hidden character U\+202E RIGHT-TO-LEFT OVERRIDE/);
  assert.match(out, /Answer it\? \[y\]es, \[n\]o \(decline\), \[c\]ancel: /);
  assert.match(out, /answer: \{"name":"Ada","count":3\}/);

  // A first run starts the warm host; the question of the next one travels over its socket.
  assert.equal(onTerminal(["exec", "tools feature steps n=1"], "").status, 0);
  const warm = onTerminal(["exec", script], "n\n");
  const warmOut = warm.stdout.replace(/\r/g, "");
  assert.equal(warm.status, 1, warmOut);
  assert.match(warmOut, /MCP server feature asks/);
  assert.match(warmOut, /the person did not answer \(decline\)/);
  assert.match(cli(["daemon", "status"]).stdout, /1 runs? served/, "the question's run was the warm host's");
});
