/**
 * The CLI gives a script its own stdin when that is a pipe or a file (README "The CLI"):
 * `printf … | toolshell exec 'wc -l'`, `toolshell run FILE < data`, in-process and on the warm
 * host alike. A socket left open by the parent process (what Node's `spawn` gives a child) is not
 * read, so the run does not wait for an end that never comes.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { REPO_ROOT } from "../fixtures/mcp/index.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

function setup(t: TestContext) {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const work = mkdtempSync(path.join(tmpdir(), "toolshell-stdin-"));
  writeFileSync(path.join(work, "toolshell.config.json"), "{}\n");
  writeFileSync(path.join(work, "data.txt"), "one\ntwo\nthree\n");
  writeFileSync(path.join(work, "count.sh"), "wc -l; echo done\n");
  const env = { ...process.env, TOOLSHELL_DAEMON_DIR: path.join(work, "sockets") };
  // Through a real shell, as a person types it: its pipe and its redirection.
  const sh = (line: string) => spawnSync("bash", ["-c", line], { cwd: work, env, encoding: "utf8", timeout: 60_000 });
  t.after(() => {
    spawnSync(process.execPath, [CLI, "daemon", "stop"], { cwd: work, env, timeout: 60_000 });
    rmSync(work, { recursive: true, force: true });
  });
  return { work, env, sh };
}

const cli = JSON.stringify(process.execPath) + " " + JSON.stringify(CLI);

for (const mode of ["--no-daemon", "the warm host"]) {
  test(`a pipe and a redirected file reach the script's stdin (${mode}); control: /dev/null gives it none`, async (t) => {
    const { sh } = setup(t);
    const flag = mode === "--no-daemon" ? "--no-daemon" : "";
    if (!flag) {
      // The first run starts the warm host; wait until it answers so the runs below go through it.
      sh(`${cli} exec true`);
      for (let i = 0; i < 300 && sh(`${cli} daemon status`).status !== 0; i++) await new Promise((r) => setTimeout(r, 100));
      assert.equal(sh(`${cli} daemon status`).status, 0, "the warm host is up");
    }
    const piped = sh(`printf 'a\\nb\\n' | ${cli} ${flag} exec 'wc -l; tr a-z A-Z <<< "$(cat)"'`);
    assert.equal(piped.status, 0, piped.stderr);
    assert.equal(piped.stdout, "2\n\n", "wc read the whole stdin; nothing was left for cat");
    const filed = sh(`${cli} ${flag} run count.sh < data.txt`);
    assert.deepEqual([filed.stdout, filed.status], ["3\ndone\n", 0], filed.stderr);
    const jq = sh(`echo '{"a":[1,2]}' | ${cli} ${flag} exec 'jq -c .a'`);
    assert.equal(jq.stdout, "[1,2]\n", jq.stderr);
    const none = sh(`${cli} ${flag} exec 'cat; echo end' < /dev/null`);
    assert.deepEqual([none.stdout, none.status], ["end\n", 0], none.stderr);
  });
}

test("a stdin socket the parent never closes is not waited for: the run ends", async (t) => {
  const { work, env } = setup(t);
  const child = spawn(process.execPath, [CLI, "--no-daemon", "exec", "echo ran"], { cwd: work, env, stdio: ["pipe", "pipe", "pipe"] });
  t.after(() => child.kill());
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  assert.equal(code, 0);
  assert.equal(out, "ran\n");
});
