/**
 * Who acts for whom, on this machine: a server's log (its stderr, and the secrets in it) is the
 * owner's only, as the daemon socket and the store are — a file 0600 in a folder 0700, a file or
 * folder made earlier by an older version narrowed too. Control: the log is written.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { createRedactor } from "../../src/call/index.js";
import { ServerLog } from "../../src/mcp/log.js";
test("a server's log file is 0600 in a 0700 folder, also when an older one was world-readable; control: the stderr is in it", async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), "ts-logs-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const earlier of [false, true]) {
    const logs = path.join(dir, earlier ? "old" : "new", ".toolshell", "logs");
    const file = path.join(logs, "db.log");
    if (earlier) {
      mkdirSync(logs, { recursive: true, mode: 0o755 });
      chmodSync(logs, 0o755);
      writeFileSync(file, "older\n", { mode: 0o644 });
      chmodSync(file, 0o644);
    }
    const log = new ServerLog(file, createRedactor([]));
    const stderr = new PassThrough();
    log.attach(stderr);
    stderr.write("password=hunter2-Sesame-99\n");
    await new Promise((resolve) => {
      stderr.on("end", resolve);
      stderr.end();
    });
    await log.close();
    assert.equal(statSync(file).mode & 0o777, 0o600, `the log file of ${earlier ? "an older version" : "a new log"}`);
    assert.equal(statSync(logs).mode & 0o777, 0o700, `the log folder of ${earlier ? "an older version" : "a new log"}`);
    assert.match(readFileSync(file, "utf8"), /password=/, "control: the stderr is logged");
  }
});
