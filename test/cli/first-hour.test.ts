/**
 * What a new user tripped on in the CLI: `toolshell mcp --session ID` runs the client in that
 * session (its files and approvals are its own), `toolshell approve ID maybe` names the four
 * answers, and `toolshell completion bash|zsh|fish` prints a script that completes the CLI's
 * commands and options (the bash one run by the real bash).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { tsxCommand } from "../fixtures/mcp/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(root, "src/cli/main.ts");

function project(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "toolshell-first-hour-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "toolshell.config.json"), JSON.stringify({ mcpServers: {}, logDir: path.join(dir, "logs") }));
  return dir;
}

function cli(dir: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const cmd = tsxCommand(MAIN, args);
  const r = spawnSync(cmd.command, cmd.args, { cwd: dir, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test("toolshell mcp --session ID: each stdio client runs in the session it names", async (t) => {
  const dir = project(t);
  const bash = async (session: string | undefined, command: string) => {
    const cmd = tsxCommand(MAIN, ["mcp", ...(session ? ["--session", session] : [])]);
    const client = new Client({ name: "first-hour", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: cmd.command, args: cmd.args, cwd: dir, stderr: "pipe" }));
    try {
      const r = (await client.callTool({ name: "bash", arguments: { command } })) as CallToolResult;
      return JSON.parse((r.content[0] as { text: string }).text) as { stdout: string; exit_code: number };
    } finally {
      await client.close();
    }
  };
  assert.equal((await bash("alpha", "echo from-alpha > note.txt && echo written")).stdout, "written\n");
  const beta = await bash("beta", "cat note.txt 2>/dev/null || echo none");
  assert.equal(beta.stdout, "none\n", "session beta does not see alpha's files");
  const plain = await bash(undefined, "cat note.txt 2>/dev/null || echo none");
  assert.equal(plain.stdout, "none\n", "without --session the client is in session mcp");
  assert.equal((await bash("alpha", "cat note.txt")).stdout, "from-alpha\n", "alpha's files persist for alpha");
});

test("a word outside what an argument or option takes is a usage error, as an unknown command is: exit 1, the word named, the command's usage", (t) => {
  const dir = project(t);
  const cases: [string[], RegExp, string][] = [
    [["approve", "apr_0123456789", "maybe"], /unknown decision "maybe"; known: allow, allow_always, reject, reject_always/, "toolshell approve"],
    [["daemon", "bogus"], /unknown daemon action "bogus"; known: status, stop\n/, "toolshell daemon"],
    [["completion", "powershell"], /unknown shell "powershell"; known: bash, zsh, fish/, "toolshell completion"],
    [["mcp", "--import", "cursor,emacs"], /unknown client "emacs"; known: claude-desktop, cursor, claude-code, vscode/, "toolshell mcp"],
    [["scripts", "bogus"], /unknown command 'bogus'/, "toolshell scripts"],
    [["bogus"], /unknown command 'bogus'/, "toolshell"],
  ];
  for (const [args, message, usage] of cases) {
    const r = cli(dir, args);
    assert.equal(r.status, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(" "));
    assert.ok(r.stderr.includes(`\nUsage: ${usage} [options]`), `${args.join(" ")}: ${r.stderr}`);
  }
});

test("toolshell completion bash completes commands, options per command and file operands in the real bash", (t) => {
  const dir = project(t);
  const script = cli(dir, ["completion", "bash"]);
  assert.equal(script.status, 0, script.stderr);
  writeFileSync(path.join(dir, "c.bash"), script.stdout);
  const complete = (words: string[]) => {
    const r = spawnSync("bash", ["-c", `source c.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _toolshell; printf '%s\\n' "\${COMPREPLY[@]}"`], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split("\n").filter(Boolean).sort();
  };
  assert.deepEqual(complete(["toolshell", "app"]), ["approvals", "approve"]);
  assert.deepEqual(complete(["toolshell", "--config", "x.json", "mcp", "--h"]), ["--help", "--host", "--http"]);
  assert.deepEqual(complete(["toolshell", "--conf"]), ["--config"]);
  assert.deepEqual(complete(["toolshell", "-c", "toolshell.conf"]), ["toolshell.config.json"]);
  assert.deepEqual(complete(["toolshell", "completion", ""]), ["bash", "fish", "zsh"]);
  // Every level: subcommands, their options, the words an argument or option takes.
  assert.deepEqual(complete(["toolshell", "scripts", "s"]), ["save", "show"]);
  assert.deepEqual(complete(["toolshell", "--config", "x.json", "triggers", "create", "--sch"]), ["--schedule"]);
  assert.deepEqual(complete(["toolshell", "servers", "add", "--tr"]), ["--transport", "--trust"]);
  assert.deepEqual(complete(["toolshell", "daemon", ""]), ["status", "stop"]);
  assert.deepEqual(complete(["toolshell", "approve", "apr_1", "allow"]), ["allow", "allow_always"]);
  assert.deepEqual(complete(["toolshell", "mcp", "--import", "c"]), ["claude-code", "claude-desktop", "cursor"]);
  assert.deepEqual(complete(["toolshell", "mcp", "--write", "toolshell.conf"]), ["toolshell.config.json"]);
});

test("toolshell completion zsh and fish cover every command; an unknown shell is named", (t) => {
  const dir = project(t);
  const zsh = cli(dir, ["completion", "zsh"]);
  assert.equal(zsh.status, 0, zsh.stderr);
  assert.match(zsh.stdout, /^#compdef toolshell\n/);
  assert.match(zsh.stdout, /bashcompinit/);
  assert.match(zsh.stdout, /complete -F _toolshell toolshell/);
  const fish = cli(dir, ["completion", "fish"]);
  assert.equal(fish.status, 0, fish.stderr);
  for (const name of ["exec", "run", "list", "plan", "approvals", "approve", "mcp", "check", "events", "serve", "completion"]) {
    assert.match(fish.stdout, new RegExp(`-a ${name} -d '`), name);
  }
  assert.match(fish.stdout, /complete -c toolshell -n '__toolshell_at "mcp"' -l http -r -d /);
  assert.match(fish.stdout, /complete -c toolshell -n '__toolshell_at ""' -s c -l config -r -F -d /);
  assert.match(fish.stdout, /complete -c toolshell -n '__toolshell_at "scripts"' -a show -d /);
  assert.match(fish.stdout, /complete -c toolshell -n '__toolshell_at "daemon"' -a 'status stop'/);
  const bad = cli(dir, ["completion", "tcsh"]);
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /unknown shell "tcsh"; known: bash, zsh, fish/);
});
