/**
 * A CLI run exits once its output is out (README "The CLI"): a server that is slow to end does
 * not hold the process beyond the bound the CLI gives its host's close (`CLOSE_BOUND_MS`,
 * src/cli/commands.ts). The kit server here outlives its client (it stays when stdin closes and
 * when signalled SIGTERM), so the stdio transport's full shutdown (stdin, SIGTERM, then SIGKILL
 * after its grace, mcp/stdio.ts) would end it before the CLI exits; the CLI must exit first,
 * leaving the transport's exit hook to signal the group.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { KIT_SERVER, REPO_ROOT, tsxCommand } from "../fixtures/mcp/index.js";

const CLI = path.join(REPO_ROOT, "dist/cli/main.js");

/** Whether `pid` is a live process (not gone, not a zombie). */
function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

test("--no-daemon --timeout: the run exits after its stop report without waiting out a slow server's shutdown", async (t) => {
  assert.ok(existsSync(CLI), "run `npm run build` first");
  const work = mkdtempSync(path.join(tmpdir(), "toolshell-exit-"));
  const starts = path.join(work, "starts.txt");
  writeFileSync(starts, "");
  const kit = { ...tsxCommand(KIT_SERVER), env: { FIXTURE_STARTS_FILE: starts, FIXTURE_SLOW_SHUTDOWN: "1" }, trust: true };
  writeFileSync(path.join(work, "toolshell.config.json"), JSON.stringify({ mcpServers: { kit } }));
  const pids = () => readFileSync(starts, "utf8").split("\n").filter((l) => /^\d+$/.test(l)).map(Number);
  t.after(() => {
    for (const pid of pids()) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
    }
    rmSync(work, { recursive: true, force: true });
  });
  const child = spawn(process.execPath, [CLI, "--no-daemon", "--timeout", "2000", "exec", "tools kit slow ms=600000"], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += String(d)));
  const { code, serverAlive } = await new Promise<{ code: number | null; serverAlive: boolean[] }>((resolve) =>
    child.on("exit", (c) => resolve({ code: c, serverAlive: pids().map(alive) })),
  );
  const report = JSON.parse(stderr.trim().split("\n").pop()!);
  assert.equal(report.tools.stopped.reason, "timeout", stderr);
  assert.notEqual(code, 0);
  assert.deepEqual(serverAlive, [true], "the CLI exited while the server was still ending");
  // The transport's exit hook signalled the server's group as the CLI exited.
  while (!readFileSync(starts, "utf8").includes("term ")) await new Promise((r) => setTimeout(r, 50));
});
