/**
 * `diff` never holds the host (src/shell/commands/coreutils/diff.ts): two large files that differ
 * in every line are diffed while other sessions' calls go on, and the answer is a correct diff
 * (applied to the first file it gives the second). Control: small diffs, `-q`, `-s`, identical
 * files and a missing operand answer exactly what the bundled command answers.
 * See docs/security.md ("What each limit defends").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { applyPatch } from "diff";
import { Bash, InMemoryFs } from "just-bash";
import { createToolShell } from "../../src/index.js";
import { compatCommands } from "../../src/shell/commands/index.js";

const FILES = "printf 'a\\nb\\nc\\nd\\ne\\nf\\ng\\nh\\n' > /tmp/x; printf 'a\\nB\\nc\\nd\\ne\\nf\\ng\\nh\\ni' > /tmp/y; printf 'A\\nb\\n' > /tmp/z; cp /tmp/x /tmp/x2";

test("small diffs, -q, -s, identical files, stdin and missing operands answer as the bundled command does", async () => {
  const bundled = new Bash({ fs: new InMemoryFs(), cwd: "/" });
  const wrapped = new Bash({ fs: new InMemoryFs(), cwd: "/", customCommands: compatCommands() });
  await bundled.exec(FILES);
  await wrapped.exec(FILES);
  for (const script of ["diff /tmp/x /tmp/y", "diff -u /tmp/x /tmp/z", "diff /tmp/x /tmp/x2", "diff -s /tmp/x /tmp/x2", "diff -q /tmp/x /tmp/y", "diff -i /tmp/x /tmp/y", "diff /tmp/x /nope", "diff /tmp/x", "printf 'a\\n' | diff - /tmp/z", "diff --help"]) {
    const [b, w] = [await bundled.exec(script), await wrapped.exec(script)];
    assert.deepEqual({ stdout: w.stdout, stderr: w.stderr, exitCode: w.exitCode }, { stdout: b.stdout, stderr: b.stderr, exitCode: b.exitCode }, script);
  }
});

test("two 30,000-line files that differ in every line are diffed while another session's call goes on; the diff is correct", async (t) => {
  const shell = await createToolShell({ config: {} });
  t.after(() => shell.close());
  const a = shell.session("diff-a");
  const b = shell.session("diff-b");
  await a.bash("seq 1 30000 > /tmp/a; seq 1 30000 | sed 's/$/x/' > /tmp/b");
  const order: string[] = [];
  const big = a.bash("diff /tmp/a /tmp/b > /tmp/d; echo $?").then((r) => (order.push("diff"), r));
  // Let the diff start first, then ask for a small call in another session.
  await new Promise((r) => setTimeout(r, 50));
  const small = b.bash("echo hi").then((r) => (order.push("echo"), r));
  const [d, e] = await Promise.all([big, small]);
  assert.equal(e.stdout, "hi\n");
  assert.deepEqual(order, ["echo", "diff"], "the other session's call ended while the diff ran");
  assert.equal(d.stdout, "1\n", d.stderr);
  const files = await a.bash("cat /tmp/a; echo @@SPLIT@@; cat /tmp/b; echo @@SPLIT@@; cat /tmp/d");
  const [left, right, patch] = files.stdout.split("@@SPLIT@@\n") as [string, string, string];
  assert.equal(applyPatch(left, patch), right, "the diff turns the first file into the second");
});
