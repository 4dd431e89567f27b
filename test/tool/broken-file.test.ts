/**
 * A tool file that fails to load stops only its own tool (README → Defining tools): the others
 * run, the broken one is listed as not available, and calling it answers the JSON error line
 * naming the file and the cause. Through the library and the CLI (warm host and --no-daemon),
 * with real tool files in a temp folder: a syntax error, module code that throws, a default
 * export not made by defineTool.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { createToolShell } from "../../src/index.js";
import { tempDir } from "../fixtures/temp.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** An agent folder whose tools/ holds one working tool and three broken files. */
function agentFolder(t: TestContext): string {
  const dir = tempDir(t, "toolshell-broken-tools-");
  const tools = path.join(dir, "agent", "tools");
  mkdirSync(tools, { recursive: true });
  writeFileSync(path.join(tools, "works.ts"), `import { defineTool } from ${JSON.stringify(path.join(root, "src/index.js"))};\nexport default defineTool({ description: "Answers ok.", inputSchema: { type: "object", properties: {} }, execute: async () => "ok" });\n`);
  writeFileSync(path.join(tools, "syntax.ts"), "export default {{ not valid;\n");
  writeFileSync(path.join(tools, "throws.mjs"), 'throw new Error("the weather API key is not configured");\n');
  writeFileSync(path.join(tools, "not_a_tool.mjs"), 'export default { description: "missing defineTool" };\n');
  writeFileSync(path.join(dir, "toolshell.config.json"), "{}\n");
  return dir;
}

const errorOf = (stderr: string) => JSON.parse(stderr.trim().split("\n").pop()!).error as { code: string; message: string };

test("library: the working tool runs; each broken file's tool answers why, and is listed as not available", async (t) => {
  const dir = agentFolder(t);
  const shell = await createToolShell({ toolsDir: path.join(dir, "agent", "tools"), config: { mcpServers: {} } });
  t.after(() => shell.close());
  const s = shell.session();
  assert.equal((await s.bash("tools works")).stdout, "ok\n");
  const cases: Array<[string, RegExp]> = [
    ["syntax", /syntax\.ts: failed to load: ParseError: [^\n]*\S at \/\S+\/syntax\.ts:1:\d+$/],
    ["throws", /throws\.mjs: failed to load: the weather API key is not configured/],
    ["not_a_tool", /not_a_tool\.mjs: the default export must be a tool made with defineTool/],
  ];
  for (const [name, message] of cases) {
    // With no arguments, and with any: the answer is why the tool is not there, not a field error.
    for (const args of ["", " city=Paris", ` '{"x":1}'`]) {
      const r = await s.bash(`tools ${name}${args}`);
      assert.equal(r.exit_code, 1, name + args);
      const e = errorOf(r.stderr);
      assert.equal(e.code, "unavailable", name + args);
      assert.match(e.message, message);
    }
  }
  const listed = (await s.bash("tools --help")).stdout;
  assert.match(listed, /works/);
  assert.match(listed, /throws[^\n]*Not available: throws\.mjs did not load/);
});

test("a broken tool file is not asked about: in protective mode its call answers unavailable at once, before and during the run; control: the working tool asks", async (t) => {
  const dir = agentFolder(t);
  writeFileSync(path.join(dir, "agent", "tools", "delete_records.mjs"), 'throw new Error("DB_URL is not set");\n');
  const shell = await createToolShell({ toolsDir: path.join(dir, "agent", "tools"), config: { mcpServers: {}, approval: { mode: "protective" } } });
  t.after(() => shell.close());
  const s = shell.session();
  for (const script of ["tools delete-records id=1", "echo start; tools delete-records id=$(echo 1)"]) {
    const r = await s.bash(script);
    assert.equal(r.tools?.stopped, undefined, `${script}: nobody is asked: ${JSON.stringify(r)}`);
    assert.equal(errorOf(r.stderr).code, "unavailable", script);
    assert.match(errorOf(r.stderr).message, /delete_records\.mjs: failed to load: DB_URL is not set/);
  }
  assert.deepEqual(await s.pendingApprovals(), []);
  const asked = await s.bash("tools works");
  assert.equal(asked.tools?.stopped?.reason, "needs_approval", "control: protective mode asks for a working tool that is not read-only");
});

test("CLI: exec runs the working tool on the warm host and with --no-daemon; the broken tool answers why", async (t) => {
  const dir = agentFolder(t);
  const cli = (...args: string[]) => spawnSync(process.execPath, [path.join(root, "dist/cli/main.js"), ...args], { cwd: dir, encoding: "utf8", env: { ...process.env, TOOLSHELL_DAEMON_IDLE: "5" } });
  t.after(() => cli("daemon", "stop"));
  for (const mode of [["--no-daemon"], []]) {
    const ok = cli("exec", ...mode, "tools works");
    assert.equal(ok.status, 0, `${mode.join(" ")}: ${ok.stderr}`);
    assert.equal(ok.stdout, "ok\n");
    const broken = cli("exec", ...mode, "tools throws");
    assert.equal(broken.status, 1, broken.stderr);
    assert.match(errorOf(broken.stderr).message, /throws\.mjs: failed to load: the weather API key is not configured/);
  }
});
