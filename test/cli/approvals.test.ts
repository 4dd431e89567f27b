/**
 * `toolshell approvals` and `toolshell approve` over a store with several sessions (README "The
 * CLI"): requests are listed and answered by id whatever session raised them, `--session`
 * narrows and is checked, `--json` is for machines, and no internal key is shown. Real CLI
 * processes (node dist/cli/main.js, after `npm run build`), on the config's warm host and
 * without it, with the memory MCP server.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { NPM_SERVERS, REPO_ROOT } from "../fixtures/mcp/index.js";
import { toolFile } from "../fixtures/tool-file.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

test("approvals across sessions: listed without internal keys, answered by id in the session that asked, --session checked", (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-approvals-"));
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: "utf8", input: "", timeout: 120_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  t.after(() => {
    cli(["daemon", "stop"]);
    rmSync(dir, { recursive: true, force: true });
  });
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(dir, "m.jsonl") }, trust: true } } }));
  const stop = (session: string, name: string) => {
    const run = cli(["--session", session, "exec", `tools memory delete-entities entityNames='["${name}"]'`]);
    assert.equal(run.code, 3, run.stderr);
    return JSON.parse(run.stderr.trim().split("\n").pop()!).tools.stopped.request_id as string;
  };
  const alpha = stop("alpha", "zz\u202eq");
  const beta = stop("beta", "b");

  const text = cli(["approvals"]);
  assert.equal(text.code, 0, text.stderr);
  for (const [id, session] of [[alpha, "alpha"], [beta, "beta"]]) {
    // The tool's description, where and which line asked, and why (its declared hints), then the input.
    assert.match(text.stdout, new RegExp(`^${id}  tools memory delete-entities\\n  Delete multiple entities[^\\n]*\\n  session ${session}, asked [^\\n]*, line 1 of the script\\n  needs approval: it declares that it may destroy or overwrite data\\n`, "m"));
  }
  assert.match(text.stdout, /"zz\\u202eq"/, "the input is shown with the hidden character escaped");
  assert.match(text.stdout, /  Allow always: every call of tools memory delete-entities in session alpha, with any input, runs without asking\.\n  Reject always: every call of tools memory delete-entities in session alpha, in any script, answers denied\.\n  after the answer: The script has not run\./);
  assert.match(text.stdout, /warning: hidden character U\+202E RIGHT-TO-LEFT OVERRIDE at \/entityNames\/0/);
  assert.doesNotMatch(text.stdout, /\\u0000|subject|scope/, "no internal key");

  const json = cli(["approvals", "--json", "--session", "alpha"]);
  assert.equal(json.code, 0, json.stderr);
  const listed = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(listed.map((r) => [r.id, r.session_id, r.tool, r.input]), [[alpha, "alpha", "tools memory delete-entities", { entityNames: ["zz\u202eq"] }]]);
  assert.equal("subject" in listed[0], false);
  assert.deepEqual((listed[0].display as { flags: unknown[] }).flags.length, 1);
  assert.equal(cli(["approvals", "--session", "gamma"]).stdout, "no pending approval requests in session gamma\n");

  const wrong = cli(["approve", alpha, "allow", "--session", "beta"]);
  // Not found is exit 1 (README "The CLI"); 2 is for a config or store that could not be opened.
  assert.equal(wrong.code, 1);
  assert.equal(wrong.stderr, `toolshell: approval request ${alpha} belongs to session alpha, not to session beta (--session)\n`);
  const yes = cli(["approve", alpha, "allow"]);
  assert.equal(yes.code, 0, yes.stderr);
  assert.match(yes.stdout, /^allow: tools memory delete-entities \{"entityNames":\["zz\\u202eq"\]\} \(session alpha\)\n$/);
  const again = cli(["--no-daemon", "approve", alpha, "allow"]);
  assert.equal(again.code, 1);
  // Without the warm host the CLI opens the config's servers first; on a busy machine a
  // "waiting for server … to start" line may come before the answer.
  assert.match(again.stderr, new RegExp(`^toolshell: no pending approval request ${alpha} in the store .*state\\.db \\(answered already, or never asked here`, "m"));
  const unknown = cli(["approve", "apr_unknown", "allow"]);
  assert.equal(unknown.code, 1, unknown.stderr);
  assert.match(unknown.stderr, /^toolshell: no pending approval request apr_unknown in the store /m);
  // An "always" answer covers the tool with any input: it says that, not the one input shown.
  const no = cli(["--no-daemon", "approve", beta, "reject_always", "--session", "beta"]);
  assert.equal(no.code, 0, no.stderr);
  assert.equal(no.stdout, "reject_always: Reject always: every call of tools memory delete-entities in session beta, in any script, answers denied.\n");
  assert.equal(cli(["--no-daemon", "approvals"]).stdout, "no pending approval requests\n");
  const gamma = stop("gamma", "g");
  const always = cli(["approve", gamma, "allow_always"]);
  assert.equal(always.code, 0, always.stderr);
  assert.equal(always.stdout, "allow_always: Allow always: every call of tools memory delete-entities in session gamma, with any input, runs without asking.\n");
});

test("toolshell --no-daemon approvals and approve start no server: they read and write the store; control: exec starts the eager server", (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-approvals-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const marker = path.join(dir, "started");
  // An eager stdio server that leaves a file when it starts (and then fails: no MCP is spoken).
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: { probe: { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "1")`] } } }));
  const cli = (args: string[]) => spawnSync(process.execPath, [CLI, "--no-daemon", ...args], { cwd: dir, encoding: "utf8", input: "", timeout: 120_000 });
  const listed = cli(["approvals"]);
  assert.equal(listed.status, 0, listed.stderr);
  assert.equal(listed.stdout, "no pending approval requests\n");
  assert.equal(existsSync(marker), false, "no server process was started to list approvals");
  cli(["exec", "echo hi"]);
  assert.equal(existsSync(marker), true, "control: a run starts the eager server");
  // Answering one is the same: a request made by a run, answered with no server started.
  mkdirSync(path.join(dir, "agent", "tools"), { recursive: true });
  writeFileSync(path.join(dir, "agent", "tools", "pay.mjs"), toolFile("needsApproval: () => true,"));
  const stopped = cli(["exec", "tools pay"]);
  const id = /apr_[0-9a-f]+/.exec(stopped.stderr)?.[0];
  assert.ok(id, stopped.stderr);
  rmSync(marker);
  const answered = cli(["approve", id, "allow"]);
  assert.equal(answered.status, 0, answered.stderr);
  assert.match(answered.stdout, /^allow: tools pay/);
  assert.equal(existsSync(marker), false, "no server process was started to answer");
});
