/**
 * `toolshell daemon status` beside two real `toolshell serve` replicas on one real PostgreSQL
 * (README "The CLI"; cli/running.ts): it lists each live replica from its serve file with its
 * URL, and a replica killed with SIGKILL is shown as not running once, its file removed; the
 * "latest" file that named it is rewritten to name the live replica (the CLI calls it).
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { CLI, deployment, kill } from "./helpers.js";

const run = promisify(execFile);

test("daemon status lists the live serve replicas, prunes the file of one killed with SIGKILL and points the latest file at the live one", async (t) => {
  const d = await deployment(t);
  const started = await Promise.all([d.start("A"), d.start("B")]);
  // The replica the "latest" file names (the one that announced last) is the one killed.
  const latest = path.join(d.dir, ".toolshell", "serve.toolshell.config.json.json");
  const named = (JSON.parse(readFileSync(latest, "utf8")) as { pid: number }).pid;
  const a = started.find((r) => r.child.pid === named)!;
  const b = started.find((r) => r.child.pid !== named)!;
  assert.ok(a && b, `the latest file names one of the replicas (pid ${named})`);
  const sockets = mkdtempSync(path.join(tmpdir(), "toolshell-sockets-"));
  t.after(() => rmSync(sockets, { recursive: true, force: true }));
  const status = async () => {
    const r = await run(process.execPath, [CLI, "daemon", "status", "--config", d.config], { cwd: d.dir, env: { ...process.env, TOOLSHELL_DAEMON_DIR: sockets } }).catch((e: { stdout: string; code: number }) => e);
    return { stdout: r.stdout, code: "code" in r ? r.code : 0 };
  };
  const both = await status();
  assert.equal(both.code, 0, both.stdout);
  assert.match(both.stdout, /^not running/m, "no warm host runs");
  for (const r of [a, b]) assert.ok(both.stdout.includes(`serve: pid ${r.child.pid} at ${r.url}, since `), both.stdout);

  await kill(a);
  const ownFile = path.join(d.dir, ".toolshell", `serve.toolshell.config.json.${a.child.pid}.json`);
  assert.ok(existsSync(ownFile), "SIGKILL leaves the serve file");
  const after = await status();
  assert.equal(after.code, 0, after.stdout);
  assert.match(after.stdout, new RegExp(`^serve: pid ${a.child.pid} not running`, "m"));
  assert.ok(after.stdout.includes(`serve: pid ${b.child.pid} at ${b.url}`), after.stdout);
  assert.ok(!existsSync(ownFile), "the stale file is removed");
  const now = JSON.parse(readFileSync(latest, "utf8")) as { pid: number; url: string };
  assert.deepEqual([now.pid, now.url], [b.child.pid, b.url], "the latest file names the live replica");
  const again = await status();
  assert.ok(!again.stdout.includes(`pid ${a.child.pid}`), again.stdout);
  assert.ok(again.stdout.includes(`serve: pid ${b.child.pid} at ${b.url}`), again.stdout);
});
