/**
 * Who acts for whom, on this machine: toolshell narrows to owner-only only what is its own (a
 * regular file of this user's, a folder that is or lies in `.toolshell`). A path a config names
 * may be a device, a pipe or a shared folder: run as root, a chmod there changed the machine's
 * /dev/null for every process (`store: "/dev/null"`) or /tmp (`logDir: "/tmp"`).
 * See docs/security.md → Who acts for whom.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, closeSync, constants, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { createRedactor } from "../../src/call/index.js";
import { ServerLog } from "../../src/mcp/log.js";
import { openSqliteStore } from "../../src/store/index.js";

/** Writes `line` to a server log at `file` and closes it. */
async function logLine(file: string, line: string): Promise<void> {
  const log = new ServerLog(file, createRedactor([]));
  const stderr = new PassThrough();
  log.attach(stderr);
  stderr.write(line);
  await new Promise((resolve) => {
    stderr.on("end", resolve);
    stderr.end();
  });
  await log.close();
}
test("only what is toolshell's own is narrowed: a shared log folder, a pipe as a log or as the store keep their modes; control: the log is written 0600 and the store's error names it", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-shared-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // A logDir a config points at an existing shared folder (as /tmp is: sticky, everyone's).
  const shared = path.join(dir, "shared");
  mkdirSync(shared);
  chmodSync(shared, 0o1777);
  await logLine(path.join(shared, "db.log"), "started\n");
  assert.equal(statSync(shared).mode & 0o7777, 0o1777, "the shared folder keeps its mode");
  assert.equal(statSync(path.join(shared, "db.log")).mode & 0o777, 0o600, "control: the log in it is the owner's");
  assert.match(readFileSync(path.join(shared, "db.log"), "utf8"), /started/, "control: it is written");
  // A pipe (as /dev/null is a device): a store or a log pointed at it is used as it is.
  const pipe = path.join(dir, "pipe");
  const made = spawnSync("mkfifo", ["-m", "644", pipe], { encoding: "utf8" });
  assert.equal(made.status, 0, made.stderr);
  assert.throws(() => openSqliteStore(pipe), (err: Error) => err.message.startsWith(`the store ${pipe} could not be opened`));
  assert.equal(statSync(pipe).mode & 0o777, 0o644, "the store's pipe keeps its mode");
  const reader = openSync(pipe, constants.O_RDONLY | constants.O_NONBLOCK);
  t.after(() => closeSync(reader));
  const logs = path.join(dir, ".toolshell", "logs");
  mkdirSync(logs, { recursive: true });
  const linked = path.join(logs, "db.log");
  symlinkSync(pipe, linked);
  await logLine(linked, "to the pipe\n");
  assert.equal(statSync(pipe).mode & 0o777, 0o644, "a log linked to the pipe leaves the pipe's mode");
});
