/**
 * `toolshell scripts …` and `toolshell triggers …` against real stores: the built CLI in its own
 * process, a real SQLite file beside the config, a real memory MCP server for a run that stops,
 * and a running HTTP host on the same store file seeing what the CLI did (and the other way).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { NPM_SERVERS } from "../fixtures/mcp/index.js";
import { openHost, startApi } from "../../src/server/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const CLI = path.join(root, "dist/cli/main.js");

/** A folder with a config (optionally with servers); cleaned up after the test. */
function project(t: { after(fn: () => void): void }, config: Record<string, unknown> = { mcpServers: {} }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-cli-manage-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify(config));
  return dir;
}

function toolshell(cwd: string, args: string[], input = "") {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, input, encoding: "utf8", timeout: 60_000 });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

/** Runs the CLI with `--json` and parses stdout. */
function json(cwd: string, args: string[], input = ""): any {
  const r = toolshell(cwd, [...args, "--json"], input);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

/** The JSON error line of a failed `--json` run. */
function jsonError(r: { stderr: string }): { code: string; message: string } {
  return JSON.parse(r.stderr.trim().split("\n").pop()!).error;
}

const SCHEMA = JSON.stringify({ properties: { who: { type: "string" } }, required: ["who"] });

test("scripts: save, list, show, versions, diff, archive and restore — tables for people, the API's shapes with --json", (t) => {
  const dir = project(t);
  const none = toolshell(dir, ["scripts", "list"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no store at .*state\.db/);

  const v1 = toolshell(dir, ["scripts", "save", "Greet_Me", "--description", "Says hi", "--input-schema", SCHEMA], 'echo "hi $(jq -r .who)"\n');
  assert.equal(v1.code, 0, v1.stderr);
  assert.equal(v1.stdout, "Saved greet-me v1 for agent default. Run it: tools scripts greet-me\n");
  writeFileSync(path.join(dir, "v2.sh"), 'echo "hello $(jq -r .who)"\n');
  const v2 = json(dir, ["scripts", "save", "greet-me", "--description", "Says hello", "--input-schema", SCHEMA, "--file", path.join(dir, "v2.sh")]);
  assert.equal(v2.version, 2);
  assert.equal(v2.created_at.length > 0, true);

  const table = toolshell(dir, ["scripts", "list"]);
  assert.match(table.stdout, /^NAME +VERSION +STATUS +UPDATED +DESCRIPTION\ngreet-me +v2 +active +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +Says hello\n$/);
  assert.deepEqual(json(dir, ["scripts", "list"]).scripts.map((s: any) => [s.name, s.version, s.archived]), [["greet-me", 2, false]]);

  assert.equal(toolshell(dir, ["scripts", "show", "greet-me", "1"]).stdout, `# greet-me v1\n# description: Says hi\n# input schema: {"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}\necho "hi $(jq -r .who)"\n`);
  assert.equal(json(dir, ["scripts", "show", "greet_me"]).body, 'echo "hello $(jq -r .who)"\n');
  assert.deepEqual(json(dir, ["scripts", "versions", "greet-me"]).versions.map((v: any) => [v.version, v.description, v.created_by]), [[1, "Says hi", "cli"], [2, "Says hello", "cli"]]);

  const diff = toolshell(dir, ["scripts", "diff", "greet-me"]);
  assert.equal(diff.code, 0, diff.stderr);
  assert.match(diff.stdout, /^--- greet-me v1\n\+\+\+ greet-me v2\n@@ /m);
  assert.match(diff.stdout, /^-# description: Says hi\n\+# description: Says hello\n # input schema: .*\n-echo "hi \$\(jq -r \.who\)"\n\+echo "hello/m, "an unchanged schema is context, not a change");
  assert.equal(json(dir, ["scripts", "diff", "greet-me", "2", "2"]).same, true);

  assert.equal(toolshell(dir, ["scripts", "archive", "greet-me"]).stdout, "greet-me v2 is archived.\n");
  assert.deepEqual(json(dir, ["scripts", "list"]).scripts, []);
  assert.deepEqual(json(dir, ["scripts", "list", "--archived"]).scripts.map((s: any) => s.archived), [true]);
  assert.equal(json(dir, ["scripts", "restore", "greet-me"]).archived, false);

  // Agents do not see each other's scripts.
  assert.deepEqual(json(dir, ["scripts", "list", "--agent", "other"]).scripts, []);
  const elsewhere = toolshell(dir, ["scripts", "show", "greet-me", "--agent", "other", "--json"]);
  assert.equal(elsewhere.code, 1);
  assert.deepEqual(jsonError(elsewhere), { code: "not_found", message: "no script greet-me for agent other" });
});

test("scripts save without --input-schema says the script takes no input, and how to give it some", (t) => {
  const dir = project(t);
  const untyped = toolshell(dir, ["scripts", "save", "no-input", "--description", "Takes nothing"], "echo hi\n");
  assert.equal(untyped.code, 0, untyped.stderr);
  assert.match(untyped.stdout, /^Saved no-input v1 for agent default\. Run it: tools scripts no-input\nNote: it takes no input \(its input schema names no fields\): .*--input-schema/);
});

test("scripts: bad input is refused with the shell's and the API's checks, and nothing is saved", (t) => {
  const dir = project(t);
  const cases: Array<[string[], string, RegExp]> = [
    [["scripts", "save", "x", "--description", "d"], "   \n", /the script body is empty/],
    [["scripts", "save", "no/slash", "--description", "d"], "true\n", /a script name is 1 to 64 letters/],
    [["scripts", "save", "list", "--description", "d"], "true\n", /"list" is a tools scripts command/],
    [["scripts", "save", "x"], "true\n", /needs a description/],
    [["scripts", "save", "x", "--description", "d", "--input-schema", '{"type":"array"}'], "true\n", /must describe an object/],
    [["scripts", "save", "x", "--description", "d", "--input-schema", "{nope"], "true\n", /--input-schema is not JSON/],
    [["scripts", "save", "x", "--description", "d", "--agent", "bad agent"], "true\n", /--agent must be/],
  ];
  for (const [args, body, message] of cases) {
    const r = toolshell(dir, [...args, "--json"], body);
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    const e = jsonError(r);
    assert.equal(e.code, "invalid_input");
    assert.match(e.message, message);
  }
  // The store may exist by now (a refused save opens it); it holds no script.
  if (existsSync(path.join(dir, ".toolshell/state.db"))) assert.deepEqual(json(dir, ["scripts", "list", "--archived"]).scripts, []);
  const missing = toolshell(dir, ["scripts", "diff", "nope"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^toolshell: no (store at|script nope)/);
});

test("scripts run: one shell call in the CLI session — k=v, JSON, stdin; the script's exit code; 3 and the stop report when a call needs approval", (t) => {
  const dir = project(t, { mcpServers: { memory: { command: NPM_SERVERS.memory, env: { MEMORY_FILE_PATH: path.join(tmpdir(), `ts-cli-manage-${process.pid}.jsonl`) }, load: "on_demand" } } });
  t.after(() => rmSync(path.join(tmpdir(), `ts-cli-manage-${process.pid}.jsonl`), { force: true }));
  toolshell(dir, ["scripts", "save", "greet", "--description", "Greets", "--input-schema", SCHEMA], 'who=$(jq -r .who)\necho "hi $who"\n[ "$who" != fail ] || exit 4\n');
  assert.deepEqual(toolshell(dir, ["scripts", "run", "greet", "who=ann o'neil"]), { stdout: "hi ann o'neil\n", stderr: "", code: 0 });
  assert.equal(toolshell(dir, ["scripts", "run", "greet", '{"who":"bo"}']).stdout, "hi bo\n");
  assert.equal(toolshell(dir, ["scripts", "run", "greet", "-"], '{"who":"cy"}').stdout, "hi cy\n");
  const failed = toolshell(dir, ["scripts", "run", "greet", "who=fail"]);
  assert.equal(failed.code, 1);
  assert.match(failed.stderr, /"code":"tool_error".*saved script greet exited with 4/);
  const bad = toolshell(dir, ["scripts", "run", "greet", "nobody=1"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /"code":"invalid_input"/);
  const result = json(dir, ["scripts", "run", "greet", "who=dee"]);
  assert.equal(result.stdout, "hi dee\n");
  assert.equal(result.exit_code, 0);
  // The runs were shell calls of the CLI session: its timeline has them.
  assert.match(toolshell(dir, ["events", "cli"]).stdout, /tools scripts greet/);

  // A destructive call inside the script is not made: exit 3 and the stop report on stderr.
  toolshell(dir, ["scripts", "save", "forget", "--description", "Deletes an entity"], "tools memory delete-entities entityNames='[\"x\"]'\necho after\n");
  const stopped = toolshell(dir, ["scripts", "run", "forget"]);
  assert.equal(stopped.code, 3, stopped.stderr);
  assert.doesNotMatch(stopped.stdout, /after/);
  const report = JSON.parse(stopped.stderr.trim().split("\n").pop()!);
  assert.equal(report.tools.stopped.reason, "needs_approval");
  assert.match(report.tools.stopped.request_id, /^apr_/);

  // `toolshell plan` reads a saved script's call as the shell's `tools plan` does (the session's
  // catalog holds the scripts), naming why the plan is not complete.
  const plan = JSON.parse(toolshell(dir, ["plan", "-"], "tools scripts greet who=x\n").stdout);
  assert.deepEqual(plan.calls.map((c: { tool: string; input: unknown }) => [c.tool, c.input]), [["tools scripts greet", { who: "x" }]]);
  assert.equal(plan.complete, false);
  assert.match(plan.hidden.join("\n"), /tools scripts greet \(line 1\): a saved script/);

  // Another agent's scripts run in that agent's own CLI session.
  toolshell(dir, ["scripts", "save", "greet", "--agent", "bob", "--description", "Bob's"], "echo bob\n");
  assert.equal(toolshell(dir, ["scripts", "run", "greet", "--agent", "bob"]).stdout, "bob\n");
  const clash = toolshell(dir, ["scripts", "run", "greet", "--agent", "bob", "--session", "cli", "--json"]);
  assert.equal(clash.code, 1);
  assert.deepEqual(jsonError(clash), { code: "conflict", message: 'session cli acts for principal "default" (its metadata\'s principal, else its agent_id), not "bob" who opens it: choose another session id (--session)' });
});

test("triggers: create, list, show, update, delete, run and runs; bad specs are refused as the API refuses them", (t) => {
  const dir = project(t);
  toolshell(dir, ["scripts", "save", "greet", "--description", "Greets", "--input-schema", SCHEMA], 'echo "hi $(jq -r .who)"\n');
  const created = json(dir, ["triggers", "create", "nightly", "--script", "greet", "--schedule", "0 3 * * *", "--timezone", "Europe/Berlin", "--input", '{"who":"{{payload.who}}"}']);
  assert.equal(created.kind, "schedule");
  assert.equal(created.cron, "0 3 * * *");
  assert.equal(created.secret_hash, undefined);
  const hook = json(dir, ["triggers", "create", "on-push", "--script", "greet", "--webhook", "--input", '{"who":"push"}']);
  assert.match(hook.secret, /^whs_/);
  assert.equal(hook.webhook_url, `/v1/webhooks/${hook.id}`);

  for (const [args, message] of [
    [["nightly", "--script", "greet", "--schedule", "0 4 * * *"], /a trigger named nightly exists/],
    [["x", "--script", "greet", "--schedule", "nope"], /trigger\.schedule: /],
    [["x", "--script", "greet"], /say "schedule": "<cron>" or "webhook": true/],
    [["x", "--script", "greet", "--webhook", "--schedule", "0 3 * * *"], /a webhook trigger has no schedule/],
    [["x", "--script", "greet; rm -rf /", "--webhook"], /is not a script name/],
    [["x", "--script", "greet", "--webhook", "--input", "[1]"], /--input must be a JSON object/],
  ] as Array<[string[], RegExp]>) {
    const r = toolshell(dir, ["triggers", "create", ...args, "--json"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(jsonError(r).message, message);
  }
  const list = toolshell(dir, ["triggers", "list"]);
  assert.match(list.stdout, /^NAME +KIND +SCHEDULE +SCRIPT +ENABLED +LAST RUN +NEXT RUN\n/);
  // A schedule made from the CLI has its next run (03:00 in Berlin, shown in UTC) before any host ran it.
  assert.match(list.stdout, /^nightly +schedule +0 3 \* \* \* Europe\/Berlin +greet +yes +- +\d{4}-\d\d-\d\d 0[12]:00:00$/m);
  assert.match(list.stdout, /^on-push +webhook +- +greet +yes/m);
  assert.equal(json(dir, ["triggers", "list", "--agent", "other"]).triggers.length, 0);

  const updated = json(dir, ["triggers", "update", "nightly", "--disable", "--schedule", "*/5 * * * *"]);
  assert.deepEqual([updated.enabled, updated.cron, updated.timezone, updated.input], [false, "*/5 * * * *", "Europe/Berlin", { who: "{{payload.who}}" }]);
  const bad = toolshell(dir, ["triggers", "update", "nightly", "--timezone", "Mars/Base", "--json"]);
  assert.equal(bad.code, 1);
  assert.match(jsonError(bad).message, /^trigger\.schedule: .*Mars\/Base/);
  assert.equal(json(dir, ["triggers", "show", created.id]).timezone, "Europe/Berlin", "a refused change changes nothing");
  assert.equal(toolshell(dir, ["triggers", "update", "nightly"]).code, 1);
  assert.match(toolshell(dir, ["triggers", "show", "nightly"]).stdout, /^nightly\n  id: +trg_\w+\n(.|\n)*  enabled: +no\n/);
  // Made with the CLI, and said so: the record's origin is cli, and show says it.
  assert.equal(json(dir, ["triggers", "show", "nightly"]).origin, "cli");
  // It acts for its agent (a trigger made over the API acts for the token's principal).
  assert.match(toolshell(dir, ["triggers", "show", "nightly"]).stdout, /\n  from: +cli\n  acts for: +agent default\n$/);

  // Run now: the payload fills the input templates; the run is recorded with the trigger.
  const run = json(dir, ["triggers", "run", "nightly", "--payload", '{"who":"ops"}']);
  assert.equal(run.status, "ok");
  assert.equal(run.reason, "manual");
  assert.deepEqual(run.input, { who: "ops" });
  assert.equal(run.result.stdout, "hi ops\n");
  const text = toolshell(dir, ["triggers", "run", "on-push"]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^RUN +STARTED +REASON +STATUS +TOOK +NOTE\nrun_\w+ +[\d-]+ [\d:]+ +manual +ok +\d+ ms\n\nhi push\n$/);
  // A failed run says why in the NOTE column (its script's last error line), as the console does.
  assert.equal(toolshell(dir, ["triggers", "create", "broken", "--script", "greet", "--webhook", "--input", '{"nope":1}']).code, 0);
  const failed = toolshell(dir, ["triggers", "run", "broken"]);
  assert.match(failed.stdout, /^run_\w+ +[\d-]+ [\d:]+ +manual +failed +\d+ ms +exit 1: .*unknown field "nope"/m, failed.stdout + failed.stderr);
  assert.match(toolshell(dir, ["triggers", "runs", "broken"]).stdout, /failed +\d+ ms +exit 1: .*unknown field "nope"/, "and so does the list of runs");
  // In full: the note is the table's last column, never cut (the stored error line, as --json has it).
  const brokenRun = json(dir, ["triggers", "runs", "broken"]).runs[0];
  const lastError = String(brokenRun.result.stderr).trim().split("\n").pop()!;
  assert.ok(lastError.length > 60, `the error line is longer than a cut cell: ${lastError}`);
  const noteLine = toolshell(dir, ["triggers", "runs", "broken"]).stdout.split("\n")[1];
  assert.doesNotMatch(noteLine, /…/, noteLine);
  assert.ok(noteLine.includes(JSON.parse(lastError).error?.message ?? lastError), `${noteLine}\n${lastError}`);
  assert.deepEqual(json(dir, ["triggers", "runs", "nightly"]).runs.map((r: any) => [r.status, r.session_id]), [["ok", `trg_${created.id}`]]);
  assert.match(created.id, /^trg_/, "docs/sessions.md: the session is trg_ and the id, trg_trg_…");

  assert.deepEqual(json(dir, ["triggers", "delete", "on-push"]), { deleted: hook.id });
  const gone = toolshell(dir, ["triggers", "runs", "on-push", "--json"]);
  assert.equal(gone.code, 1);
  assert.equal(jsonError(gone).code, "not_found");
});

test("a running HTTP host on the same store file and the CLI see each other's scripts and triggers", async (t) => {
  const dir = project(t);
  const TOKEN = "cli-manage-token-0123456789";
  const store = path.join(dir, ".toolshell", "state.db");
  const host = await openHost({ config: path.join(dir, "toolshell.config.json"), store, env: { TOOLSHELL_API_TOKEN: TOKEN } });
  t.after(() => host.close());
  const api = await startApi(host, { host: "127.0.0.1", port: 0 });
  t.after(() => api.close());
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(api.url + p, { method, headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    return { status: res.status, json: (await res.json()) as any };
  };
  /** The CLI in its own process, without blocking this one's event loop (the host answers meanwhile). */
  const cli = (args: string[], input = "") =>
    new Promise<{ stdout: string; code: number | null }>((resolve) => {
      const child = spawn(process.execPath, [CLI, ...args], { cwd: dir });
      let stdout = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.on("close", (code) => resolve({ stdout, code }));
      child.stdin.end(input);
    });

  assert.equal((await cli(["scripts", "save", "twice", "--description", "Doubles n", "--input-schema", '{"properties":{"n":{"type":"number"}}}'], "echo $(( $(jq .n) * 2 ))\n")).code, 0);
  const listed = await call("GET", "/v1/agents/default/scripts");
  assert.deepEqual(listed.json.scripts.map((s: any) => [s.name, s.version]), [["twice", 1]]);
  await call("POST", "/v1/sessions", { id: "s1" });
  assert.equal((await call("POST", "/v1/sessions/s1/bash", { script: "tools scripts twice n=21" })).json.stdout, "42\n");

  const put = await call("PUT", "/v1/agents/default/scripts/twice", { description: "Doubles n (v2)", body: "echo $(( $(jq .n) * 2 ))  # v2\n" });
  assert.equal(put.json.version, 2);
  assert.match((await cli(["scripts", "diff", "twice"])).stdout, /^\+# description: Doubles n \(v2\)$/m);

  assert.equal((await cli(["triggers", "create", "hook", "--script", "twice", "--webhook", "--input", '{"n":"{{payload.n}}"}'])).code, 0);
  const triggers = await call("GET", "/v1/agents/default/triggers");
  assert.deepEqual(triggers.json.triggers.map((x: any) => [x.name, x.kind]), [["hook", "webhook"]]);
  const apiRun = await call("POST", `/v1/agents/default/triggers/hook/run`, { payload: { n: 5 } });
  assert.equal(apiRun.status, 201);
  const runs = JSON.parse((await cli(["triggers", "runs", "hook", "--json"])).stdout).runs;
  assert.deepEqual(runs.map((r: any) => [r.id, r.status]), [[apiRun.json.id, apiRun.json.status]]);
});
