/**
 * Shell fixes that the conformance corpus cannot show against the real bash:
 * redirections onto a read-only or full filesystem fail the command instead of throwing
 * out of exec; nothing is created under a missing directory; traps; the agent's notes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Bash, InMemoryFs } from "just-bash";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { compatBashOptions, compatCommands, SHELL_NOTES } from "../../src/shell/commands/index.js";
import { makeShell } from "./harness.js";

function fsError(code: string, message: string): Error {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

/** An in-memory filesystem where /ro refuses writes and /full has no space left. */
class LimitedFs extends InMemoryFs {
  override async writeFile(p: string, c: Parameters<InMemoryFs["writeFile"]>[1], o?: Parameters<InMemoryFs["writeFile"]>[2]) {
    if (p.startsWith("/ro/")) throw fsError("EROFS", `read-only file system, open '${p}'`);
    if (p.startsWith("/full/") && String(c).length > 0) throw fsError("ENOSPC", "no space left on device, write");
    return super.writeFile(p, c, o);
  }
  override async appendFile(p: string, c: Parameters<InMemoryFs["appendFile"]>[1], o?: Parameters<InMemoryFs["appendFile"]>[2]) {
    if (p.startsWith("/ro/")) throw fsError("EROFS", `read-only file system, open '${p}'`);
    if (p.startsWith("/full/") && String(c).length > 0) throw fsError("ENOSPC", "no space left on device, write");
    return super.appendFile(p, c, o);
  }
}

async function limitedShell(): Promise<Bash> {
  const fs = new LimitedFs();
  await fs.mkdir("/ro", { recursive: true });
  await fs.mkdir("/full", { recursive: true });
  return new Bash({ fs, cwd: "/", customCommands: compatCommands(), ...compatBashOptions() });
}

test("a redirection onto a read-only filesystem fails the command, the script goes on", async () => {
  const bash = await limitedShell();
  for (const script of ["echo hi > /ro/f", "echo hi >> /ro/f", "{ echo a; } > /ro/g", "for i in 1; do echo $i; done > /ro/h"]) {
    const r = await bash.exec(`${script}; echo "rc=$?"`);
    assert.equal(r.stdout, "rc=1\n", script);
    assert.match(r.stderr, /Read-only file system/, script);
  }
  const e = await bash.exec(`set -e; echo x > /ro/f; echo unreachable`);
  assert.equal(e.exitCode, 1);
  assert.equal(e.stdout, "");
});

test("a redirection onto a full filesystem reports the write error", async () => {
  const r = await (await limitedShell()).exec(`echo hi > /full/f; echo "rc=$?"`);
  assert.equal(r.stdout, "rc=1\n");
  assert.match(r.stderr, /No space left on device/);
});

test("a redirection under a missing directory creates nothing", async () => {
  const bash = makeShell();
  const r = await bash.exec(`echo hi > missing/dir/f; echo "rc=$?"; cat missing/dir/f 2>/dev/null || echo none`);
  assert.equal(r.stdout, "rc=1\nnone\n");
  assert.match(r.stderr, /missing\/dir\/f: No such file or directory/);
  assert.equal(await bash.fs.exists("/home/user/missing"), false);
});

test("traps: EXIT after exit and set -e, ERR with the failed status, subshells separate", async () => {
  const bash = makeShell();
  const a = await bash.exec(`trap 'echo "bye $?"' EXIT; echo start; exit 3`);
  assert.deepEqual([a.stdout, a.exitCode], ["start\nbye 3\n", 3]);
  const b = await bash.exec(`set -e; trap 'echo cleanup' EXIT; false; echo not`);
  assert.deepEqual([b.stdout, b.exitCode], ["cleanup\n", 1]);
  const c = await bash.exec(`trap 'echo "err $?"' ERR; (exit 4); if false; then :; fi; echo next`);
  assert.equal(c.stdout, "err 4\nnext\n");
  const d = await bash.exec(`trap 'echo outer' EXIT; (trap 'echo inner' EXIT; echo sub); echo main`);
  assert.equal(d.stdout, "sub\ninner\nmain\nouter\n");
});

test("$cmd, \"$@\" and arrays work as command words", async () => {
  const r = await makeShell().exec(`cmd="printf %s-"; $cmd a b; echo; run() { "$@"; }; run echo "x  y"; a=(echo 1 2); "\${a[@]}"`);
  assert.equal(r.stdout, "a-b-\nx  y\n1 2\n", r.stderr);
});

test("a brace range past the 10,000-item cap is an error, never cut short", async () => {
  const bash = makeShell();
  const full = await bash.exec("echo {1..10000} | wc -w; echo {20000..1..2} | wc -w");
  assert.equal(full.stdout.split(/\s+/).filter(Boolean).join(" "), "10000 10000");
  const over = await bash.exec("n=0; for i in {1..10001}; do n=$((n+1)); done; echo $n");
  assert.notEqual(over.exitCode, 0);
  assert.equal(over.stdout, "", "the loop did not run a shortened range");
  assert.match(over.stderr, /brace expansion: \{1\.\.10001\} has more than 10000 items/);
});

test("SHELL_NOTES are a few lines and name what is there and what is not", () => {
  const tokens = encode(SHELL_NOTES).length;
  assert.ok(tokens <= 220, `${tokens} tokens`);
  assert.ok(SHELL_NOTES.split("\n").length <= 8);
  for (const word of ["jq", "trap", "xargs", "no network", "Gaps"]) assert.ok(SHELL_NOTES.includes(word), word);
});
