/**
 * Text on the terminal: what a script, a server or an authorization server wrote reaches a CLI
 * line only through the console's escaping (`terminalText`): an ANSI conceal sequence, a CR, a
 * backspace, a C1 control, a bidirectional override or a zero-width character is shown as its
 * `\uXXXX` escape, so a reviewing person sees every line. Real CLI processes (node
 * dist/cli/main.js, after `npm run build`). Each form has a control: the line is still shown.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { REPO_ROOT } from "../fixtures/mcp/index.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

/** The forms: each hides or rewrites what follows it on a terminal. */
const FORMS: Array<[string, string]> = [
  ["\u001b[8m", "\\u001b"], // CSI conceal
  ["\u001b]0;title\u0007", "\\u001b"], // OSC
  ["\u001b]8;;https://evil.example/\u001b\\", "\\u001b"], // OSC 8 hyperlink: the shown text links elsewhere
  ["\u009d8;;https://evil.example/\u009c", "\\u009d"], // OSC 8 with C1 introducer and terminator
  ["\r", "\\u000d"],
  ["\b\b\b\b", "\\u0008"],
  ["\u202e", "\\u202e"],
  ["\u200b", "\\u200b"],
  ["\u009b8m", "\\u009b"], // C1 CSI
];
/** A character a terminal acts on, or that hides or reorders text. */
// eslint-disable-next-line no-control-regex -- the controls are what is looked for
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

function project(t: { after: (fn: () => void) => void }) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-terminal-"));
  writeFileSync(path.join(dir, "toolshell.config.json"), "{}\n");
  const cli = (args: string[], input = "") => {
    const r = spawnSync(process.execPath, [CLI, "--no-daemon", ...args], { cwd: dir, input, encoding: "utf8", timeout: 120_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return cli;
}

test("toolshell scripts show, list, versions and diff print a saved script's hidden characters escaped (text and --json); control: the gated line and tabs are shown", (t) => {
  const cli = project(t);
  FORMS.forEach(([form, escaped], i) => {
    const name = `s${i}`;
    const body = `echo ok\n${form}tools pay to=eve\t# gated\n`;
    const saved = cli(["scripts", "save", name, "--description", `pays${form}bob`], body);
    assert.equal(saved.code, 0, saved.stderr);
    cli(["scripts", "save", name, "--description", "v2"], body + `echo again${form}\n`);
    for (const args of [["scripts", "show", name], ["scripts", "show", name, "--json"], ["scripts", "list"], ["scripts", "list", "--json"], ["scripts", "versions", name], ["scripts", "diff", name, "1", "2"], ["scripts", "diff", name, "1", "2", "--json"]]) {
      const r = cli(args);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
      assert.ok(!RAW.test(r.stdout), `${JSON.stringify(form)} reached the terminal raw through ${args.join(" ")}: ${JSON.stringify(r.stdout)}`);
      if (args[1] === "show" && !args.includes("--json")) {
        // Control: the gated line is there, its hidden character escaped, the tab kept.
        assert.ok(r.stdout.includes(`${escaped}`), `${args.join(" ")}: ${r.stdout}`);
        assert.match(r.stdout, /tools pay to=eve\t# gated/);
      }
    }
    // --json still parses to the body as saved.
    assert.equal(JSON.parse(cli(["scripts", "show", name, "--json"]).stdout).body, body + `echo again${form}\n`);
  });
});

test("toolshell events prints what a script wrote escaped (timeline and --json); control: the text is there", (t) => {
  const cli = project(t);
  for (const [form] of FORMS) {
    const run = cli(["exec", `echo 'visible${form}hidden'`]);
    assert.equal(run.code, 0, run.stderr);
  }
  for (const args of [["events", "cli"], ["events", "cli", "--json"]]) {
    const r = cli(args);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!RAW.test(r.stdout), `raw through ${args.join(" ")}: ${JSON.stringify(r.stdout)}`);
    assert.match(r.stdout, /visible/);
  }
  for (const line of cli(["events", "cli", "--json"]).stdout.trim().split("\n")) JSON.parse(line);
});

test("a server's or tool's text around a script — `tools` help pages, toolshell list, check (text and --json), daemon errors — is escaped; control: the text is there, and a script's own output passes as written", (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-terminal-tools-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "toolshell.config.json"), "{}\n");
  mkdirSync(path.join(dir, "agent/tools"), { recursive: true });
  FORMS.forEach(([form], i) => {
    const description = `Marks${form}thing number ${i}.`;
    writeFileSync(
      path.join(dir, `agent/tools/mark${i}.mjs`),
      `import { defineTool } from ${JSON.stringify(path.join(REPO_ROOT, "dist/index.js"))};\nexport default defineTool({ description: ${JSON.stringify(description)}, inputSchema: { type: "object", properties: { x: { type: "string", description: ${JSON.stringify(`field${form}x`)} } } }, hints: { readOnly: true }, execute: () => "marked" });\n`,
    );
  });
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, "--no-daemon", ...args], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const pages: string[][] = [["exec", "tools --help"], ["exec", "tools search marks"], ["list"], ["check"], ["check", "--json"]];
  FORMS.forEach((_f, i) => pages.push(["exec", `tools mark${i} --help`]));
  for (const args of pages) {
    const r = cli(args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.ok(!RAW.test(r.stdout + r.stderr), `raw through ${args.join(" ")}: ${JSON.stringify(r.stdout + r.stderr)}`);
    // Control: the description is there, its hidden character escaped (check lists findings, not descriptions).
    if (args[0] !== "check") assert.match(r.stdout, /Marks\\u/, args.join(" "));
  }
  JSON.parse(cli(["check", "--json"]).stdout);
  // The daemon's lines: a config named with a conceal sequence.
  const d = spawnSync(process.execPath, [CLI, "daemon", "status", "--config", "missing\u001b[8m.json"], { cwd: dir, encoding: "utf8" });
  assert.equal(d.status, 2);
  assert.ok(!RAW.test(d.stderr), JSON.stringify(d.stderr));
  assert.match(d.stderr, /missing\\u001b\[8m\.json/);
  // A script's own output is the program's output, as bash writes it (docs/security.md): passed as written.
  const own = cli(["exec", "printf 'a\\033[1mb\\n'"]);
  assert.equal(own.stdout, "a\u001b[1mb\n");
});
